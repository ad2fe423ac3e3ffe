"""A Jupyter server (JupyterLab 4 or Notebook 7) on 127.0.0.1 with a token, and headless Chromium."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


class Server:
    """A running Jupyter server: ``url(path)``, its work folder, and notebook writing."""

    def __init__(self, base: str, token: str, work: Path) -> None:
        self.base, self.token, self.work = base, token, work

    def url(self, path: str) -> str:
        glue = "&" if "?" in path else "?"
        return f"{self.base}/{path.lstrip('/')}{glue}token={self.token}"

    def api(self, path: str) -> Any:
        with urllib.request.urlopen(self.url(path), timeout=5) as response:
            return json.loads(response.read())

    def write_notebook(self, name: str, cells: list[str]) -> None:
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
        notebook.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
        nbformat.write(notebook, self.work / name)

    def wait_for_idle_kernel(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            sessions = self.api("api/sessions")
            if sessions and all(s["kernel"]["execution_state"] == "idle" for s in sessions):
                return
            time.sleep(0.3)
        raise AssertionError("the kernel never became idle")

    def stop_kernels(self) -> None:
        for session in self.api("api/sessions"):
            request = urllib.request.Request(
                self.url(f"api/sessions/{session['id']}"), method="DELETE"
            )
            urllib.request.urlopen(request, timeout=10).close()


def _serve(home: Path, app: str, theme: str | None = None) -> Iterator[Server]:
    """``app`` (jupyterlab or notebook) in ``home``; ``theme`` e.g. "JupyterLab Dark"."""
    if CHROMIUM is None:
        pytest.fail("needs Chromium (.ci/run installs it: apt-get install chromium)")
    dirs = {name: home / name for name in ("cfg", "data", "rt", "settings", "ws", "work")}
    settings = dirs["settings"] / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    if theme is not None:  # Lab and Notebook 7 read the same theme setting
        (settings / "themes.jupyterlab-settings").write_text(json.dumps({"theme": theme}))
    for path in dirs.values():
        path.mkdir(exist_ok=True)
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
        sys.executable, "-m", app, "--no-browser", "--allow-root", "--ip=127.0.0.1",
        "--port=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={dirs['work']}",
        "--LabServerApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]  # fmt: skip
    if app == "jupyterlab":
        command.append("--LabApp.extension_manager=readonly")
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
        yield Server(base, token, dirs["work"])
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:  # a loaded machine: never leave the server behind
            server.kill()
            server.wait(timeout=20)
        log.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from _serve(tmp_path_factory.mktemp("lab"), "jupyterlab")


@pytest.fixture(scope="module")
def notebook7(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    from importlib.metadata import version

    assert int(version("notebook").split(".")[0]) >= 7, "the dev extra installs Notebook 7"
    yield from _serve(tmp_path_factory.mktemp("nb7"), "notebook")


@pytest.fixture(scope="module")
def lab_dark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """JupyterLab in its dark theme."""
    yield from _serve(tmp_path_factory.mktemp("lab-dark"), "jupyterlab", "JupyterLab Dark")


@pytest.fixture(scope="module")
def notebook7_dark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Notebook 7 in the dark theme."""
    yield from _serve(tmp_path_factory.mktemp("nb7-dark"), "notebook", "JupyterLab Dark")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the screenshots go, one folder for the run (printed, so CI can collect them)."""
    folder = Path(os.environ.get("SELECTOOLS_SCREENSHOTS") or tmp_path_factory.mktemp("shots"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {folder}")
    return folder
