"""``MultiMCPClient``: several MCP servers at once, one merged tool list.

Servers connect concurrently; one that fails to connect is reported in
``failed_servers`` (its error in ``errors``) while the others work. With
``prefix_tools`` each tool is named ``<server>_<tool>``, so two servers may
both have a ``search``; without it a duplicate name is a ``ValueError``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .._async_bridge import run_sync
from ._client import MCPClient
from ._config import MCPServerConfig
from ._errors import MCPConnectionError

if TYPE_CHECKING:
    from ._tool import MCPTool

__all__ = ["MultiMCPClient"]


class MultiMCPClient:
    """Several MCP servers as one tool source; each tool is prefixed with its server's name.

    Servers that fail to connect are listed in ``failed_servers`` instead of failing the rest.
    """

    def __init__(self, configs: Iterable[MCPServerConfig], prefix_tools: bool = True) -> None:
        self.configs = list(configs)
        if not self.configs:
            raise ValueError("MultiMCPClient needs at least one MCPServerConfig")
        seen: set[str] = set()
        for config in self.configs:
            if not isinstance(config, MCPServerConfig):
                raise TypeError(f"MultiMCPClient takes MCPServerConfig objects, got {config!r}")
            if config.name in seen:
                raise ValueError(
                    f"two MCP servers are named '{config.name}'; give each MCPServerConfig a "
                    "distinct name= (it prefixes the tool names)"
                )
            seen.add(config.name)
        self.prefix_tools = prefix_tools
        self.clients: dict[str, MCPClient] = {c.name: MCPClient(c) for c in self.configs}
        self.errors: dict[str, MCPConnectionError] = {}
        self._active: list[str] = []

    @property
    def active_servers(self) -> list[str]:
        """Names of the servers that connected."""
        return list(self._active)

    @property
    def failed_servers(self) -> list[str]:
        """Names of the servers that could not be connected (reasons in ``errors``)."""
        return list(self.errors)

    def __repr__(self) -> str:
        return f"MultiMCPClient(active={self._active!r}, failed={self.failed_servers!r})"

    async def aconnect(self) -> MultiMCPClient:
        names = list(self.clients)
        outcomes = await asyncio.gather(
            *(self.clients[name].aconnect() for name in names), return_exceptions=True
        )
        self._active, self.errors = [], {}
        for name, outcome in zip(names, outcomes, strict=True):
            if isinstance(outcome, MCPConnectionError):
                self.errors[name] = outcome
            elif isinstance(outcome, BaseException):
                await self.aclose()
                raise outcome
            else:
                self._active.append(name)
        if not self._active:
            details = "; ".join(str(e) for e in self.errors.values())
            raise MCPConnectionError(f"none of the MCP servers could be connected: {details}")
        return self

    async def aclose(self) -> None:
        await asyncio.gather(*(c.aclose() for c in self.clients.values()), return_exceptions=True)
        self._active = []

    async def list_all_tools(self) -> list[MCPTool]:
        """Every active server's tools (prefixed with the server name when ``prefix_tools``)."""
        lists = await asyncio.gather(*(self.clients[n].list_tools() for n in self._active))
        merged: list[MCPTool] = []
        owner: dict[str, str] = {}
        for name, tools in zip(self._active, lists, strict=True):
            for item in tools:
                made = item.prefixed(name) if self.prefix_tools else item
                if made.name in owner:
                    raise ValueError(
                        f"MCP servers '{owner[made.name]}' and '{name}' both have a tool named "
                        f"'{made.name}'; use MultiMCPClient(..., prefix_tools=True)"
                    )
                owner[made.name] = name
                merged.append(made)
        return merged

    def connect(self) -> MultiMCPClient:
        return run_sync(self.aconnect())

    def close(self) -> None:
        for client in self.clients.values():
            client.close()
        self._active = []

    def list_all_tools_sync(self) -> list[MCPTool]:
        return run_sync(self.list_all_tools())

    async def __aenter__(self) -> MultiMCPClient:
        return await self.aconnect()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __enter__(self) -> MultiMCPClient:
        return self.connect()

    def __exit__(self, *exc: object) -> None:
        self.close()
