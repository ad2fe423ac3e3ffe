"""``MCPServerConfig``: how to reach one MCP server and how hard to try.

Checked when built, so a typo (an unknown transport, a stdio config without a
command) fails where it was written rather than at the first tool call.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from urllib.parse import urlsplit

__all__ = ["TRANSPORTS", "MCPServerConfig"]

TRANSPORTS = ("stdio", "streamable-http")

_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]+")


def _clean(name: str) -> str:
    """A name usable as a tool-name prefix (providers accept ``[A-Za-z0-9_-]``)."""
    return _NAME_CHARS.sub("_", name).strip("_") or "mcp"


@dataclass
class MCPServerConfig:
    """One MCP server: a local subprocess (stdio) or a remote endpoint (streamable HTTP).

    ``name`` defaults to a readable name derived from the command's script
    (``math_server.py`` -> ``math_server``) or the URL's host. ``timeout``
    bounds the handshake and every call. A transport failure is retried up to
    ``max_retries`` times, waiting up to ``retry_backoff * 2**attempt`` seconds
    between tries (1 s, 2 s, 4 s with the default; each wait is jittered down by
    up to half so clients do not retry in lock-step), reconnecting first when
    ``auto_reconnect`` is on; a call already sent when the connection broke is
    only re-sent for tools the server marks read-only or idempotent, so a side
    effect is never repeated. After ``circuit_breaker_threshold`` failed calls
    in a row the circuit opens and calls fail at once for
    ``circuit_breaker_cooldown`` seconds; then one trial call decides whether it
    closes again. ``connect_timeout`` (default: ``timeout``) bounds starting the
    server and the handshake on its own, for servers that start slowly. ``env`` and ``cwd`` are passed to the stdio subprocess (the
    MCP SDK gives it only a minimal environment, so secrets are not inherited).
    """

    command: str | None = None
    args: list[str] = field(default_factory=list)
    url: str | None = None
    transport: str = "stdio"
    headers: dict[str, str] | None = None
    name: str = ""
    timeout: float = 30.0
    max_retries: int = 2
    retry_backoff: float = 1.0
    auto_reconnect: bool = True
    circuit_breaker_threshold: int = 3
    circuit_breaker_cooldown: float = 60.0
    screen_output: bool = True
    cache_tools: bool = True
    env: dict[str, str] | None = None
    cwd: str | None = None
    connect_timeout: float | None = None

    def __post_init__(self) -> None:
        if self.transport not in TRANSPORTS:
            raise ValueError(
                f"MCPServerConfig: transport must be one of {', '.join(TRANSPORTS)}, "
                f"got {self.transport!r}"
            )
        if self.url is not None and self.transport == "stdio" and self.command is None:
            raise ValueError(
                "MCPServerConfig: a url needs transport='streamable-http' "
                "(stdio starts a local command)"
            )
        if self.transport == "stdio":
            if not self.command:
                raise ValueError(
                    "MCPServerConfig: the stdio transport needs command= (e.g. command='python', "
                    "args=['server.py']), or pass url= with transport='streamable-http'"
                )
            if isinstance(self.args, str):
                raise ValueError("MCPServerConfig: args must be a list of strings, not one string")
        elif not self.url:
            raise ValueError("MCPServerConfig: the streamable-http transport needs url=")
        elif urlsplit(self.url).scheme not in ("http", "https"):
            raise ValueError(
                f"MCPServerConfig: url must start with http:// or https://, got {self.url!r}"
            )
        for label, value in (
            ("timeout", self.timeout),
            ("circuit_breaker_cooldown", self.circuit_breaker_cooldown),
        ):
            if not value > 0:
                raise ValueError(f"MCPServerConfig: {label} must be > 0, got {value!r}")
        if self.connect_timeout is not None and not self.connect_timeout > 0:
            raise ValueError(
                f"MCPServerConfig: connect_timeout must be > 0, got {self.connect_timeout!r}"
            )
        if self.max_retries < 0 or self.retry_backoff < 0:
            raise ValueError("MCPServerConfig: max_retries and retry_backoff must be >= 0")
        if self.circuit_breaker_threshold < 1:
            raise ValueError("MCPServerConfig: circuit_breaker_threshold must be >= 1")
        self.args = [str(arg) for arg in self.args]
        self.name = _clean(self.name) if self.name else self._default_name()

    def _default_name(self) -> str:
        if self.transport == "stdio":
            scripts = [a for a in self.args if not a.startswith("-")]
            base = scripts[0] if scripts else str(self.command)
            stem = os.path.splitext(os.path.basename(base.rstrip("/\\")))[0]
            return _clean(stem)
        return _clean(urlsplit(str(self.url)).hostname or "mcp")

    def describe(self) -> str:
        """``python server.py`` or the URL: what a message should show to identify the server."""
        if self.transport == "stdio":
            # this process's own interpreter (a notebook's bare ``python``) reads as ``python``:
            # its path differs on every machine and says nothing more
            program = "python" if self.command == sys.executable else str(self.command)
            return " ".join([program, *self.args])
        return str(self.url)
