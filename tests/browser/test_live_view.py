"""%%agent in a real JupyterLab 4 + Chromium: the output streams, then renders tool cards that open."""

from __future__ import annotations

import time

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ANSWER = "The laptop costs 999 dollars and ships tomorrow from the warehouse in Lyon."
CELLS = [
    "%load_ext selectools",
    "from selectools.testing import ScriptedProvider, reply, tool_call\n"
    "demo = ScriptedProvider([\n"
    '    reply("Checking.", tool_call("get_price", product="laptop")),\n'
    f"    reply({ANSWER!r}, chunk_latency=0.08),\n"
    "])\n"
    "%selectools provider=demo",
    '%%tool\ndef get_price(product: str) -> str:\n    """Look up a price."""\n    return "$999"',
    "%%agent\nWhat does a laptop cost?",
]


def test_agent_output_streams_then_renders_in_jupyterlab(lab, browser, shots):
    lab.write_notebook("live.ipynb", CELLS)
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    try:
        page.goto(lab.url("lab/tree/live.ipynb"))
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        lab.wait_for_idle_kernel()
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_text("Run All Cells", exact=True).click()
        samples: list[str] = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            views = page.locator(".selectools-run").all_inner_texts()
            if views:
                samples.append(views[-1])
                if "final" in views[-1] and ANSWER in views[-1]:
                    break
            time.sleep(0.03)
        page.screenshot(path=str(shots / "live-view-jupyterlab.png"))
        final = samples[-1]
        assert ANSWER in final and "final" in final and "get_price" in final
        streaming = [s for s in samples if "running" in s]
        assert any("The laptop" in s and ANSWER not in s for s in streaming), samples[:5]
        card = page.locator(".selectools-run details").first
        assert card.get_attribute("open") is None
        card.locator("summary").click()
        assert card.get_attribute("open") == ""
        assert '"product": "laptop"' in card.inner_text()
    finally:
        page.close()
