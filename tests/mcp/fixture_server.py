"""MCP servers written with the official SDK, run as real subprocesses by the tests.

``python fixture_server.py [stdio|http PORT] STATE_DIR``. The tools leave traces in
STATE_DIR so a test can tell how often the server really ran them.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import Field

STATE = Path(sys.argv[-1])
server = MCPServer("fixture")


def _note(name: str) -> int:
    """Append one line to STATE/name and return how many lines it has now."""
    path = STATE / name
    with path.open("a") as handle:
        handle.write("x\n")
    return len(path.read_text().splitlines())


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    _note("add")
    return a + b


@server.tool()
def search(query: str) -> str:
    """Search the fixture's documents."""
    return f"results for {query} from pid {os.getpid()}"


@server.tool()
async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    _note("slow_started")
    try:
        await asyncio.sleep(seconds)
    except BaseException:  # the client cancelled the request (or gave up waiting)
        _note("slow_cancelled")
        raise
    _note("slow_finished")
    return "done"


@server.tool()
def lookup(code: Annotated[str, Field(pattern="(a|a)+$")]) -> str:
    """Look a code up; its schema's pattern backtracks catastrophically on "aaa…a!"."""
    _note("lookup")
    return f"found {code}"


@server.tool()
def boom(reason: str) -> str:
    """Always fails with the given reason."""
    raise ValueError(reason)


@server.tool()
def crash() -> str:
    """Kills the server process in the middle of the call."""
    _note("crash")
    os._exit(3)


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def flaky_read() -> str:
    """Read-only; the first call kills the server, later ones answer."""
    if _note("flaky_read") == 1:
        os._exit(4)
    return "read ok"


@server.tool()
def flaky_write() -> str:
    """Not idempotent; the first call kills the server, later ones answer."""
    if _note("flaky_write") == 1:
        os._exit(5)
    return "write ok"


if __name__ == "__main__":
    if sys.argv[1] == "http":
        import uvicorn

        app = server.streamable_http_app(host="127.0.0.1")
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
    else:
        server.run()
