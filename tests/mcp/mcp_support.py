"""Helpers and fixtures: real MCP servers (stdio subprocesses, streamable HTTP on loopback).

No ``__init__.py`` here on purpose: a ``tests.mcp`` package would shadow the SDK's
``mcp`` once ``tests/`` is on ``sys.path``. Test modules import helpers from
``mcp_support`` (a unique name), which this conftest re-exports as fixtures.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from selectools.mcp import MCPServerConfig

SERVERS = Path(__file__).with_name("fixture_server.py")
ROOT = Path(__file__).resolve().parents[2]


def child_env() -> dict[str, str]:
    """What a server subprocess needs to import this checkout of selectools."""
    return {"PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


@pytest.fixture
def state(tmp_path: Path) -> Path:
    path = tmp_path / "state"
    path.mkdir()
    return path


def count(state: Path, name: str) -> int:
    path = state / name
    return len(path.read_text().splitlines()) if path.exists() else 0


@pytest.fixture
def stdio_config(state: Path) -> Callable[..., MCPServerConfig]:
    def make(**options: Any) -> MCPServerConfig:
        options.setdefault("timeout", 10.0)
        options.setdefault("connect_timeout", 60.0)  # a loaded CI machine starts Python slowly
        options.setdefault("retry_backoff", 0.01)
        return MCPServerConfig(
            command=sys.executable, args=[str(SERVERS), "stdio", str(state)], **options
        )

    return make


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server exited early with code {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


@pytest.fixture
def http_server(state: Path) -> Iterator[Callable[[], str]]:
    """Start the fixture server over streamable HTTP in a subprocess; returns its URL."""
    processes: list[subprocess.Popen[bytes]] = []

    def start() -> str:
        port = free_port()
        process = subprocess.Popen(
            [sys.executable, str(SERVERS), "http", str(port), str(state)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        processes.append(process)
        wait_for_port(port, process)
        return f"http://127.0.0.1:{port}/mcp"

    yield start
    for process in processes:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()


class ServerThread:
    """An ASGI app served by uvicorn on a free loopback port in this process."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.port = free_port()
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ServerThread:
        self.thread.start()
        wait_for_port(self.port)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(15)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


@pytest.fixture
def shell(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """An in-process IPython shell with ``%load_ext selectools``; rich output in ``outputs``."""
    from IPython.core.displaypub import CapturingDisplayPublisher
    from IPython.core.interactiveshell import InteractiveShell

    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    ip = InteractiveShell.instance()
    ip.reset(new_session=False)
    publisher = CapturingDisplayPublisher()
    monkeypatch.setattr(ip, "display_pub", publisher)
    ip.extension_manager.load_extension("selectools")
    ip.outputs = publisher.outputs
    yield ip
    ip.extension_manager.unload_extension("selectools")
    ip.reset(new_session=False)
