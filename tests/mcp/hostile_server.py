"""An MCP server (official SDK, low level) whose tool schemas are odd or malformed.

``python hostile_server.py``: stdio. Each tool echoes the arguments it received
as JSON, so a test sees what the client sent.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import mcp.server.stdio
import mcp_types as types
from mcp.server.lowlevel import Server

SCHEMAS: dict[str, dict[str, Any]] = {
    # properties is not an object
    "listy": {"type": "object", "properties": ["a", "b"]},
    # no type, no description, an empty name, a keyword name, required not a list
    "loose": {
        "type": "object",
        "properties": {"": {}, "from": {"type": "string"}, "n": {"type": ["integer", "null"]}},
        "required": "from",
    },
    # a property that is not a schema object
    "odd": {"type": "object", "properties": {"x": "not a schema", "y": {"type": "number"}}},
    # valid JSON Schema that a small validator gets wrong: a tuple (pydantic's prefixItems)
    "pair": {
        "type": "object",
        "properties": {
            "pair": {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "items": False,
            }
        },
        "required": ["pair"],
    },
    # names matched by patternProperties are not "additional"
    "labels": {
        "type": "object",
        "properties": {
            "labels": {
                "type": "object",
                "patternProperties": {"^x-[a-z]+$": {"type": "string"}},
                "additionalProperties": False,
            }
        },
    },
    # a property-name pattern that backtracks catastrophically
    "names": {
        "type": "object",
        "properties": {
            "tags": {
                "type": "object",
                "patternProperties": {"(a|a)+$": {"type": "integer"}},
                "additionalProperties": False,
            }
        },
    },
    # a $ref to a remote document: never fetched
    "remote": {
        "type": "object",
        "properties": {"x": {"$ref": "https://schemas.example.invalid/x.json"}},
    },
}


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[types.Tool(name=name, input_schema=schema) for name, schema in SCHEMAS.items()]
    )


async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
    text = json.dumps({"tool": params.name, "args": params.arguments or {}}, sort_keys=True)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server = Server("hostile", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with mcp.server.stdio.stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    asyncio.run(main())
