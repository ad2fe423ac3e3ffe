"""The builder's front end in Chromium, served as plain files by ``python -m http.server`` (serverless mode).

Everything that lives in the browser is exercised here against no Python backend at all: the
eight node types and their ports, edges with conditions and the typed-port refusal, notes,
undo/redo and every shortcut, import/export of YAML, the keyword generator, mock runs streamed
into the run panel (tool calls, HITL buttons, scrubber, timeline, history), the embed view, and
the messages for what needs ``selectools serve --builder``. One page load per theme of checks.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from .test_playground import browser, save_screenshot  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
STATIC = Path(__file__).resolve().parents[2] / "selectools" / "serve" / "_static" / "builder"


@pytest.fixture(scope="module")
def static_site() -> Iterator[str]:
    """The builder folder served by the standard library's static file server."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=STATIC,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{url}/index.html", timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def open_builder(browser, url: str, **context):  # type: ignore[no-untyped-def]  # noqa: F811
    page = browser.new_page(viewport={"width": 1360, "height": 900}, **context)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{url}/index.html")
    page.wait_for_selector(".sb-app[data-mode=serverless]")
    page.evaluate("localStorage.clear()")  # a fresh canvas and history for each test
    page.reload()
    page.wait_for_selector(".sb-app[data-mode=serverless]")
    return page, errors


def doc(page):  # type: ignore[no-untyped-def]
    return page.evaluate("selectoolsBuilder.getDocument()")


def node_el(page, name: str):  # type: ignore[no-untyped-def]
    node = next(n for n in doc(page)["nodes"] if n.get("name") == name or n["id"] == name)
    return f'.sb-node[data-id="{node["id"]}"]'


def centre(page, selector: str) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    box = page.locator(selector).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + 12


def connect(page, a: str, out: str, b: str, inp: str) -> None:  # type: ignore[no-untyped-def]
    page.click(f'{node_el(page, a)} .sb-port.out[data-port="{out}"]')
    page.click(f'{node_el(page, b)} .sb-port.in[data-port="{inp}"]')


def test_nodes_edges_shortcuts_and_yaml_round_trip(browser, static_site, tmp_path):  # noqa: F811
    page, errors = open_builder(browser, static_site)
    banner = page.inner_text(".sb-banner")
    assert "selectools serve --builder" in banner
    # START and END on first load; the palette adds the six other types
    assert [n["type"] for n in doc(page)["nodes"]] == ["start", "end"]
    for kind in ("agent", "loop", "subgraph", "hitl", "agent_tool", "note"):
        page.click(f'.sb-palette [data-add="{kind}"]')
    kinds = {n["type"] for n in doc(page)["nodes"]}
    assert kinds == {"start", "end", "agent", "loop", "subgraph", "hitl", "agent_tool", "note"}
    colours = page.evaluate(
        "[...document.querySelectorAll('.sb-node')].map(e => getComputedStyle(e).borderTopColor)"
    )
    assert len(set(colours)) == 8  # one colour per node type
    page.click('.sb-palette [data-add="start"]')  # START is unique
    assert "one START" in page.inner_text(".sb-toasts")

    # ports per type: loop body/done, hitl one port per option, agent_tool a tool output
    loop = node_el(page, "loop1")
    assert page.locator(f"{loop} .sb-port.out").evaluate_all("e => e.map(p => p.dataset.port)") == [
        "body",
        "done",
    ]
    page.click(node_el(page, "hitl1"))
    page.fill("[data-field=options]", "approve\nreject\nlater")
    assert page.locator(f"{node_el(page, 'hitl1')} .sb-port.out.sb-p-option").count() == 3

    # edges: text into text; a text output greys out and refuses the agent's tool input
    connect(page, "start", "out", "agent1", "in")
    page.click(f'{node_el(page, "agent1")} .sb-port.out[data-port="out"]')
    assert "sb-incompatible" in page.get_attribute(
        f'{node_el(page, "agent1")} .sb-port.in[data-port="tools"]', "class"
    )
    assert "sb-compatible" in page.get_attribute(
        f'{node_el(page, "loop1")} .sb-port.in[data-port="in"]', "class"
    )
    page.click(f'{node_el(page, "agent1")} .sb-port.in[data-port="tools"]')
    assert "Refused: a text output cannot join a tool input" in page.inner_text(".sb-toasts")
    page.click(f'{node_el(page, "loop1")} .sb-port.in[data-port="in"]')
    connect(page, "tool1", "tool", "agent1", "tools")  # a tool joins a tools port
    assert next(n for n in doc(page)["nodes"] if n.get("name") == "agent1")["tools"] == ["tool1"]
    connect(page, "loop1", "done", "hitl1", "in")
    connect(page, "hitl1", "approve", "end", "in")  # an option joins a text input
    assert len(doc(page)["edges"]) == 5

    # click an edge: its condition label
    edge = next(e for e in doc(page)["edges"] if e["from_port"] == "done")
    page.locator(f'.sb-edge-hit[data-id="{edge["id"]}"]').dispatch_event("click")
    page.fill("[data-field=condition]", "approved")
    assert page.text_content(f'.sb-edge-label[data-id="{edge["id"]}"]') == "approved"
    page.locator(f'.sb-edge-hit[data-id="{edge["id"]}"]').dispatch_event("mouseover")
    assert "No output yet" in page.inner_text(".sb-tooltip")

    # a note: Markdown rendered as text (no markup from the user), collapsible, resizable
    page.click(node_el(page, "n6"))
    page.fill("[data-field=text]", '**bold** and <img src=x onerror="window.pwned=1"> text')
    note = '.sb-node[data-id="n6"]'
    assert page.inner_text(f"{note} .sb-note-body strong") == "bold"
    assert page.locator(f"{note} img").count() == 0
    assert "<img" in page.inner_text(f"{note} .sb-note-body")
    box = page.locator(f"{note} .sb-resize").bounding_box()
    width = page.locator(note).bounding_box()["width"]
    page.mouse.move(box["x"] + 5, box["y"] + 5)
    page.mouse.down()
    page.mouse.move(box["x"] + 85, box["y"] + 45, steps=4)
    page.mouse.up()
    assert page.locator(note).bounding_box()["width"] > width + 40
    page.click(f"{note} .sb-note-toggle")
    assert next(n for n in doc(page)["nodes"] if n["id"] == "n6")["collapsed"] is True
    page.click(f"{note} .sb-note-toggle")

    # a Subgraph node's graph is edited on the canvas too: in, build, back; one undo step
    page.click(node_el(page, "subgraph1"))
    page.fill("[data-field=graph]", "summary_flow")
    page.click("[data-action=open-subgraph]")
    assert "summary_flow" in page.inner_text(".sb-crumb")
    assert page.locator(".sb-node").count() == 2  # its own START and END
    page.click('.sb-palette [data-add="agent"]')
    inner = page.evaluate("selectoolsBuilder.app.doc.nodes.find(n => n.type === 'agent').id")
    page.click('.sb-node[data-id="start"] .sb-port.out')
    page.click(f'.sb-node[data-id="{inner}"] .sb-port.in[data-port="in"]')
    page.click(f'.sb-node[data-id="{inner}"] .sb-port.out')
    page.click('.sb-node[data-id="end"] .sb-port.in')
    assert len(doc(page)["subgraphs"]["summary_flow"]["edges"]) == 2  # the whole document, live
    page.click("[data-action=close-subgraph]")
    assert page.locator(".sb-crumb").is_hidden()
    assert len(doc(page)["nodes"]) == 8
    page.click(".sb-canvas", position={"x": 5, "y": 5})
    page.keyboard.press("Control+z")
    assert "summary_flow" not in doc(page)["subgraphs"]
    page.keyboard.press("Control+y")
    assert len(doc(page)["subgraphs"]["summary_flow"]["nodes"]) == 3

    # undo / redo, copy / paste, delete, Esc, Ctrl+K, zoom keys, Ctrl+0, ?
    count = len(doc(page)["nodes"])
    page.click(node_el(page, "agent1"))
    page.keyboard.press("Control+c")
    page.keyboard.press("Control+v")
    assert len(doc(page)["nodes"]) == count + 1
    assert any(n.get("name") == "agent2" for n in doc(page)["nodes"])
    page.keyboard.press("Control+z")
    assert len(doc(page)["nodes"]) == count
    page.keyboard.press("Control+y")
    assert len(doc(page)["nodes"]) == count + 1
    page.click(node_el(page, "agent2"))
    page.keyboard.press("Delete")
    assert not any(n.get("name") == "agent2" for n in doc(page)["nodes"])
    page.click(f"{node_el(page, 'agent1')} .sb-port.out")
    assert page.locator(".sb-canvas.sb-connecting").count() == 1
    page.keyboard.press("Escape")
    assert page.locator(".sb-canvas.sb-connecting").count() == 0
    page.keyboard.press("Control+k")
    page.fill(".sb-search-input", "hitl")
    page.keyboard.press("Enter")
    assert page.get_attribute(".sb-props-form", "data-node") == "n4"
    zoom = float(page.get_attribute(".sb-canvas", "data-zoom"))
    page.keyboard.press("+")
    assert float(page.get_attribute(".sb-canvas", "data-zoom")) > zoom
    page.keyboard.press("-")
    page.keyboard.press("-")
    assert float(page.get_attribute(".sb-canvas", "data-zoom")) < zoom
    canvas = page.locator(".sb-canvas").bounding_box()
    cx, cy = canvas["x"] + 100, canvas["y"] + 100
    under = f"selectoolsBuilder.app.toWorld({cx}, {cy})"
    page.mouse.move(cx, cy)
    before = page.evaluate(under)
    zoom = float(page.get_attribute(".sb-canvas", "data-zoom"))
    page.mouse.wheel(0, -300)  # zoom toward the cursor: the point under it stays put
    page.wait_for_function("1")  # let the wheel event land
    assert float(page.get_attribute(".sb-canvas", "data-zoom")) > zoom
    after = page.evaluate(under)
    assert abs(after["x"] - before["x"]) < 1 and abs(after["y"] - before["y"]) < 1
    transform = lambda: page.locator(".sb-viewport").evaluate("e => e.style.transform")  # noqa: E731
    moved = transform()
    page.mouse.down(button="middle")  # pan with the middle button
    page.mouse.move(cx + 100, cy + 80, steps=3)
    page.mouse.up(button="middle")
    assert transform() != moved
    moved = transform()
    page.keyboard.press("Control+0")
    page.keyboard.down("Space")  # and with Space + drag, even starting on a node (it does not move)
    page.mouse.move(*centre(page, node_el(page, "agent1")))
    nodes_before = doc(page)["nodes"]
    moved = transform()
    page.mouse.down()
    page.mouse.move(cx + 20, cy + 20, steps=3)
    page.mouse.up()
    page.keyboard.up("Space")
    assert transform() != moved
    assert doc(page)["nodes"] == nodes_before
    # a node type dragged from the palette lands where it is dropped
    count = len(doc(page)["nodes"])
    page.drag_and_drop(
        '.sb-palette [data-add="agent"]', ".sb-canvas", target_position={"x": 300, "y": 60}
    )
    assert len(doc(page)["nodes"]) == count + 1
    page.keyboard.press("Control+z")
    page.keyboard.press("Control+0")  # fit: every node inside the canvas
    inside = page.evaluate(
        """() => { const c = document.querySelector('.sb-canvas').getBoundingClientRect();
        return [...document.querySelectorAll('.sb-node')].every(n => { const r = n.getBoundingClientRect();
        return r.left >= c.left - 1 && r.right <= c.right + 1 && r.top >= c.top - 1 && r.bottom <= c.bottom + 1; }); }"""
    )
    assert inside
    page.click(".sb-canvas", position={"x": 5, "y": 5})
    page.keyboard.press("?")
    help_text = page.inner_text(".sb-help")
    for keys in (
        "Ctrl+Z",
        "Ctrl+Y",
        "Ctrl+C",
        "Ctrl+V",
        "Del / Backspace",
        "Esc",
        "Cmd+K",
        "+ / -",
        "Ctrl+0",
        "?",
        "Space + drag",
    ):
        assert keys in help_text, keys
    page.keyboard.press("Escape")
    assert page.locator(".sb-help").count() == 0

    # the code panel shows YAML live; Python needs the server and says so
    page.click("[data-action=toggle-code]")
    page.click("[data-code-tab=yaml]")
    page.wait_for_function(
        "document.querySelector('.sb-code-text').textContent.includes('approved')"
    )
    page.click("[data-code-tab=python]")
    assert "selectools serve --builder" in page.inner_text(".sb-code-text")
    save_screenshot(page, tmp_path, "builder-serverless-all-nodes.png")

    # export YAML (a download) and import it back: the same document
    saved = doc(page)
    page.click("[data-menu=export]")
    with page.expect_download() as download:
        page.click("[data-action=export-yaml]")
    yaml_file = tmp_path / "workflow.yaml"
    download.value.save_as(yaml_file)
    page.click("[data-menu=file]")
    page.click("[data-action=new]")
    assert len(doc(page)["nodes"]) == 2
    page.click("[data-menu=file]")
    page.click("[data-action=import]")
    page.fill(".sb-import-text", "nodes:\n  - id: a\n    type: agent\n   name: x\nedges: []\n")
    page.click("[data-action=import-load]")
    page.wait_for_selector(".sb-import-error:not(:empty)")
    assert page.inner_text(".sb-import-error").startswith("Line 4: YAML error")
    page.fill(".sb-import-text", "from selectools import AgentGraph\n")
    page.click("[data-action=import-load]")
    assert "selectools serve --builder" in page.inner_text(".sb-import-error")
    page.fill(".sb-import-text", yaml_file.read_text())
    page.click("[data-action=import-load]")
    assert doc(page) == saved
    page.keyboard.press("Control+z")  # the import is one undoable step
    assert len(doc(page)["nodes"]) == 2

    # what needs a server says so
    page.click("[data-menu=file]")
    page.click("[data-action=templates]")
    page.wait_for_selector(".sb-templates .sb-error")
    assert "selectools serve --builder" in page.inner_text(".sb-templates")
    page.keyboard.press("Escape")
    page.click("[data-menu=export]")
    page.click("[data-action=export-python]")
    page.wait_for_selector(".sb-toast.sb-error")
    assert "selectools serve --builder" in page.inner_text(".sb-toasts")
    # a hostile document: markup in names and text stays text, CSS values stay numbers
    hostile = {
        "nodes": [
            {"id": "start", "type": "start", "x": "1px;background:url(https://example.invalid/x)", "y": 0},
            {"id": "n1", "type": "agent", "name": "<img src=x onerror=window.pwned=2>", "x": 300, "y": 0},
            {"id": "n2", "type": "note", "text": "[click](javascript:window.pwned=3)", "width": "9;background-image:url(https://example.invalid/x);x:1", "height": 80},
            {"id": "end", "type": "end", "x": 600, "y": 0},
        ],
        "edges": [],
    }  # fmt: skip
    page.click("[data-menu=file]")
    page.click("[data-action=import]")
    page.fill(".sb-import-text", json.dumps(hostile))
    page.click("[data-action=import-load]")
    page.wait_for_selector(".sb-import", state="detached")
    assert page.locator(".sb-node img, .sb-props img").count() == 0
    assert page.locator('.sb-note-body a[href^="javascript"]').count() == 0
    styles = page.locator(".sb-node").evaluate_all("e => e.map(n => n.getAttribute('style'))")
    assert not any("url(" in s or "fixed" in s for s in styles)
    assert page.evaluate("window.pwned") is None
    assert errors == []


def test_generate_run_history_and_embed(browser, static_site, tmp_path):  # noqa: F811
    page, errors = open_builder(browser, static_site)
    # ✨ AI offline: keyword matching builds the workflow
    page.click("[data-action=ai]")
    page.fill(
        ".sb-ai-text",
        "Search the web, write a report, review it until approved, then ask a human to approve",
    )
    page.click("[data-action=generate]")
    assert page.get_attribute(".sb-app", "data-generated-by") == "keywords"
    workflow = doc(page)
    names = [n.get("name") for n in workflow["nodes"]]
    assert {"searcher", "writer", "reviewer", "review_loop", "approval"} <= set(names)

    # a mock run streams into Output: tool calls, the HITL question as buttons, the result
    page.click("[data-action=run-panel]")
    page.fill(".sb-run-prompt", "quantum batteries")
    page.click("[data-run=start]")
    page.wait_for_selector(".sb-interrupt button[data-option=approve]", timeout=20_000)
    output = page.inner_text(".sb-output")
    assert "🔧 selectools.toolbox.web_tools.web_search" in output
    assert "[searcher] mock reply to: quantum batteries" in output
    page.click(".sb-interrupt button[data-option=approve]")
    page.wait_for_selector(".sb-output[data-state=done]", timeout=20_000)
    assert page.get_attribute(".sb-output", "data-result").startswith("[reviewer] mock reply")

    # scrubber: one step per node run (the loop runs its 3 passes), a click highlights the node
    steps = page.locator(".sb-scrubber .sb-step")
    assert steps.count() == 1 + 3 * 3 + 1  # searcher, (writer, reviewer, loop) x3, approval
    page.click('.sb-step[data-step="0"] .sb-step-go')
    searcher = node_el(page, "searcher")
    assert "sb-highlight" in page.get_attribute(searcher, "class")

    # timeline: one row per node, a bar per run, tokens and cost on hover
    page.click("[data-run=timeline]")
    assert page.locator(".sb-bar-row").count() == 5
    page.hover(".sb-bar-row >> nth=0 >> .sb-bar")
    assert "tokens" in page.inner_text(".sb-timeline-info") and "$" in page.inner_text(
        ".sb-timeline-info"
    )

    # hovering an edge shows the output that last went along it
    first_edge = next(e for e in doc(page)["edges"] if e["from"] == "start")
    second = next(e for e in doc(page)["edges"] if e["from"] == first_edge["to"])
    page.locator(f'.sb-edge-hit[data-id="{second["id"]}"]').dispatch_event("mouseover")
    assert "[searcher] mock reply" in page.inner_text(".sb-tooltip")

    # ▶ on a step re-runs from it: the new run starts at that step
    page.click('.sb-step[data-step="4"] .sb-step-rerun')
    page.wait_for_selector(".sb-interrupt button[data-option=reject]", timeout=20_000)
    assert page.locator('.sb-step[data-step="0"]').count() == 0
    page.click(".sb-interrupt button[data-option=reject]")
    page.wait_for_selector(".sb-output[data-state=done]", timeout=20_000)

    # the context menu: pin, freeze, re-run in isolation
    page.click(searcher, button="right")
    page.click("[data-menu-action=pin]")
    pinned = next(n for n in doc(page)["nodes"] if n.get("name") == "searcher")
    assert pinned["pinned_output"].startswith("[searcher] mock reply")
    assert "📌" in page.inner_text(searcher)
    page.click(searcher, button="right")
    page.click("[data-menu-action=freeze]")
    assert "sb-frozen" in page.get_attribute(searcher, "class")
    page.click(node_el(page, "writer"), button="right")
    page.click("[data-menu-action=isolate]")
    page.wait_for_selector(".sb-output[data-state=done]", timeout=20_000)
    assert page.locator(".sb-scrubber .sb-step").count() == 1

    # history: every run, searchable, replayable, JSONL, kept across a reload
    page.click("[data-run-tab=history]")
    assert page.locator(".sb-history-item").count() == 3
    page.fill(".sb-history-search", "isolated")
    assert page.locator(".sb-history-item").count() == 1
    page.fill(".sb-history-search", "")
    with page.expect_download() as download:
        page.click("[data-run=export-history]")
    lines = Path(download.value.path()).read_text().splitlines()
    workflow_now = doc(page)
    assert len(lines) == 3 and json.loads(lines[-1])["prompt"] == "quantum batteries"
    page.reload()
    page.wait_for_selector(".sb-app[data-mode=serverless]")
    assert doc(page) == workflow_now  # the canvas is saved across a reload too
    page.click("[data-action=run-panel]")
    page.click("[data-run-tab=history]")
    assert page.locator(".sb-history-item").count() == 3
    page.locator(".sb-history-open").last.click()  # the first run, replayed
    assert page.locator(".sb-scrubber .sb-step").count() == 11
    save_screenshot(page, tmp_path, "builder-serverless-run.png")

    # a Human Input node with a timeout answers itself with its default option
    page.click(node_el(page, "approval"))
    page.fill("[data-field=timeout_s]", "1")
    page.click("[data-run=start]")
    page.wait_for_selector(".sb-output[data-state=done]", timeout=30_000)
    assert page.get_attribute(".sb-interrupt", "data-answer") == "approve"
    assert page.locator(".sb-interrupt button:enabled").count() == 0

    # Export → Embed Widget: an iframe snippet whose page is only the chat
    page.click("[data-menu=export]")
    page.click("[data-action=embed]")
    snippet = page.input_value(".sb-embed-snippet")
    assert snippet.startswith('<iframe src="') and "embed=1&graph=" in snippet
    src = snippet.split('"')[1]
    embed = browser.new_page(viewport={"width": 400, "height": 600})
    embed.goto(src)
    embed.wait_for_selector(".sb-chat")
    assert embed.locator(".sb-header").count() == 0
    embed.fill(".sb-chat-input", "hello")
    embed.click(".sb-chat-send")
    embed.click(".sb-interrupt button[data-option=approve]", timeout=20_000)  # the HITL question
    embed.wait_for_selector(".sb-msg.sb-bot[data-state=done]", timeout=20_000)
    answer = embed.inner_text(".sb-msg.sb-bot[data-state=done]")
    assert answer.startswith("[reviewer] mock reply")  # streamed by the mock run
    embed.close()
    assert errors == []


def test_dark_theme_and_copilot_message(browser, static_site, tmp_path):  # noqa: F811
    light, _ = open_builder(browser, static_site)
    dark, errors = open_builder(browser, static_site, color_scheme="dark")
    background = "getComputedStyle(document.querySelector('.sb-canvas')).backgroundColor"
    assert light.evaluate(background) != dark.evaluate(background)
    dark.click("[data-action=run-panel]")
    dark.click("[data-run-tab=ai]")
    dark.fill(".sb-copilot-text", "Add a step that summarizes the output")
    dark.click("[data-run=copilot]")
    dark.wait_for_selector(".sb-copilot-log .sb-error")
    assert "selectools serve --builder" in dark.inner_text(".sb-copilot-log")
    # a Subgraph node's mock run walks its graph
    nested = {
        "name": "outer",
        "nodes": [
            {"id": "start", "type": "start"}, {"id": "s", "type": "subgraph", "name": "sub", "graph": "inner"},
            {"id": "end", "type": "end"},
        ],
        "edges": [
            {"from": "start", "from_port": "out", "to": "s", "to_port": "in"},
            {"from": "s", "from_port": "out", "to": "end", "to_port": "in"},
        ],
        "subgraphs": {"inner": {
            "name": "inner",
            "nodes": [{"id": "start", "type": "start"}, {"id": "a", "type": "agent", "name": "helper"}, {"id": "end", "type": "end"}],
            "edges": [
                {"from": "start", "from_port": "out", "to": "a", "to_port": "in"},
                {"from": "a", "from_port": "out", "to": "end", "to_port": "in"},
            ],
        }},
    }  # fmt: skip
    dark.click("[data-menu=file]")
    dark.click("[data-action=import]")
    dark.fill(".sb-import-text", json.dumps(nested))
    dark.click("[data-action=import-load]")
    dark.fill(".sb-run-prompt", "deep")
    dark.click("[data-run=start]")
    dark.wait_for_selector(".sb-output[data-state=done]", timeout=20_000)
    assert dark.get_attribute(".sb-output", "data-result") == "[helper] mock reply to: deep"

    # Stop ends a run (here while it waits at the Human Input question)
    dark.click("[data-action=ai]")
    dark.fill(".sb-ai-text", "ask a human to approve")
    dark.click("[data-action=generate]")
    dark.fill(".sb-run-prompt", "hi")
    dark.click("[data-run=start]")
    dark.wait_for_selector(".sb-interrupt button[data-option=approve]", timeout=20_000)
    dark.click("[data-run=stop]")
    dark.wait_for_selector(".sb-output[data-state=error]", timeout=20_000)
    assert "the run was stopped" in dark.inner_text(".sb-output")
    dark.click("[data-menu=file]")
    dark.click("[data-action=watch]")
    dark.fill(".sb-watch-path", "flow.py")
    dark.click("[data-action=watch-start]")
    dark.wait_for_function(
        "document.querySelector('.sb-watch-status').textContent.includes('serve --builder')"
    )
    save_screenshot(dark, tmp_path, "builder-serverless-dark.png")
    # the run history stays bounded in runs and in bytes, newest first
    kept = dark.evaluate(
        """async () => { const h = await import("./history.js");
        for (let i = 0; i < 60; i++) h.saveRun({ id: `r${i}`, prompt: "small" });
        const byCount = h.loadHistory().length;
        for (let i = 60; i < 65; i++) h.saveRun({ id: `r${i}`, prompt: "".padEnd(400000, ".") });
        return [byCount, h.loadHistory().map(r => r.id), localStorage.getItem("selectools.builder.history.v1").length]; }"""
    )
    assert kept[0] == 50  # at most 50 runs
    assert kept[1][0] == "r64" and len(kept[1]) < 50 and kept[2] <= 1_500_000  # and 1.5 MB
    light.close()
    dark.close()
    assert errors == []
