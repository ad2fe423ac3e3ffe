"""A hostile web page in a real Chromium against a served agent and the builder.

Chromium resolves ``evil.example`` to 127.0.0.1 (``--host-resolver-rules``), so a
page "on another site" is served from a second local server, and a DNS-rebinding
page reaches the agent's own port under the attacker's name. The page tries what a
real one can: simple cross-site POSTs (``text/plain``, a form), a same-origin call
after rebinding, and framing the playground.
"""

from __future__ import annotations

import http.server
import json
import shutil
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from selectools import Agent, tool
from selectools.serve import create_app
from selectools.serve._builder_app import create_builder_app
from selectools.serve.app import serve_in_background
from selectools.testing import ScriptedProvider, tool_call

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.browser, pytest.mark.slow]

CALLS: list[str] = []


@tool
def delete_files(path: str) -> str:
    """What a web page must never get to run."""
    CALLS.append(path)
    return f"deleted {path}"


def respond(request):  # type: ignore[no-untyped-def]
    last = request.last_message
    if last is not None and last.role.value == "tool":
        return "done"
    return tool_call("delete_files", path="~")


@pytest.fixture
def chromium() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.fail("needs Chromium (.ci/run installs it: apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-quic",
                "--host-resolver-rules=MAP evil.example 127.0.0.1",
            ],
        )  # fmt: skip
        try:
            yield browser
        finally:
            browser.close()


class Pages:
    """A plain HTTP server handing out the attacker's pages (``/name`` → HTML)."""

    def __init__(self) -> None:
        self.html: dict[str, str] = {}
        pages = self.html

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = pages.get(self.path, "not here").encode()
                self.send_response(200 if self.path in pages else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def attacker() -> Iterator[Pages]:
    pages = Pages()
    try:
        yield pages
    finally:
        pages.close()


@pytest.fixture
def agent_server() -> Iterator[Any]:
    CALLS.clear()
    app = create_app(Agent([delete_files], provider=ScriptedProvider(respond)))
    handle = app.serve(port=0, background=True)
    try:
        yield handle
    finally:
        handle.stop()


def test_a_page_on_another_site_cannot_run_the_agents_tools(chromium, attacker, agent_server):
    target = agent_server.url
    body = json.dumps({"prompt": "clean up"})
    attacker.html["/attack"] = f"""<!doctype html><body>
<form id="f" method="POST" action="{target}/invoke" enctype="text/plain" target="sink">
  <input name='{body[:-2]}' value='"}}'></form>
<iframe name="sink"></iframe>
<script>
window.results = [];
const tries = [
  fetch("{target}/invoke", {{method: "POST", mode: "no-cors",
    headers: {{"Content-Type": "text/plain"}}, body: {json.dumps(body)}}}),
  fetch("{target}/stream", {{method: "POST", mode: "no-cors",
    headers: {{"Content-Type": "application/x-www-form-urlencoded"}}, body: {json.dumps(body)}}}),
  fetch("{target}/invoke", {{method: "POST",
    headers: {{"Content-Type": "application/json"}}, body: {json.dumps(body)}}}),
];
Promise.allSettled(tries).then(r => {{
  document.getElementById("f").submit();
  window.done = r.map(x => x.status).join(",");
}});
</script></body>"""
    page = chromium.new_page()
    page.goto(f"http://evil.example:{attacker.port}/attack")
    page.wait_for_function("window.done !== undefined", timeout=20_000)
    page.wait_for_timeout(1500)  # the form post lands in the hidden frame
    # the JSON fetch needed a CORS preflight, which the server (CORS off) does not grant
    assert page.evaluate("window.done") == "fulfilled,fulfilled,rejected"
    assert CALLS == []


def test_dns_rebinding_gets_nothing(chromium, agent_server):
    port = agent_server.url.rsplit(":", 1)[1]
    page = chromium.new_page()
    response = page.goto(f"http://evil.example:{port}/playground")
    assert response is not None and response.status == 403
    assert "host_not_allowed" in page.content()
    status = page.evaluate(
        """async () => (await fetch("/invoke", {method: "POST",
            headers: {"Content-Type": "application/json"},
            body: JSON.stringify({prompt: "clean up"})})).status"""
    )
    assert status == 403
    assert CALLS == []


def frame_shows_the_playground(page: Any) -> bool:
    frame = page.frame(name="pg")
    if frame is None:
        return False
    try:
        frame.wait_for_selector("#prompt", timeout=5_000)
    except Exception:
        return False
    return True


def test_only_local_pages_may_frame_the_playground(chromium, attacker, agent_server):
    attacker.html["/frame"] = (
        f'<!doctype html><iframe name="pg" src="{agent_server.url}/playground"></iframe>'
    )
    page = chromium.new_page()
    page.goto(f"http://localhost:{attacker.port}/frame")  # a local Jupyter, say
    assert frame_shows_the_playground(page)
    page.goto(f"http://evil.example:{attacker.port}/frame")
    assert not frame_shows_the_playground(page)


def test_a_page_on_another_site_cannot_run_a_builder_workflow(chromium, attacker):
    provider = ScriptedProvider(default="ran")
    app = create_builder_app(provider=provider)
    with serve_in_background(app) as builder:
        page = chromium.new_page()
        page.goto(f"{builder.url}/?token={app.state.auth_token}")  # the user is signed in
        assert page.url == f"{builder.url}/builder"
        workflow = {
            "nodes": [
                {"id": "start", "type": "start"},
                {"id": "a1", "type": "agent", "name": "a1"},
                {"id": "end", "type": "end"},
            ],
            "edges": [{"from": "start", "to": "a1"}, {"from": "a1", "to": "end"}],
        }
        body = json.dumps({"workflow": workflow, "prompt": "spend"})
        attacker.html["/attack"] = f"""<!doctype html><script>
fetch("{builder.url}/builder/api/run", {{method: "POST", mode: "no-cors", credentials: "include",
  headers: {{"Content-Type": "text/plain"}}, body: {json.dumps(body)}}})
  .then(() => window.done = true, () => window.done = true);
</script>"""
        page.goto(f"http://evil.example:{attacker.port}/attack")
        page.wait_for_function("window.done === true", timeout=20_000)
        page.wait_for_timeout(500)
        assert provider.calls == 0
