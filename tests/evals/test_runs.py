"""Many eval runs: loading saved reports, tidy frames, the run history and a case-by-case diff."""

from __future__ import annotations

import json
import time

import pandas as pd
import plotly.graph_objects as go
import pytest

from selectools.evals import (
    BaselineStore,
    CaseVerdict,
    EvalError,
    EvalReport,
    EvalRuns,
    EvalSuite,
    TestCase,
    save_run,
)
from selectools.observe.trace_store import JSONLTraceStore
from tests.evals.agents import make_agent

CASES = [
    TestCase(input="Cancel my plan", name="cancel", expect_contains="cancelled", tags=["billing"]),
    TestCase(input="Hi", name="greeting", expect_contains="Hello", tags=["chat"]),
]
GOOD = {"Cancel my plan": "Your plan is cancelled.", "Hi": "Hello there"}
WORSE = {"Cancel my plan": "Sorry, I cannot.", "Hi": "Hello again"}


def run_suite(table, version: str, model_tag: str = "a", **suite_options) -> EvalReport:
    suite = EvalSuite(
        make_agent(table),
        CASES,
        name="support",
        metadata={"prompt_version": version, "tags": [model_tag]},
        **suite_options,
    )
    report = suite.run()
    time.sleep(0.01)  # distinct start times, so the runs have an order
    return report


@pytest.fixture
def history(tmp_path):
    folder = tmp_path / "eval_runs"
    for table, version in ((GOOD, "v1"), (WORSE, "v2"), (GOOD, "v3")):
        save_run(run_suite(table, version), folder)
    return folder


def test_a_directory_of_runs_loads_oldest_first_with_one_row_per_run(history):
    runs = EvalRuns.load(history)
    frame = runs.runs_frame()
    assert len(runs) == 3 and list(frame["prompt_version"]) == ["v1", "v2", "v3"]
    assert list(frame["accuracy"]) == [1.0, 0.5, 1.0]
    assert list(frame["regression"]) == [False, True, False]
    assert list(frame["run_tags"]) == [["a"], ["a"], ["a"]]  # "tags" is the cases' column
    assert frame["model"].eq("gpt-4o-mini").all() and frame["run_id"].is_unique
    for column in ("cost_usd", "tokens", "latency_p50_ms", "started_at", "source"):
        assert column in frame
    assert frame["cost_usd"].tolist() == [r.report.total_cost for r in runs]


def test_case_score_and_message_frames_are_tidy_and_carry_the_run_columns(history):
    runs = EvalRuns.load(history)
    cases = runs.cases_frame()
    assert len(cases) == 6 and list(cases.columns[:4]) == [
        "run_id",
        "suite",
        "model",
        "prompt_version",
    ]
    pivot = cases.pivot_table(index="case", columns="prompt_version", values="cost_usd")
    assert list(pivot.columns) == ["v1", "v2", "v3"]
    by_version = cases.groupby("prompt_version")["verdict"].apply(lambda v: (v == "pass").mean())
    assert by_version.to_dict() == {"v1": 1.0, "v2": 0.5, "v3": 1.0}
    scores = runs.scores_frame()
    failed = scores[scores["passed"] == False]  # noqa: E712 - a nullable column
    assert failed[["prompt_version", "case", "evaluator"]].values.tolist() == [
        ["v2", "cancel", "contains"]
    ]
    messages = runs.messages_frame()
    first = messages[(messages["run_id"] == runs[0].run_id) & (messages["case"] == "greeting")]
    assert list(first["role"]) == ["user", "assistant"]
    assert list(first["content"]) == ["Hi", "Hello there"]


def test_files_baselines_and_reports_in_memory_mix(tmp_path, history):
    store = BaselineStore(tmp_path / "baselines")
    store.save(run_suite(GOOD, "base"))
    single = tmp_path / "one.json"
    run_suite(WORSE, "file").to_json(single)
    memory = run_suite(GOOD, "memory")
    runs = EvalRuns.load(store, single, memory)
    assert [r.report.metadata["prompt_version"] for r in runs] == ["base", "file", "memory"]
    assert [r.run_id for r in runs] == ["support#1", "one", "support#2"]
    assert len(EvalRuns.load(history, history)) == 6  # the same folder twice: ids stay unique
    assert EvalRuns.load(history, history).runs_frame()["run_id"].is_unique


def test_bad_sources_are_clear_errors(tmp_path):
    with pytest.raises(EvalError, match="needs at least one source"):
        EvalRuns.load()
    with pytest.raises(EvalError, match="no such file or directory"):
        EvalRuns.load(tmp_path / "missing")
    (tmp_path / "notes.json").write_text(json.dumps({"hello": 1}))
    with pytest.raises(EvalError, match=r"not a readable eval report.*'results' list"):
        EvalRuns.load(tmp_path)
    (tmp_path / "notes.json").write_text("{broken")
    with pytest.raises(EvalError, match=r"notes\.json: not a readable eval report"):
        EvalRuns.load(tmp_path / "notes.json")


def test_history_view_and_chart_mark_the_regression(history):
    runs = EvalRuns.load(history)
    html = runs._repr_mimebundle_()["text/html"]
    assert "Eval runs" in html and html.count("regression: cancel") == 1
    assert "-50.0 pt" in html and "prompt_version=v2" in html
    figure = runs.history_chart()
    assert isinstance(figure, go.Figure)
    marked = [t for t in figure.data if t.name == "regression"]
    assert list(marked[0].x) == [runs[1].run_id]


def test_diff_lists_changed_cases_with_both_traces(tmp_path):
    store = JSONLTraceStore(tmp_path / "traces.jsonl")
    before = run_suite(GOOD, "v1")
    after = run_suite(WORSE, "v2")
    for report in (before, after):
        for result in report.results:
            store.save(result.result.trace)
    folder = tmp_path / "runs"
    save_run(before, folder)
    save_run(after, folder)
    runs = EvalRuns.load(folder)  # from disk: traces come from the store
    diff = runs.diff(0, 1, traces=store)
    assert [(c.case, c.kind) for c in diff.changes] == [
        ("cancel", "regressed"),
        ("greeting", "changed"),
    ]
    frame = diff.to_dataframe()
    assert frame["verdict_before"].tolist() == ["pass", "pass"]
    assert frame["verdict_after"].tolist() == ["fail", "pass"]
    cancel = frame.iloc[0]
    assert cancel["trace_before"] == before.results[0].trace_id
    assert cancel["trace_after"] == after.results[0].trace_id
    html = diff._repr_mimebundle_()["text/html"]
    for trace_id in (cancel["trace_before"], cancel["trace_after"]):
        assert f"trace {h_ms(trace_id)}" in html
    assert "regression" in html and "not loaded" not in html
    bare = runs.diff(runs[0].run_id, runs[1].run_id)  # no store: the ids, and how to load them
    assert "not loaded: pass traces=TraceStore" in bare._repr_mimebundle_()["text/html"]


def h_ms(text: str) -> str:
    """How the view writes a muted trace id."""
    return f'<span style="opacity: 0.7;">{text}</span>'


def test_save_run_never_overwrites_a_run(tmp_path):
    report = run_suite(GOOD, "v1")
    paths = {save_run(report, tmp_path) for _ in range(3)}
    assert len(paths) == 3
    assert all(
        EvalReport.from_json(p).metadata == {"prompt_version": "v1", "tags": ["a"]} for p in paths
    )


def test_reports_keep_metadata_and_messages_through_json():
    report = run_suite(GOOD, "v9")
    again = EvalReport.from_json(report.to_json())
    assert again.metadata == report.metadata
    assert again.results[1].conversation() == [
        {"role": "user", "content": "Hi", "tool_calls": []},
        {"role": "assistant", "content": "Hello there", "tool_calls": []},
    ]
    assert again.results[0].verdict is CaseVerdict.PASS
    assert isinstance(EvalRuns.load(report).cases_frame(), pd.DataFrame)
