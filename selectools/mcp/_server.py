"""``MCPServer``: serve selectools tools to any MCP client (Claude Desktop, IDEs, other agents).

Built on the SDK's low-level ``Server`` with our own list/call handlers, so
the schema a client sees is exactly the one the tool gives the LLM. A failed
call is answered with ``isError`` and a one-line reason instead of ending the
session: a bad argument says what was wrong, a crashing tool names its error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..exceptions import ToolExecutionError, ToolValidationError
from ..tools import ToolLike
from ..tools._registry import as_tool
from ._sdk import require_sdk

__all__ = ["MCPServer"]


class MCPServer:
    """Expose ``tools`` (``@tool`` functions, any ToolLike, plain functions) over MCP.

    ``serve(transport="stdio")`` speaks MCP on stdin/stdout (what Claude
    Desktop and IDEs launch); ``serve(transport="streamable-http", port=8080)``
    serves ``http://host:port/mcp``. ``streamable_http_app()`` returns the ASGI
    app to mount in your own server.
    """

    def __init__(
        self,
        tools: Iterable[ToolLike | Callable[..., Any]],
        name: str = "selectools",
        instructions: str | None = None,
    ) -> None:
        self.name = name
        self.instructions = instructions
        self.tools: dict[str, ToolLike] = {}
        for item in tools:
            made = as_tool(item, 1)
            if made.name in self.tools:
                raise ValueError(f"MCPServer: two tools are named '{made.name}'")
            self.tools[made.name] = made
        if not self.tools:
            raise ValueError("MCPServer needs at least one tool")

    def __repr__(self) -> str:
        return f"MCPServer(name={self.name!r}, tools={list(self.tools)!r})"

    # -- the SDK server ------------------------------------------------------------------
    def lowlevel_server(self) -> Any:
        """The SDK ``Server`` answering tools/list and tools/call with these tools."""
        require_sdk()
        from mcp.server.lowlevel import Server
        from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool

        from .._version import __version__

        listing = []
        schemas: dict[str, dict[str, Any]] = {}
        for made in self.tools.values():
            spec = made.schema()
            schemas[made.name] = spec["parameters"]
            listing.append(
                Tool(
                    name=made.name,
                    description=spec.get("description") or made.name,
                    input_schema=spec["parameters"],
                )
            )

        async def list_tools(ctx: Any, params: Any) -> Any:
            return ListToolsResult(tools=listing)

        async def call_tool(ctx: Any, params: Any) -> Any:
            def error(text: str) -> Any:
                return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)

            made = self.tools.get(params.name)
            if made is None:
                return error(f"Unknown tool '{params.name}'. Available: {', '.join(self.tools)}")
            try:
                text = await made.aexecute(params.arguments or {})
            except ToolValidationError as exc:
                suggestion = f" ({exc.suggestion})" if exc.suggestion else ""
                return error(f"Invalid arguments for '{made.name}': {exc.issue}{suggestion}")
            except ToolExecutionError as exc:
                return error(f"Tool '{made.name}' failed: {type(exc.error).__name__}: {exc.error}")
            return CallToolResult(content=[TextContent(type="text", text=text)])

        return Server(
            self.name,
            version=__version__,
            instructions=self.instructions,
            get_tool_input_schema=schemas.get,
            on_list_tools=list_tools,
            on_call_tool=call_tool,
        )

    def streamable_http_app(self, path: str = "/mcp", host: str = "127.0.0.1") -> Any:
        """A Starlette app serving MCP at ``path`` (DNS-rebinding protection on for loopback)."""
        return self.lowlevel_server().streamable_http_app(streamable_http_path=path, host=host)

    # -- running -----------------------------------------------------------------------
    async def serve_async(
        self,
        transport: str = "stdio",
        host: str = "127.0.0.1",
        port: int = 8080,
        path: str = "/mcp",
    ) -> None:
        if transport == "stdio":
            from mcp.server.stdio import stdio_server

            server = self.lowlevel_server()
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())
        elif transport == "streamable-http":
            import uvicorn

            app = self.streamable_http_app(path=path, host=host)
            config = uvicorn.Config(app, host=host, port=port, log_level="warning")
            await uvicorn.Server(config).serve()
        else:
            raise ValueError(
                f"MCPServer.serve: transport must be 'stdio' or 'streamable-http', got {transport!r}"
            )

    def serve(
        self,
        transport: str = "stdio",
        host: str = "127.0.0.1",
        port: int = 8080,
        path: str = "/mcp",
    ) -> None:
        """Serve until the client disconnects (stdio) or the process is stopped (HTTP)."""
        import anyio

        if transport not in ("stdio", "streamable-http"):
            raise ValueError(
                f"MCPServer.serve: transport must be 'stdio' or 'streamable-http', got {transport!r}"
            )
        anyio.run(lambda: self.serve_async(transport, host=host, port=port, path=path))
