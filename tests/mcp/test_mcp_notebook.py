"""``%selectools mcp``: attach a real MCP server in a notebook shell, use it from ``%%agent``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from mcp_support import SERVERS, count

from selectools.testing import ScriptedProvider, tool_call


def _attach(shell, state: Path, name: str = "calc") -> None:
    shell.run_line_magic("selectools", f"mcp {name} -- {sys.executable} {SERVERS} stdio {state}")


def _pid(shell) -> int:
    magics = shell.magics_manager.registry["SelectoolsMagics"]
    answer = magics.state.tools["search"].execute({"query": "pid"})
    return int(answer.rsplit(" ", 1)[1])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_attached_tools_show_as_cards_and_join_the_agent_cell(shell, state: Path) -> None:
    _attach(shell, state)
    cards = [o["data"]["text/plain"] for o in shell.outputs]
    assert "Tool add(a: int, b: int): Add two integers." in cards
    status = repr(shell.run_line_magic("selectools", ""))
    assert "MCP servers: calc" in status
    assert "add" in status.split("notebook tools:")[1]
    shell.user_ns["bot"] = ScriptedProvider([tool_call("add", a=40, b=2), "It is 42."])
    shell.run_line_magic("selectools", "provider=bot display=text")
    shell.run_cell_magic("agent", "-o result", "What is 40 + 2?")
    assert shell.user_ns["result"].content == "It is 42."
    assert count(state, "add") == 1


def test_detach_stops_the_server_and_removes_its_tools(shell, state: Path, capsys) -> None:
    _attach(shell, state)
    pid = _pid(shell)
    shell.run_line_magic("selectools", "mcp")
    assert "MCP server 'calc'" in capsys.readouterr().out
    shell.run_line_magic("selectools", "mcp calc --detach")
    magics = shell.magics_manager.registry["SelectoolsMagics"]
    assert "add" not in magics.state.tools
    assert not _alive(pid)
    with pytest.raises(UsageError, match="no MCP server named 'calc'"):
        shell.run_line_magic("selectools", "mcp calc --detach")


def test_unloading_the_extension_detaches_every_server(shell, state: Path) -> None:
    _attach(shell, state)
    pid = _pid(shell)
    shell.extension_manager.unload_extension("selectools")
    assert not _alive(pid)
    shell.extension_manager.load_extension("selectools")  # the fixture unloads it again


def test_a_name_taken_by_a_notebook_tool_gets_the_server_prefix(shell, state: Path) -> None:
    shell.run_cell_magic("tool", "", "def add(x: int) -> int:\n    'Local add.'\n    return x\n")
    _attach(shell, state)
    magics = shell.magics_manager.registry["SelectoolsMagics"]
    assert magics.state.tools["add"].description == "Local add."
    assert magics.state.tools["calc_add"].execute({"a": 1, "b": 2}) == "3"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("mcp calc --", "give the server command after '--'"),
        ("mcp calc --frobnicate", "cannot read"),
        ("mcp calc --url ftp://x", "must start with http"),
        ("mcp calc -- selectools-no-such-server", "could not connect to MCP server 'calc'"),
    ],
)
def test_bad_lines_are_one_line_usage_errors(shell, line: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        shell.run_line_magic("selectools", line)


def test_attach_over_streamable_http_and_reattach_replaces(shell, state: Path) -> None:
    from mcp_support import ServerThread

    from selectools import tool
    from selectools.mcp import MCPServer

    @tool(description="Greet someone")
    def greet(name: str) -> str:
        return f"hello {name}"

    with ServerThread(MCPServer([greet]).streamable_http_app()) as server:
        shell.run_line_magic("selectools", f"mcp web --url {server.url}")
        magics = shell.magics_manager.registry["SelectoolsMagics"]
        assert magics.state.tools["greet"].execute({"name": "Ada"}) == "hello Ada"
        first = magics.state.mcp["web"].client
        shell.run_line_magic("selectools", f"mcp web --url {server.url}")  # re-run the cell
        assert magics.state.mcp["web"].client is not first
        assert not first.connected
        assert list(magics.state.mcp) == ["web"]
        shell.run_line_magic("selectools", "mcp web --detach")
        assert "greet" not in magics.state.tools
        shell.run_line_magic("selectools", f"mcp my.web --url {server.url}")
        assert list(magics.state.mcp) == ["my_web"]  # usable as a tool-name prefix
        shell.run_line_magic("selectools", "mcp my.web --detach")
        assert not magics.state.mcp


@pytest.mark.parametrize("python", ["python", "python3"])
def test_a_bare_python_runs_the_server_with_the_kernels_interpreter(
    shell, state: Path, tmp_path: Path, monkeypatch, python: str
) -> None:
    """As ``%pip`` is the kernel's pip: the ``python`` first on PATH is another interpreter here."""
    decoy = tmp_path / "bin"
    decoy.mkdir()
    for name in ("python", "python3"):
        (decoy / name).write_text("#!/bin/sh\necho 'not the kernel python' >&2\nexit 3\n")
        (decoy / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{decoy}{os.pathsep}{os.environ['PATH']}")
    shell.run_line_magic("selectools", f"mcp calc -- {python} {SERVERS} stdio {state}")
    magics = shell.magics_manager.registry["SelectoolsMagics"]
    assert magics.state.tools["add"].execute({"a": 1, "b": 2}) == "3"
    config = magics.state.mcp["calc"].client.config
    assert config.command == sys.executable
    # messages name it as typed: the interpreter's path differs on every machine (and in saved outputs)
    assert config.describe() == f"python {SERVERS} stdio {state}"
