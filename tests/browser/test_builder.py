"""The visual builder in Chromium: add two agents, connect them, run the test panel, export Python that runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from selectools.serve._builder_app import create_builder_app
from selectools.serve.app import serve_in_background
from selectools.testing import ScriptedProvider

from .test_playground import browser, save_screenshot  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]


def tag(request):  # type: ignore[no-untyped-def]
    return f"{request.system_prompt}({request.last_message.content})"


def test_build_connect_run_and_export(browser, tmp_path):  # noqa: F811
    provider = ScriptedProvider(tag, chunk_latency=0.02)
    app = create_builder_app(provider=provider)  # no token configured: it makes one
    with serve_in_background(app) as server:
        page = browser.new_page(viewport={"width": 1300, "height": 900}, bypass_csp=True)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{server.url}/builder")
        assert page.url.endswith("/login")  # the builder never runs open
        page.goto(f"{server.url}/?token={app.state.auth_token}")  # the printed login URL
        assert page.url == f"{server.url}/builder"
        page.wait_for_selector('.node[data-id="start"]')
        assert page.locator(".node").count() == 2  # START and END are there from the start

        # two agents from the palette, each with a system prompt from the node editor
        for prompt in ("research", "write"):
            page.click('[data-add="agent"]')
            page.fill("#node-prompt", prompt)
        assert page.locator(".node.agent").count() == 2
        page.click('.node[data-id="agent1"]')
        assert page.input_value("#node-prompt") == "research"

        # connect START -> agent1 -> agent2 -> END: output port, then input port
        for a, b in [("start", "agent1"), ("agent1", "agent2"), ("agent2", "end")]:
            page.click(f'.node[data-id="{a}"] .port.out')
            page.click(f'.node[data-id="{b}"] .port.in')
        assert page.locator("#edges path.edge").count() == 3

        # the test panel streams the run and draws one timeline bar per agent
        page.fill("#run-prompt", "quantum")
        page.click("#run")
        page.wait_for_selector("#output[data-state=done]", timeout=20_000)
        assert page.get_attribute("#output", "data-result") == "write(research(quantum))"
        assert "[agent_1] research(quantum)" in page.inner_text("#output")
        assert page.locator("#gantt .bar").count() == 2
        save_screenshot(page, tmp_path, "builder.png")

        # export: YAML lists the nodes; Python runs on its own
        page.click('.tabs [data-tab="yaml"]')
        yaml_text = page.input_value("#code")
        assert 'system_prompt: "research"' in yaml_text and "edges:" in yaml_text
        page.click('.tabs [data-tab="python"]')
        python = page.input_value("#code")

        # import: a saved workflow comes back
        page.click('.tabs [data-tab="json"]')
        saved = page.input_value("#code")
        page.click("#new")
        assert page.locator(".node.agent").count() == 0
        page.click("#import-open")
        page.fill("#import-text", saved)
        page.click("#import-load")
        assert page.locator(".node.agent").count() == 2
        assert page.locator("#edges path.edge").count() == 3
        assert errors == []

    script = tmp_path / "my_workflow.py"
    script.write_text(python)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = str(ROOT)
    run = subprocess.run(
        [sys.executable, str(script), "hello", "builder"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == "hello builder\n"  # two offline (echo) agents in a chain
    assert 'system_prompt="research"' in python
