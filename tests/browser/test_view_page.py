"""``selectools view`` pages in a real Chromium: they load with no network request and no
console error, and show the trace Gantt / the report."""

from __future__ import annotations

import pytest

from selectools._view.page import page_for_file
from tests.cli.test_eval_and_view import saved_report, saved_trace

pytestmark = [pytest.mark.browser]


@pytest.mark.parametrize("make", [saved_trace, saved_report], ids=["trace", "report"])
def test_view_page_is_offline_and_error_free(browser, tmp_path, make):
    kind, html = page_for_file(make(tmp_path))
    page_file = tmp_path / f"{kind}.html"
    page_file.write_text(html, encoding="utf-8")
    url = page_file.resolve().as_uri()
    page = browser.new_page()
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if r.url != url else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto(url)
        page.wait_for_load_state("load")
        if kind == "trace":
            page.wait_for_selector(".js-plotly-plot .bars", timeout=15_000)
            assert page.locator(".js-plotly-plot .bars path").count() >= 3  # LLM, tool, LLM
        else:
            assert page.locator("tr.case").count() == 2
        page.screenshot(path=str(tmp_path / f"{kind}.png"), full_page=True)
    finally:
        page.close()
    assert requests == [] and errors == []
