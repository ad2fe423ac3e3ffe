"""``selectools eval`` and ``selectools view``, run as real subprocesses."""

from __future__ import annotations

import html
import json
from pathlib import Path

from selectools import Agent
from selectools.evals import EvalSuite, TestCase
from selectools.testing import ScriptedProvider, tool_call
from selectools.tools import tool
from selectools.trace import trace_to_json

from .test_cli import run


@tool(description="Look up a product's price")
def price(product: str) -> str:
    return "$999"


def saved_trace(folder: Path) -> Path:
    agent = Agent(
        tools=[price],
        provider=ScriptedProvider([tool_call("price", product="laptop"), "A laptop is $999."]),
    )
    result = agent.run("What does a laptop cost?")
    path = folder / "run.json"
    trace_to_json(result.trace, path)
    return path


def saved_report(folder: Path) -> Path:
    agent = Agent(tools=[], provider=ScriptedProvider(["yes", "no"]))
    cases = [
        TestCase(input="a", name="first", expect_contains="yes"),
        TestCase(input="b", name="second", expect_contains="yes"),
    ]
    report = EvalSuite(agent, cases, name="smoke").run()
    path = folder / "report.json"
    report.to_json(path)
    return path


def test_eval_run_is_the_eval_command_line(tmp_path):
    dataset = tmp_path / "cases.json"
    dataset.write_text(json.dumps([{"input": "hello", "name": "echo", "expect_contains": "hello"}]))
    done = run("eval", "run", str(dataset), "--quiet", "--json", str(tmp_path / "out.json"),
               cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out.json").read_text())
    assert [r["verdict"] for r in report["results"]] == ["pass"]
    helped = run("eval", "--help", cwd=tmp_path)
    assert helped.returncode == 0 and helped.stdout.startswith("usage: selectools eval")
    listed = run("--help", cwd=tmp_path)
    assert "eval" in listed.stdout and "view" in listed.stdout


def test_view_writes_a_self_contained_trace_page(tmp_path):
    page = tmp_path / "trace.html"
    done = run("view", str(saved_trace(tmp_path)), "-o", str(page), "--no-browser", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"trace page: {page.resolve().as_uri()}"
    page_html = page.read_text()
    text = html.unescape(page_html)
    assert "price(product='laptop')" in text and '"result": "$999"' in text  # every step's fields
    assert "scripted" in text  # the LLM calls' rows (an offline model names itself so)
    assert "plotly" in page_html.lower() and "<script src=" not in page_html  # Gantt, inlined


def test_view_opens_an_eval_report(tmp_path):
    page = tmp_path / "report.html"
    done = run("view", str(saved_report(tmp_path)), "-o", str(page), "--no-browser", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("report page: ")
    html = page.read_text()
    assert "Eval report: smoke" in html and "first" in html and "second" in html


def test_view_says_what_is_wrong_with_a_file(tmp_path):
    missing = run("view", str(tmp_path / "nope.json"), "--no-browser", cwd=tmp_path)
    assert missing.returncode == 2 and "no such file" in missing.stderr
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}')
    wrong = run("view", str(other), "--no-browser", cwd=tmp_path)
    assert wrong.returncode == 2
    assert "neither a saved trace" in wrong.stderr and "Traceback" not in wrong.stderr
    broken = tmp_path / "broken.json"
    broken.write_text('{"run_id": "x", "steps": [')
    bad = run("view", str(broken), "--no-browser", cwd=tmp_path)
    assert bad.returncode == 2 and "not a JSON file" in bad.stderr
