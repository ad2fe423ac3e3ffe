"""%%agent in a real JupyterLab 4 + Chromium: the output streams, then renders tool cards that open."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

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


def _get(url: str) -> object:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab on loopback with isolated settings; yields (base url, token)."""
    if CHROMIUM is None:
        pytest.skip("needs Chromium (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api", reason="needs playwright (pip install playwright)")
    home = tmp_path_factory.mktemp("lab")
    dirs = {name: home / name for name in ("cfg", "data", "rt", "settings", "ws", "work")}
    settings = dirs["settings"] / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    for path in dirs.values():
        path.mkdir(exist_ok=True)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(notebook, dirs["work"] / "live.ipynb")
    token = secrets.token_hex(16)
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(dirs["cfg"]),
        JUPYTER_DATA_DIR=str(dirs["data"]),
        JUPYTER_RUNTIME_DIR=str(dirs["rt"]),
        JUPYTERLAB_SETTINGS_DIR=str(dirs["settings"]),
        JUPYTERLAB_WORKSPACES_DIR=str(dirs["ws"]),
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    )
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1",
        "--port=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={dirs['work']}",
        "--LabServerApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
    ]  # fmt: skip
    log = (home / "server.log").open("w")
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        base = None
        deadline = time.monotonic() + 60
        while base is None and time.monotonic() < deadline:
            for info in dirs["rt"].glob("jpserver-*.json"):
                base = json.loads(info.read_text())["url"].rstrip("/")
            time.sleep(0.2)
        assert base is not None, (home / "server.log").read_text()
        yield base, token
    finally:
        server.terminate()
        server.wait(timeout=20)
        log.close()


def _wait_for_idle_kernel(base: str, token: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        sessions = _get(f"{base}/api/sessions?token={token}")
        if sessions and all(s["kernel"]["execution_state"] == "idle" for s in sessions):
            return
        time.sleep(0.3)
    raise AssertionError("the kernel never became idle")


def test_agent_output_streams_then_renders_in_jupyterlab(lab, tmp_path):
    from playwright.sync_api import sync_playwright

    base, token = lab
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
            ],
        )  # fmt: skip
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.goto(f"{base}/lab/tree/live.ipynb?token={token}")
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
            _wait_for_idle_kernel(base, token)
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
            page.screenshot(path=str(tmp_path / "jupyterlab.png"))
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
            browser.close()
