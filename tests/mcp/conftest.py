"""Fixtures for the MCP tests; the helpers live in ``mcp_support`` (see its docstring)."""

from __future__ import annotations

from mcp_support import http_server, shell, state, stdio_config

__all__ = ["http_server", "shell", "state", "stdio_config"]
