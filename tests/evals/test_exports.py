"""EvalReport exports: JSON round trip, JUnit read by a real consumer, HTML in a real browser."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET

import pytest

from selectools.evals import CaseVerdict, EvalReport, EvalSuite, RelevanceEvaluator, TestCase
from selectools.testing import ScriptedProvider
from tests.evals.agents import make_agent

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def report() -> EvalReport:
    table = {"a": "alpha <b>&amp;</b>", "b": "beta", "j1": "ok", "j2": "ok"}

    def judge_model(request):
        return "hmm, unsure" if "<query>\nj2" in request.last_message.content else "SCORE: 9"

    judge = RelevanceEvaluator(provider=ScriptedProvider(judge_model))
    cases = [
        TestCase(input="a", name="alpha", expect_contains="alpha", tags=["billing"]),
        TestCase(input="b", name="beta", expect_contains="alpha", tags=["billing", "critical"]),
        TestCase(input="s", name="skipped", skip=True),
        TestCase(input="j1", name="judged"),
        TestCase(input="j2", name="judge broke"),
    ]
    return EvalSuite(make_agent(table), cases, [judge], name="demo").run()


def test_verdict_enum_members():
    assert [v.name for v in CaseVerdict] == ["PASS", "FAIL", "ERROR", "SKIP"]


def test_summary_names_failures(report):
    text = report.summary()
    assert "Accuracy: 50.0%" in text
    assert "pass 2 · fail 1 · error 1 · skip 1" in text
    assert "beta [fail]" in text and "contains: output does not contain 'alpha'" in text
    assert "judge broke [error]" in text


def test_json_round_trip(report, tmp_path):
    path = tmp_path / "out" / "results.json"
    report.to_json(path)
    data = json.loads(path.read_text())
    assert data["metrics"]["accuracy"] == 0.5
    assert data["metrics"]["failures_by_evaluator"] == {"contains": 1, "relevance": 1}
    again = EvalReport.from_json(path)
    assert again.to_dict() == report.to_dict()
    assert again.results[3].scores == {"relevance": 9.0}


def test_junit_parses_in_junitparser(report, tmp_path):
    junitparser = pytest.importorskip("junitparser")
    path = tmp_path / "results.xml"
    report.to_junit_xml(path)
    xml = junitparser.JUnitXml.fromfile(str(path))
    (suite,) = list(xml)
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (5, 1, 1, 1)
    outcomes = {}
    for case in suite:
        kinds = [type(r).__name__ for r in case.result]
        outcomes[case.name] = kinds[0] if kinds else "passed"
    assert outcomes == {
        "alpha": "passed",
        "beta": "Failure",
        "skipped": "Skipped",
        "judged": "passed",
        "judge broke": "Error",
    }
    failing = next(c for c in suite if c.name == "beta")
    assert "output does not contain 'alpha'" in failing.result[0].message
    assert failing.classname == "demo.billing/critical"


def test_junit_has_the_schema_required_structure(report):
    root = ET.fromstring(report.to_junit_xml())
    assert root.tag == "testsuites"
    suite = root.find("testsuite")
    for attribute in ("name", "tests", "failures", "errors", "skipped", "time", "timestamp"):
        assert suite.get(attribute) is not None
    for case in suite.findall("testcase"):
        assert case.get("name") and case.get("classname") and float(case.get("time")) >= 0


def test_junit_survives_control_characters(tmp_path):
    report = EvalSuite(
        make_agent({"x": "bell\x07 and nul\x00"}), [TestCase(input="x", expect_contains="zzz")]
    ).run()
    root = ET.fromstring(report.to_junit_xml())
    assert "bell and nul" in root.find(".//system-out").text


def test_html_is_self_contained(report):
    page = report.to_html()
    assert page.startswith("<!DOCTYPE html>")
    assert "alpha &lt;b&gt;&amp;amp;&lt;/b&gt;" in page  # the output is escaped, never injected
    for remote in ("http://", "https://", "//cdn", "<link", "src="):
        assert remote not in page


@pytest.mark.browser
def test_html_opens_in_chromium_without_network_or_console_errors(report, tmp_path):
    if CHROMIUM is None:
        pytest.skip("needs Chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    path = tmp_path / "report.html"
    report.to_html(path)
    requests: list[str] = []
    problems: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
            ],
        )
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 700})
            page.on("request", lambda r: requests.append(r.url))
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.goto(path.as_uri())
            page.wait_for_load_state("load")
            assert page.locator("tr.case").count() == 5
            page.click("button[data-filter=fail]")
            assert page.locator("tr.case:visible").count() == 1
            page.click("tr.case:visible")
            assert page.locator("#d1").is_visible()
            assert "output does not contain" in page.locator("#d1").inner_text()
            page.click("button[data-filter=all]")
            page.fill("#search", "judge")
            assert page.locator("tr.case:visible").count() == 2
            shots = tmp_path / "screenshots"
            shots.mkdir()
            page.screenshot(path=str(shots / "eval_report.png"), full_page=True)
            print(f"screenshot saved in {shots}")
        finally:
            browser.close()
    assert [u for u in requests if not u.startswith("file://")] == []
    assert problems == []
