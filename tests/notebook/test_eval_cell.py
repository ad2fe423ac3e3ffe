"""%%eval and the eval views in an in-process IPython shell; DataFrames and charts of a report."""

from __future__ import annotations

import json

import pytest
from IPython.core.error import UsageError

from selectools.evals import CaseVerdict, EvalReport, EvalSuite, TestCase
from tests.evals.agents import make_agent
from tests.notebook.conftest import final_outputs, shell  # noqa: F401 - the fixture

TABLE = {"Cancel my plan": "Your plan is cancelled.", "Hi": "Hello! How can I help?"}

YAML_CELL = """\
- input: Cancel my plan
  name: cancel
  expect_contains: cancelled
  tags: [billing]
- input: Hi
  name: greeting
  expect_starts_with: Goodbye
  tags: [chat]
"""


@pytest.fixture
def in_notebook_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def html_outputs(ip) -> list[str]:
    return [o["data"]["text/html"] for o in final_outputs(ip) if "text/html" in o["data"]]


@pytest.mark.usefixtures("in_notebook_folder")
def test_eval_cell_yaml_runs_shows_progress_and_report(shell):  # noqa: F811
    shell.user_ns["support"] = make_agent(TABLE, latency=0.05)
    shell.run_cell_magic("eval", "--agent support -o report --concurrency 1", YAML_CELL)
    report = shell.user_ns["report"]
    assert isinstance(report, EvalReport)
    assert [r.verdict for r in report.results] == [CaseVerdict.PASS, CaseVerdict.FAIL]
    updates = [o for o in shell.outputs if o["update"]]
    assert updates, "the progress bar was redrawn while the cases ran"
    assert "2/2 cases" in updates[-1]["data"]["text/plain"]
    pages = html_outputs(shell)
    view = next(p for p in pages if "selectools-eval-report" in p)
    assert "50.0% accuracy" in view and "FAIL" in view and "<details" in view
    assert "Hello! How can I help?" in view  # the failing row expands to its output
    assert "Trace" in view  # and to its trace


def test_eval_cell_csv_and_default_agent_name(shell):  # noqa: F811
    shell.user_ns["agent"] = make_agent(TABLE)
    cell = "input,expect_contains,tags\nCancel my plan,cancelled,billing|p1\nHi,hello,chat\n"
    shell.run_cell_magic("eval", "-o r", cell)
    assert shell.user_ns["r"].accuracy == 1.0
    assert shell.user_ns["r"].results[0].case.tags == ["billing", "p1"]


def test_eval_cell_baseline_kept_in_the_notebook_folder(shell, in_notebook_folder):  # noqa: F811
    shell.user_ns["support"] = make_agent(TABLE)
    good = YAML_CELL.replace("Goodbye", "Hello")
    shell.run_cell_magic("eval", "--agent support --baseline support", good)
    saved = in_notebook_folder / "eval_baselines" / "support.json"
    assert json.loads(saved.read_text())["metrics"]["accuracy"] == 1.0
    shell.outputs.clear()
    shell.run_cell_magic("eval", "--agent support --baseline support --save", YAML_CELL)
    view = next(p for p in html_outputs(shell) if "selectools-eval-regression" in p)
    assert "REGRESSION" in view and "greeting" in view and "-50.00%" in view
    assert json.loads(saved.read_text())["metrics"]["accuracy"] == 1.0  # a regression is not saved


def test_eval_cell_errors_are_one_line(shell, in_notebook_folder):  # noqa: F811
    with pytest.raises(UsageError, match="'nobody' is not defined"):
        shell.run_cell_magic("eval", "--agent nobody", YAML_CELL)
    shell.user_ns["agent"] = make_agent(TABLE)
    with pytest.raises(UsageError, match=r"%%eval cell \(yaml\):2: expected an 'input' string"):
        shell.run_cell_magic("eval", "", "- input: a\n- name: b\n")
    with pytest.raises(UsageError, match="write the test cases"):
        shell.run_cell_magic("eval", "", "\n")
    with pytest.raises(UsageError, match="--save needs --baseline"):
        shell.run_cell_magic("eval", "--save", "- input: a\n")


def _report() -> EvalReport:
    cases = [
        TestCase(
            input="Cancel my plan", name="cancel", expect_contains="cancelled", tags=["billing"]
        ),
        TestCase(
            input="Hi", name="hi", expect_starts_with="Bye", expect_max_length=5, tags=["chat"]
        ),
        TestCase(input="Hi", name="skipped", skip=True),
    ]
    return EvalSuite(make_agent(TABLE), cases).run()


def test_to_dataframe_one_row_per_case():
    frame = _report().to_dataframe()
    assert list(frame.columns) == [
        "case", "input", "verdict", "failing_evaluators", "latency_ms", "cost_usd", "tokens",
        "iterations", "tags", "weight", "output_excerpt", "error", "trace_id",
    ]  # fmt: skip
    assert frame["verdict"].tolist() == ["pass", "fail", "skip"]
    assert frame.loc[1, "failing_evaluators"] == "length, starts_with"  # in evaluator order
    assert frame.loc[1, "output_excerpt"] == "Hello! How can I help?"
    assert frame.loc[0, "tags"] == ["billing"] and frame.loc[0, "trace_id"]
    assert frame["tokens"].sum() == _report().total_tokens


def test_evaluator_frame_is_case_by_evaluator():
    frame = _report().evaluator_frame()
    assert list(frame.columns) == ["length", "starts_with"]
    assert list(frame.index) == ["cancel", "hi", "skipped"]
    assert frame.loc["cancel"].tolist() == [True, True]
    assert frame.loc["hi"].tolist() == [False, False]
    assert frame.loc["skipped"].isna().all()


def test_charts_are_plotly_figures():
    report = _report()
    by_tag = report.chart("accuracy_by_tag")
    bars = by_tag.data[0]
    assert list(bars.x) == ["billing", "chat"] and list(bars.text) == ["100%", "0%"]
    assert [value for value, _count in bars.customdata] == [100.0, 0.0]  # the true values
    assert bars.y[1] > 0  # the 0 % tag still shows a bar
    latency = report.chart("latency")
    assert {t.name for t in latency.data} == {"pass", "fail"}
    cost = report.chart("cost")
    assert list(cost.data[0].x) == ["cancel", "hi", "skipped"]
    with pytest.raises(ValueError, match="unknown chart"):
        report.chart("pie")


def test_report_rich_display_and_plain_repr():
    report = _report()
    html = report._repr_html_()
    assert "selectools-eval-report" in html and "PASS" in html and "SKIP" in html
    assert (
        repr(report) == "EvalReport(name='eval', cases=3, accuracy=50.00%, pass=1, fail=1, error=0)"
    )
