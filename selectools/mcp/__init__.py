"""MCP (Model Context Protocol): use MCP servers' tools in agents, and serve selectools tools.

Built on the official ``mcp`` SDK (the ``mcp`` extra), which
is imported only when a connection is opened or a server is built.

- :class:`MCPServerConfig` — how to reach a server (stdio command or
  streamable-HTTP URL), timeouts, retries with backoff, the circuit breaker.
- :class:`MCPClient` — one server; ``with``/``async with``; ``list_tools()``.
- :func:`mcp_tools` — ``with mcp_tools(config) as tools:``.
- :class:`MultiMCPClient` — several servers, tool names prefixed by server.
- :class:`MCPServer` — expose ``@tool`` functions as an MCP server.
- :class:`MCPTool` — what the clients hand out: a :class:`~selectools.tools.Tool` for ``Agent(tools=...)``.
"""

from __future__ import annotations

from ._breaker import CircuitBreaker
from ._client import MCPClient
from ._config import MCPServerConfig
from ._errors import (
    MCPCircuitOpenError,
    MCPConnectionError,
    MCPError,
    MCPTimeoutError,
    MCPToolError,
)
from ._multi import MultiMCPClient
from ._server import MCPServer
from ._shortcut import mcp_tools
from ._tool import MCPTool

__all__ = [
    "CircuitBreaker",
    "MCPCircuitOpenError",
    "MCPClient",
    "MCPConnectionError",
    "MCPError",
    "MCPServer",
    "MCPServerConfig",
    "MCPTimeoutError",
    "MCPTool",
    "MCPToolError",
    "MultiMCPClient",
    "mcp_tools",
]
