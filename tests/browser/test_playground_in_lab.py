"""The playground embedded in a JupyterLab output (as notebooks/serve.ipynb shows it) still works.

JupyterLab runs on another port than the agent, so this is the case the playground's
``frame-ancestors`` and the server's Origin check must let through.
"""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CELLS = [
    "from selectools import Agent\n"
    "from selectools.serve import create_app\n"
    "from selectools.testing import ScriptedProvider\n"
    "agent = Agent(provider=ScriptedProvider(lambda r: 'echo: ' + r.last_message.content))\n"
    "server = create_app(agent).serve(port=0, background=True)\n"
    "server",
]


def test_the_playground_answers_inside_a_jupyterlab_output(lab, browser, shots):
    lab.write_notebook("playground.ipynb", CELLS)
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    try:
        page.goto(lab.url("lab/tree/playground.ipynb"))
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        lab.wait_for_idle_kernel()
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_text("Run All Cells", exact=True).click()
        page.wait_for_selector(".jp-OutputArea-output iframe", timeout=60_000)
        frame = page.frame_locator(".jp-OutputArea-output iframe")
        frame.locator("#prompt").fill("hello from lab")
        frame.locator("#prompt").press("Enter")
        answer = frame.locator(".msg.assistant[data-state=done] .text")
        answer.wait_for(timeout=30_000)
        assert answer.inner_text() == "echo: hello from lab"
        page.screenshot(path=str(shots / "playground-in-jupyterlab.png"))
    finally:
        page.close()
        lab.stop_kernels()
