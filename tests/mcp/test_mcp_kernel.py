"""A real Jupyter kernel: an MCP server attached with the magic does not outlive the kernel."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from mcp_support import ROOT, SERVERS

pytestmark = [pytest.mark.kernel, pytest.mark.slow]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _run(client, code: str) -> str:
    """Execute ``code`` in the kernel and return what it printed (fail on an error)."""
    out: list[str] = []

    def hook(msg: dict) -> None:
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            out.append("ERROR " + "\n".join(msg["content"]["traceback"]))

    reply = client.execute_interactive(code, output_hook=hook, timeout=120)
    text = "".join(out)
    assert reply["content"]["status"] == "ok", text
    return text


def test_the_server_stops_when_the_kernel_shuts_down(state: Path) -> None:
    from jupyter_client.manager import start_new_kernel

    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    manager, client = start_new_kernel(kernel_name="python3", env=env)
    try:
        _run(client, "%load_ext selectools")
        _run(client, f"%selectools mcp calc -- {sys.executable} {SERVERS} stdio {state}")
        printed = _run(
            client,
            'tools = get_ipython().magics_manager.registry["SelectoolsMagics"].state.tools\n'
            'print(tools["search"].execute({"query": "pid"}))',
        )
        pid = int(printed.strip().rsplit(" ", 1)[1])
        assert _alive(pid)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=False)  # a shutdown request, as Jupyter sends it
    deadline = time.monotonic() + 30
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid), "the MCP server outlived the kernel"
