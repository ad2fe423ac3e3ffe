"""The visual builder in Chromium against its server (``create_builder_app``): sign-in, the seven
templates (a screenshot of each), live code, Python export that runs and imports back, runs
streamed from AgentGraph with tool calls, Human Input buttons, re-runs from a checkpoint, the
timeline, history, Load Trace, Watch File, AI generate and copilot, and the embed view.

Screenshots go to the test's tmp dir (and ``SELECTOOLS_ARTIFACTS`` when set), never the repo.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from selectools import Agent, tool, trace_to_json
from selectools.builder import example, to_python
from selectools.serve._builder_app import create_builder_app
from selectools.serve.app import serve_in_background
from selectools.testing import ScriptedProvider, reply, tool_call

from .test_playground import browser, save_screenshot  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
TITLES = [
    "Simple Chatbot", "Researcher + Writer", "RAG Pipeline", "Reviewer Loop",
    "HITL Approval", "Multi-Model Panel", "Chain of Thought",
]  # fmt: skip
GENERATED = {
    "version": 1, "name": "ai_made",
    "nodes": [
        {"id": "start", "type": "start", "x": 60, "y": 200},
        {"id": "n1", "type": "agent", "name": "from_the_model", "x": 260, "y": 200},
        {"id": "end", "type": "end", "x": 500, "y": 200},
    ],
    "edges": [
        {"id": "e1", "from": "start", "from_port": "out", "to": "n1", "to_port": "in"},
        {"id": "e2", "from": "n1", "from_port": "out", "to": "end", "to_port": "in"},
    ],
}  # fmt: skip
FLOW = """\
version: 1
name: counting
nodes:
  - {id: start, type: start, x: 60, y: 200}
  - {id: n1, type: agent, name: counter, x: 260, y: 200, system_prompt: count,
     tools: [selectools.toolbox.text_tools.count_text]}
  - {id: n2, type: hitl, name: gate, x: 500, y: 200, prompt: "Ship it?", options: [approve, reject],
     timeout_s: 300, default_option: approve}
  - {id: n3, type: agent, name: shipper, x: 740, y: 120, system_prompt: ship}
  - {id: end, type: end, x: 980, y: 200}
edges:
  - {id: e1, from: start, from_port: out, to: n1, to_port: in}
  - {id: e2, from: n1, from_port: out, to: n2, to_port: in}
  - {id: e3, from: n2, from_port: approve, to: n3, to_port: in}
  - {id: e4, from: n3, from_port: out, to: end, to_port: in}
  - {id: e5, from: n2, from_port: reject, to: end, to_port: in}
"""


def respond(request):  # type: ignore[no-untyped-def]
    """Scripted answers: the workflow designer's JSON, a tool call for the counter, else a tag."""
    system = request.system_prompt or ""
    last = request.last_message
    if system.startswith("You design agent workflows"):
        return json.dumps(GENERATED)
    if system.startswith("You edit agent workflows"):
        changed = {**GENERATED, "name": "ai_edited"}
        return json.dumps({"workflow": changed, "message": "Renamed the workflow."})
    if system == "count" and last is not None and last.role.value == "user":
        return reply("", tool_call("count_text", text=str(last.content)))
    return f"{system}({last.content if last else ''})"


def shape(doc: dict) -> list[tuple[str, str]]:
    """A workflow's nodes by type and name (what an import must bring back; notes are YAML-only)."""
    return sorted((n["type"], n.get("name", "")) for n in doc["nodes"] if n["type"] != "note")


def wait_js(page, expression: str, timeout: float = 30) -> None:  # type: ignore[no-untyped-def]
    """Poll a JS expression from Python: the page's CSP (no eval) refuses wait_for_function."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"never true: {expression}"
        time.sleep(0.05)


def node_count(page) -> int:  # type: ignore[no-untyped-def]
    return int(page.evaluate("selectoolsBuilder.getDocument().nodes.length"))


def sign_in(page, server, token: str) -> list[str]:  # type: ignore[no-untyped-def]
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{server.url}/builder")
    assert page.url.endswith("/login")  # the builder never runs open
    page.fill("#token", "not-the-token")
    page.click("button[type=submit]")
    wait_js(page, "document.getElementById('login-error').textContent.length > 0")
    page.fill("#token", token)
    page.click("button[type=submit]")
    page.wait_for_selector(".sb-app[data-mode=server]")
    page.evaluate("localStorage.clear()")
    return errors


def test_templates_code_export_and_import(browser, tmp_path, monkeypatch):  # noqa: F811
    app = create_builder_app(provider=ScriptedProvider(respond), workdir=tmp_path)
    shots = tmp_path / "templates"
    shots.mkdir()
    with serve_in_background(app) as server:
        context = browser.new_context(viewport={"width": 1360, "height": 900})
        page = context.new_page()
        errors = sign_in(page, server, app.state.auth_token)
        assert page.locator(".sb-banner").is_hidden()
        assert node_count(page) == 2

        # File → Templates: the seven, each loads onto the canvas with its live code
        page.click("[data-menu=file]")
        page.click("[data-action=templates]")
        page.wait_for_selector(".sb-template")
        assert page.locator(".sb-template strong").all_inner_texts() == TITLES
        names = page.locator(".sb-template").evaluate_all("e => e.map(b => b.dataset.template)")
        page.keyboard.press("Escape")
        page.click("[data-action=toggle-code]")
        for name in names:
            page.click("[data-menu=file]")
            page.click("[data-action=templates]")
            page.click(f'.sb-template[data-template="{name}"]')
            wait_js(
                page,
                f"selectoolsBuilder.getDocument().name === {json.dumps(name)}"
                " && document.querySelector('.sb-code').dataset.state === 'ready'",
            )
            assert node_count(page) >= 3
            assert "AgentGraph" in page.inner_text(".sb-code-text")
            assert page.inner_text(".sb-code-errors") == ""
            page.screenshot(path=str(shots / f"{name}.png"))
        assert len(list(shots.glob("*.png"))) == 7

        # Export → Python: the download runs on its own (offline provider)
        template = page.evaluate("selectoolsBuilder.getDocument()")
        page.click("[data-menu=export]")
        with page.expect_download() as download:
            page.click("[data-action=export-python]")
        script = tmp_path / "chain_of_thought.py"
        download.value.save_as(script)
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.update(PYTHONPATH=str(ROOT), SELECTOOLS_PROVIDER="local")
        done = subprocess.run(
            [sys.executable, str(script), "hello builder"],
            capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "hello builder" in done.stdout

        # Import the Python back: the same graph; a broken file names its line
        page.click("[data-menu=file]")
        page.click("[data-action=new]")
        page.click("[data-menu=file]")
        page.click("[data-action=import]")
        page.fill(".sb-import-text", "from selectools import AgentGraph\n\ngraph = AgentGraph(\n")
        page.click("[data-action=import-load]")
        page.wait_for_selector(".sb-import-error:not(:empty)")
        assert page.inner_text(".sb-import-error").lower().startswith("line ")
        page.fill(".sb-import-text", script.read_text())
        page.click("[data-action=import-load]")
        page.wait_for_selector(".sb-import", state="detached")
        back = page.evaluate("selectoolsBuilder.getDocument()")
        assert shape(back) == shape(template)
        assert len(back["edges"]) == len(template["edges"])

        # Load Example: every node type; Export YAML downloads it
        page.click("[data-menu=file]")
        page.click("[data-action=example]")
        wait_js(page, "new Set(selectoolsBuilder.getDocument().nodes.map(n => n.type)).size === 8")
        page.click("[data-menu=export]")
        with page.expect_download() as download:
            page.click("[data-action=export-yaml]")
        assert "type: agent_tool" in Path(download.value.path()).read_text()
        save_screenshot(page, tmp_path, "builder-example.png")

        # ✨ AI with a model: the provider designs the workflow; the copilot edits it
        page.click("[data-action=ai]")
        page.fill(".sb-ai-text", "one agent")
        page.click("[data-action=generate]")
        wait_js(page, "selectoolsBuilder.getDocument().name === 'ai_made'")
        assert page.get_attribute(".sb-app", "data-generated-by") == "ai"
        page.click("[data-action=run-panel]")
        page.click("[data-run-tab=ai]")
        page.fill(".sb-copilot-text", "rename it")
        page.click("[data-run=copilot]")
        wait_js(page, "selectoolsBuilder.getDocument().name === 'ai_edited'")
        assert "Renamed the workflow." in page.inner_text(".sb-copilot-log")
        # without a session the page is the sign-in again (never serverless mode on a server)
        context.clear_cookies()
        page.reload()
        page.wait_for_url("**/login")
        assert errors == []
        context.close()

    # no key and no provider: the server says "fallback" and the page matches keywords
    for key in [k for k in os.environ if k.endswith("_API_KEY")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("SELECTOOLS_PROVIDER", "local")
    offline = create_builder_app(workdir=tmp_path)
    with serve_in_background(offline) as server:
        context = browser.new_context(viewport={"width": 1360, "height": 900})
        page = context.new_page()
        errors = sign_in(page, server, offline.state.auth_token)
        page.click("[data-action=ai]")
        page.fill(".sb-ai-text", "research a topic and write a report")
        page.click("[data-action=generate]")
        wait_js(page, "document.querySelector('.sb-app').dataset.generatedBy === 'keywords'")
        names = page.evaluate("selectoolsBuilder.getDocument().nodes.map(n => n.name)")
        assert "researcher" in names and "writer" in names
        assert errors == []
        context.close()


@tool
def shout(text: str) -> str:
    """Say it loudly."""
    return text.upper()


def test_runs_stream_from_the_server(browser, tmp_path):  # noqa: F811
    app = create_builder_app(provider=ScriptedProvider(respond, default=None), workdir=tmp_path)
    with serve_in_background(app) as server:
        context = browser.new_context(viewport={"width": 1360, "height": 900})
        page = context.new_page()
        errors = sign_in(page, server, app.state.auth_token)
        page.click("[data-menu=file]")
        page.click("[data-action=import]")
        page.fill(".sb-import-text", FLOW)
        page.click("[data-action=import-load]")
        page.wait_for_selector(".sb-import", state="detached")

        # a run streams: the tool call, then the Human Input question as buttons
        page.click("[data-action=run-panel]")
        page.fill(".sb-run-prompt", "two words")
        page.click("[data-run=start]")
        page.wait_for_selector(".sb-interrupt button[data-option=approve]", timeout=30_000)
        assert "🔧 count_text" in page.inner_text(".sb-output")
        page.click(".sb-interrupt button[data-option=approve]")
        page.wait_for_selector(".sb-output[data-state=done]", timeout=30_000)
        result = page.get_attribute(".sb-output", "data-result")
        assert result is not None and result.startswith("ship(")
        steps = page.locator(".sb-scrubber .sb-step")
        assert steps.count() == 3  # counter, gate, shipper

        # the scrubber highlights each step's node; the timeline has a bar per node with tokens and cost
        page.click('.sb-step[data-step="2"] .sb-step-go')
        assert "sb-highlight" in page.get_attribute('.sb-node[data-id="n3"]', "class")
        page.click("[data-run=timeline]")
        assert page.locator(".sb-bar-row").count() == 3
        page.hover(".sb-bar-row >> nth=0 >> .sb-bar")
        assert "tokens" in page.inner_text(".sb-timeline-info")
        page.locator('.sb-edge-hit[data-id="e3"]').dispatch_event("mouseover")
        assert "Last output" in page.inner_text(".sb-tooltip")

        # ▶ on the gate's step re-runs from its checkpoint: the question again, then reject → END
        page.click('.sb-step[data-step="1"] .sb-step-rerun')
        page.wait_for_selector(".sb-interrupt button[data-option=reject]", timeout=30_000)
        assert page.locator('.sb-step[data-step="0"]').count() == 0
        page.click(".sb-interrupt button[data-option=reject]")
        page.wait_for_selector(".sb-output[data-state=done]", timeout=30_000)

        # context menu: re-run the shipper alone; pin the counter; freeze it
        page.click('.sb-node[data-id="n3"]', button="right")
        page.click("[data-menu-action=isolate]")
        page.wait_for_selector(".sb-output[data-state=done]", timeout=30_000)
        assert page.locator(".sb-scrubber .sb-step").count() == 1
        page.click('.sb-node[data-id="n1"]', button="right")
        page.click("[data-menu-action=pin]")
        page.click('.sb-node[data-id="n1"]', button="right")
        page.click("[data-menu-action=freeze]")
        counter = page.evaluate("selectoolsBuilder.getDocument().nodes.find(n => n.id === 'n1')")
        assert counter["frozen"] is True and counter["pinned_output"]

        # history: three runs, searchable, replayable
        page.click("[data-run-tab=history]")
        assert page.locator(".sb-history-item").count() == 3
        page.fill(".sb-history-search", "isolated")
        assert page.locator(".sb-history-item").count() == 1
        page.fill(".sb-history-search", "")
        page.locator(".sb-history-open").last.click()
        assert page.locator(".sb-scrubber .sb-step").count() == 3

        # Load Trace: a real agent run's trace replays in the scrubber and the timeline
        agent = Agent(
            tools=[shout], provider=ScriptedProvider([tool_call("shout", text="hi"), "done"])
        )
        trace = trace_to_json(agent.run("hello").trace)
        page.click("[data-menu=export]")
        page.click("[data-action=trace]")
        page.fill(".sb-trace-text", trace)
        page.click("[data-action=trace-load]")
        page.wait_for_selector(".sb-trace", state="detached")
        assert page.locator(".sb-scrubber .sb-step").count() >= 1
        assert page.locator(".sb-timeline .sb-bar").count() >= 1
        save_screenshot(page, tmp_path, "builder-run.png")

        # the embed view: only the chat, answered by the server
        page.click("[data-menu=export]")
        page.click("[data-action=embed]")
        src = page.input_value(".sb-embed-snippet").split('"')[1]
        assert src.startswith(f"{server.url}/builder?embed=1&graph=")
        embed = context.new_page()
        embed.goto(src)
        embed.wait_for_selector(".sb-chat")
        assert embed.locator(".sb-header").count() == 0
        embed.fill(".sb-chat-input", "hi")
        embed.click(".sb-chat-send")
        embed.click(".sb-interrupt button[data-option=reject]", timeout=30_000)
        embed.wait_for_selector(".sb-msg.sb-bot[data-state=done]", timeout=30_000)
        embed.close()

        # Watch File: the canvas reloads when the .py file is saved
        doc = example()
        flow = tmp_path / "watched.py"
        flow.write_text(to_python(doc))
        page.keyboard.press("Escape")
        page.click("[data-menu=file]")
        page.click("[data-action=watch]")
        page.fill(".sb-watch-path", "watched.py")
        page.click("[data-action=watch-start]")
        wait_js(page, "document.querySelector('.sb-app').dataset.watchReloads === '1'")
        agents = [n for n in doc["nodes"] if n["type"] == "agent"]
        flow.write_text(to_python(doc).replace(agents[0]["name"], "renamed_agent"))
        wait_js(page, "document.querySelector('.sb-app').dataset.watchReloads === '2'")
        names = page.evaluate("selectoolsBuilder.getDocument().nodes.map(n => n.name)")
        assert "renamed_agent" in names
        page.click("[data-action=watch-stop]")
        assert page.inner_text(".sb-watch-status") == "Stopped."
        assert errors == []
        context.close()
