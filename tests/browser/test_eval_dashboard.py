"""The live eval dashboard in a real Chromium (Playwright): cases appear while the suite runs,
untrusted case names stay text, and the final counts are the report's."""

from __future__ import annotations

import threading

import pytest

from selectools.evals import EvalDashboard, EvalSuite, TestCase
from tests.evals.agents import make_agent

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CASE_SECONDS = 0.6  # each case's model latency: the run lasts about 8 x 0.6 s
HOSTILE = "<img src=x onerror=\"document.title='pwned'\">"


def boom() -> str:
    raise RuntimeError("provider down")


def test_cases_appear_while_the_suite_runs_and_the_final_counts_are_true(browser, tmp_path):
    table = {f"q{i}": "yes" for i in range(6)} | {"q6": "no", "bad": boom}
    cases = [TestCase(input=f"q{i}", name=f"case {i}", expect_contains="yes") for i in range(6)]
    cases += [
        TestCase(input="q6", name=HOSTILE, expect_contains="yes"),
        TestCase(input="bad", name="errors"),
        TestCase(input="later", name="skipped", skip=True),
    ]
    suite = EvalSuite(make_agent(table, latency=CASE_SECONDS), cases, name="live demo")
    dashboard = EvalDashboard(suite)
    with dashboard.serve() as server:
        page = browser.new_page(viewport={"width": 1100, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        try:
            page.goto(server.url)
            page.wait_for_selector("#status[data-state='waiting']", timeout=15_000)
            outcome: dict[str, object] = {}
            runner = threading.Thread(target=lambda: outcome.setdefault("report", suite.run()))
            runner.start()
            # no wait_for_function: the page's CSP (kept on) forbids evaluating strings
            page.wait_for_selector("#cases tr:nth-child(2)", timeout=60_000)
            shown_while_running = page.locator("#cases tr").count()
            still_running = runner.is_alive()
            assert page.get_attribute("#status", "data-state") == "running"
            runner.join(120)
            assert not runner.is_alive()
            page.wait_for_selector("#status[data-state='done']", timeout=30_000)
            page.screenshot(path=str(tmp_path / "eval-dashboard.png"), full_page=True)

            report = outcome["report"]
            assert still_running and 2 <= shown_while_running < len(cases)
            assert page.locator("#cases tr").count() == len(cases)
            shown = {key: page.text_content(f"#{key}") for key in
                     ("pass", "fail", "error", "skip", "done", "total", "accuracy")}  # fmt: skip
            assert shown == {
                "pass": str(report.pass_count), "fail": str(report.fail_count),
                "error": str(report.error_count), "skip": str(report.skip_count),
                "done": str(len(cases)), "total": str(len(cases)),
                "accuracy": f"{report.accuracy * 100:.1f}%",
            }  # fmt: skip
            assert (report.pass_count, report.fail_count, report.error_count) == (6, 1, 1)
            verdicts = page.eval_on_selector_all(
                "#cases tr", "rows => rows.map(r => r.dataset.verdict)"
            )
            assert verdicts == [r.verdict.value for r in report.results]  # in case order
            hostile = page.locator("#cases tr[data-index='6'] td.label")
            assert hostile.text_content() == HOSTILE  # shown as text, never parsed as HTML
            assert page.locator("#cases img").count() == 0 and page.title() != "pwned"
            assert errors == []
        finally:
            page.close()


def test_a_page_opened_after_the_run_shows_the_whole_run(browser):
    suite = EvalSuite(make_agent({"a": "yes"}), [TestCase(input="a", expect_contains="yes")])
    dashboard = EvalDashboard(suite)
    report = suite.run()
    with dashboard.serve() as server:
        page = browser.new_page()
        try:
            page.goto(server.url)
            page.wait_for_selector("#status[data-state='done']", timeout=15_000)
            assert page.text_content("#pass") == str(report.pass_count) == "1"
            page.goto(server.base_url + "/")  # no token: refused, nothing shown
            assert "?token=" in (page.text_content("body") or "")
        finally:
            page.close()
    assert not server.running
