"""The MCP errors: all :class:`~selectools.exceptions.SelectoolsError` subclasses.

A failing MCP tool reaches the agent as a
:class:`~selectools.exceptions.ToolExecutionError` whose ``error`` is one of
these, so the model reads a one-line reason (the server died, the call timed
out, the circuit is open) and the run goes on. Messages are single paragraphs
for that reason: they end up inside a tool result.
"""

from __future__ import annotations

from typing import Any

from ..exceptions import SelectoolsError

__all__ = [
    "MCPCircuitOpenError",
    "MCPConnectionError",
    "MCPError",
    "MCPTimeoutError",
    "MCPToolError",
]


class MCPError(SelectoolsError):
    """Base class of the MCP errors; ``server`` names the server involved."""

    def __init__(self, message: str, server: str = "") -> None:
        super().__init__(message)
        self.server = server

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.server))


class MCPConnectionError(MCPError):
    """The server could not be reached, did not finish the handshake, or went away."""


class MCPCircuitOpenError(MCPConnectionError):
    """The server failed too often; calls fail at once until the cooldown has passed.

    ``retry_in`` is the number of seconds left before a trial call is allowed.
    """

    def __init__(self, message: str, server: str = "", retry_in: float = 0.0) -> None:
        super().__init__(message, server)
        self.retry_in = retry_in

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.server, self.retry_in))


class MCPToolError(MCPError):
    """A tool call failed: the server reported an error, or the tool is unknown there.

    ``tool`` is the tool's name on the server.
    """

    def __init__(self, message: str, server: str = "", tool: str = "") -> None:
        super().__init__(message, server)
        self.tool = tool

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.server, self.tool))


class MCPTimeoutError(MCPToolError):
    """A tool call got no answer within the configured ``timeout``."""
