"""What the views say is true: counts, descriptions, schedules, scores, charts and their theme."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from selectools import Agent, AgentConfig, tool
from selectools._display import render
from selectools._view.scheduler import scheduler_html, scheduler_text
from selectools.embeddings import HashEmbedder
from selectools.evals import EvalSuite, TestCase
from selectools.rag import BM25, Document, HybridSearcher, VectorStore
from selectools.scheduler import AgentScheduler, every
from selectools.testing import ScriptedProvider
from selectools.trace import AgentTrace, StepType, TraceStep
from tests.evals.agents import make_agent

pytest.importorskip("plotly")


def test_a_one_step_trace_is_one_step():
    result = Agent(provider=ScriptedProvider(["hi"])).run("x")
    assert len(result.trace) == 1
    html = render(result, "html")
    assert "Trace (1 step)" in html and "1 steps" not in html


def test_a_tool_card_leaves_an_undescribed_parameter_undescribed():
    @tool()
    def lookup(key: str, limit: int = 3) -> str:
        """Looks a key up.

        Args:
            limit: how many rows at most
        """
        return key

    html = render(lookup, "html")
    assert "Parameter &#x27;key&#x27;" not in html.split("JSON schema")[0]
    assert "how many rows at most" in html
    # what the model reads is unchanged (the schema view shows it as it is sent)
    assert lookup.schema()["parameters"]["properties"]["key"]["description"] == "Parameter 'key'"


def test_a_finished_scheduler_job_shows_no_next_run():
    clock = [datetime(2026, 1, 1, 9, 0, tzinfo=timezone.utc)]
    scheduler = AgentScheduler(now=lambda: clock[0])
    scheduler.add_job(lambda prompt: "ok", "go", every(minutes=5), name="once", max_runs=1)
    scheduler.add_job(lambda prompt: "ok", "go", every(minutes=5), name="often")
    clock[0] += timedelta(minutes=5)
    scheduler.run_pending()
    text = scheduler_text(scheduler, clock[0])
    once = next(line for line in text.splitlines() if "once" in line)
    often = next(line for line in text.splitlines() if "often" in line)
    assert "no next run (done)" in once and "next 2026" not in once, once
    assert "next 2026-01-01 09:10:00" in often, often
    assert text.startswith("AgentScheduler · 2 jobs · 2 results")
    html = scheduler_html(scheduler, clock[0])
    row = html[html.index("once") : html.index("often")]
    assert ">&#8212; done</span>" in row and "2026-01-01 09:10" not in row


CORPUS = [
    Document(text="Python is a programming language.", metadata={"source": "py.md"}),
    Document(text="Rust is a systems programming language.", metadata={"source": "rust.md"}),
    Document(text="Bread needs flour and water.", metadata={"source": "bread.md"}),
]


def test_search_scores_are_named_and_explained_by_what_computed_them():
    store = VectorStore.create("memory", embedder=HashEmbedder())
    searcher = HybridSearcher(store)
    searcher.add_documents(CORPUS)
    bm25 = BM25()
    bm25.add_documents(CORPUS)
    views = {
        "cosine": store.search("programming language", top_k=2),
        "BM25": bm25.search("programming language", top_k=2),
        "RRF": searcher.search("programming language", top_k=2),
    }
    headers = {}
    for column, results in views.items():
        html = render(results, "html")
        headers[column] = html
        assert f">{column}</th>" in html and ">score</th>" not in html, column
        assert render(results, "dataframe")["scored_by"].iloc[0] == results.scored_by
    assert "cosine similarity" in headers["cosine"]
    assert "reciprocal rank fusion" in headers["RRF"] and "not measure similarity" in headers["RRF"]


def _tag_report(weights: tuple[float, float, float]):
    cases = [
        TestCase(input="a", name="a", expect_contains="alpha", tags=["easy"], weight=weights[0]),
        TestCase(input="b", name="b", expect_contains="beta", tags=["easy"], weight=weights[1]),
        TestCase(input="c", name="c", expect_contains="gamma", tags=["hard"], weight=weights[2]),
    ]
    table = {"a": "alpha", "b": "nope", "c": "nope"}
    return EvalSuite(make_agent(table), cases, name="tags").run()


def test_the_accuracy_chart_says_when_it_is_weighted_and_draws_a_bar_for_zero():
    plain = _tag_report((1, 1, 1)).chart()
    bar = plain.data[0]
    assert plain.layout.title.text == "Accuracy by tag"
    hard = list(bar.x).index("hard")
    assert bar.y[hard] > 0 and bar.text[hard] == "0%"  # a tag at 0 % still shows a bar
    assert bar.customdata[hard][0] == 0  # the hover says the true value
    weighted = _tag_report((3, 1, 1)).chart()
    assert "Weighted accuracy" in weighted.layout.title.text
    assert weighted.layout.yaxis.title.text == "weighted accuracy (%)"
    assert weighted.data[0].text[list(weighted.data[0].x).index("easy")] == "75%"


def _trace() -> AgentTrace:
    trace = AgentTrace()
    start = trace.started_at
    trace.steps.append(TraceStep(StepType.LLM_CALL, start, start + 0.01, "model", "r"))
    return trace


@pytest.mark.parametrize("kind", ["gantt", "accuracy_by_tag", "latency", "cost"])
def test_every_chart_is_transparent_with_theme_neutral_text(kind):
    figure = _trace().gantt() if kind == "gantt" else _tag_report((1, 1, 1)).chart(kind)
    layout = figure.layout
    assert layout.paper_bgcolor == "rgba(0, 0, 0, 0)"
    assert layout.plot_bgcolor == "rgba(0, 0, 0, 0)"
    # a mid grey: readable on a white page and on a near-black one
    red, green, blue = (int(str(layout.font.color)[i : i + 2], 16) for i in (1, 3, 5))
    assert red == green == blue and 110 <= red <= 160, layout.font.color
    assert "255, 255, 255" not in str(layout.xaxis.gridcolor)


def test_an_offline_run_is_labelled_scripted_at_no_cost_unless_a_model_is_chosen():
    result = Agent(provider=ScriptedProvider(["hi there"])).run("x")
    assert result.usage.total_cost_usd == 0 and result.usage.iterations[0].model == "scripted"
    assert render(result, "text").splitlines()[0].endswith(" · $0")
    chosen = Agent(provider=ScriptedProvider(["hi there"], model="gpt-5-mini")).run("x")
    assert chosen.usage.iterations[0].model == "gpt-5-mini" and chosen.usage.total_cost_usd > 0
    configured = Agent(
        provider=ScriptedProvider(["hi there"]), config=AgentConfig(model="gpt-5-mini")
    ).run("x")
    assert configured.usage.total_cost_usd > 0
