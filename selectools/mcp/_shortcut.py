"""``mcp_tools(config)``: the tools of one server (or several) for a ``with`` block."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ._client import MCPClient
from ._config import MCPServerConfig
from ._multi import MultiMCPClient

if TYPE_CHECKING:
    from ._tool import MCPTool

__all__ = ["mcp_tools"]


class mcp_tools:
    """``with mcp_tools(config) as tools:`` — connect, yield the tool list, disconnect.

    Takes one :class:`MCPServerConfig` or a list of them (then the tools come
    from a :class:`MultiMCPClient`, prefixed with the server names). Works as
    ``async with`` too. ``client`` is the underlying client while open.
    """

    def __init__(
        self, config: MCPServerConfig | Iterable[MCPServerConfig], prefix_tools: bool = True
    ) -> None:
        self.client: MCPClient | MultiMCPClient
        if isinstance(config, MCPServerConfig):
            self.client = MCPClient(config)
        else:
            self.client = MultiMCPClient(config, prefix_tools=prefix_tools)

    def __enter__(self) -> list[MCPTool]:
        client = self.client
        if isinstance(client, MCPClient):
            client.connect()
            try:
                return client.list_tools_sync()
            except BaseException:
                client.close()
                raise
        client.connect()
        try:
            return client.list_all_tools_sync()
        except BaseException:
            client.close()
            raise

    def __exit__(self, *exc: object) -> None:
        self.client.close()

    async def __aenter__(self) -> list[MCPTool]:
        client = self.client
        await client.aconnect()
        try:
            if isinstance(client, MCPClient):
                return await client.list_tools()
            return await client.list_all_tools()
        except BaseException:
            await client.aclose()
            raise

    async def __aexit__(self, *exc: object) -> None:
        await self.client.aclose()
