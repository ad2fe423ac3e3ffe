"""The playground in a real Chromium (Playwright): a message goes out, the streamed answer renders.

Screenshots go to the test's tmp dir and, when ``SELECTOOLS_ARTIFACTS`` is set, to that
directory too (CI keeps them).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from selectools import Agent, tool
from selectools.serve import create_app
from selectools.testing import ScriptedProvider, reply, tool_call

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.browser, pytest.mark.slow]

ANSWER = "The laptop costs 999 dollars and ships tomorrow from Lyon."


@tool
def get_price(product: str) -> str:
    """Look up a product's price."""
    return "$999"


def save_screenshot(page, tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=True)
    artifacts = os.environ.get("SELECTOOLS_ARTIFACTS")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(artifacts) / name)
    return path


@pytest.fixture
def browser():
    if CHROMIUM is None:
        pytest.skip("needs Chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
            ],
        )  # fmt: skip
        try:
            yield chromium
        finally:
            chromium.close()


def scripted() -> ScriptedProvider:
    return ScriptedProvider(
        [
            tool_call("get_price", product="laptop"),
            reply(ANSWER, chunk_latency=0.05),
            reply("You asked twice.", chunk_latency=0.01),
        ]
    )


def test_playground_streams_an_answer_with_its_tool_call(browser, tmp_path):
    provider = scripted()
    with create_app(Agent([get_price], provider=provider)).serve(port=0, background=True) as server:
        page = browser.new_page(
            viewport={"width": 1000, "height": 700}, bypass_csp=True
        )  # lets wait_for_function eval under our CSP
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.goto(f"{server.url}/playground")
        page.wait_for_function(
            "document.getElementById('agent-info').textContent.includes('tools')"
        )
        assert "provider scripted" in page.inner_text("#agent-info")
        page.fill("#prompt", "What does a laptop cost?")
        page.press("#prompt", "Enter")
        answer = page.locator(".msg.assistant").first
        # while streaming, the text grows chunk by chunk
        page.wait_for_function(
            "(() => { const t = document.querySelector('.msg.assistant .text');"
            " return t && t.textContent.length > 0; })()"
        )
        partial = answer.locator(".text").inner_text()
        page.wait_for_selector(".msg.assistant[data-state=done]", timeout=20_000)
        assert partial != ANSWER and ANSWER.startswith(partial.strip())
        assert answer.locator(".text").inner_text() == ANSWER
        assert answer.locator(".tool").inner_text() == '⚙ get_price({"product":"laptop"})'
        assert "iteration(s)" in answer.locator(".meta").inner_text()
        assert page.locator(".msg.user").inner_text() == "What does a laptop cost?"
        save_screenshot(page, tmp_path, "playground.png")
        # the conversation continues in the same session: the model sees the history
        page.fill("#prompt", "And again?")
        page.press("#prompt", "Enter")
        page.wait_for_function(
            "document.querySelectorAll('.msg.assistant[data-state=done]').length == 2"
        )
        assert page.locator(".msg.assistant .text").nth(1).inner_text() == "You asked twice."
        assert (
            len(provider.requests[-1].messages) == 5
        )  # 2 user turns, tool call, tool result, answer
        assert errors == []


def test_playground_asks_for_the_token(browser, tmp_path):
    agent = Agent(provider=ScriptedProvider(default=reply("Authorized answer.")))
    with create_app(agent, auth_token="t0ken").serve(port=0, background=True) as server:
        page = browser.new_page(
            viewport={"width": 1000, "height": 600}, bypass_csp=True
        )  # lets wait_for_function eval under our CSP
        page.goto(f"{server.url}/playground")
        page.wait_for_selector("#token-bar:not([hidden])")
        page.fill("#prompt", "hi")
        page.press("#prompt", "Enter")
        page.wait_for_selector(".msg.error")
        assert page.locator(".msg.error").inner_text().startswith("401: this server needs a token")
        page.fill("#token", "t0ken")
        page.click("#token-save")
        page.wait_for_function(
            "document.getElementById('agent-info').textContent.includes('model')"
        )
        page.fill("#prompt", "hi again")
        page.press("#prompt", "Enter")
        page.wait_for_selector(".msg.assistant[data-state=done]", timeout=20_000)
        assert page.locator(".msg.assistant .text").inner_text() == "Authorized answer."
        save_screenshot(page, tmp_path, "playground-token.png")
