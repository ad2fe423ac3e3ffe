"""The MCP page: "MCP tools are regular selectools ``Tool`` objects" — against a real server.

Code written to that sentence (a filter on ``isinstance(t, Tool)``, a helper
that reads ``tool.parameters`` or calls ``tool.function``) must treat the
tools of ``mcp_tools()`` and ``MultiMCPClient`` like ``@tool`` functions.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from selectools import Agent, AgentConfig, Tool, ToolPolicy
from selectools.mcp import MCPServerConfig, MultiMCPClient, mcp_tools
from selectools.testing import ScriptedProvider, tool_call


def _only_tools(items: list[object]) -> list[Tool]:
    """A filter as a user writes it from the TOOLS and MCP pages."""
    return [t for t in items if isinstance(t, Tool)]


def test_mcp_tools_are_tool_objects(stdio_config) -> None:
    with mcp_tools(stdio_config()) as tools:
        assert tools
        assert _only_tools(list(tools)) == list(tools)
        add = next(t for t in tools if t.name == "add")
        assert [(p.name, p.required) for p in add.parameters] == [("a", True), ("b", True)]
        assert add.description == "Add two integers."
        assert add.function(a=2, b=3) == "5"
        assert add.execute({"a": 2, "b": 40}) == "42"
        assert (add.terminal, add.requires_approval, add.streaming) == (False, False, False)

        denied = ScriptedProvider([tool_call("add", a=1, b=2), "refused"])
        config = AgentConfig(tool_policy=ToolPolicy(deny=["add"]))
        result = Agent(tools=_only_tools(list(tools)), provider=denied, config=config).run("1+2")
        assert result.content == "refused"
        assert denied.requests[1].messages[-1].content != "3"

        allowed = ScriptedProvider([tool_call("add", a=1, b=2), "three"])
        Agent(tools=_only_tools(list(tools)), provider=allowed).run("1+2")
        assert allowed.requests[1].messages[-1].content == "3"


def test_prefixed_tools_of_several_servers_are_tool_objects(stdio_config) -> None:
    configs = [stdio_config(name="left"), stdio_config(name="right")]
    with MultiMCPClient(configs) as client:
        tools = client.list_all_tools_sync()
        assert _only_tools(list(tools)) == tools
        right_add = next(t for t in tools if t.name == "right_add")
        assert right_add.__name__ == "right_add"
        assert right_add.schema()["name"] == "right_add"
        assert right_add.function(a=20, b=22) == "42"


HOSTILE = Path(__file__).with_name("hostile_server.py")


def test_odd_schemas_of_a_server_still_make_usable_tools() -> None:
    """A server's malformed schemas (properties not an object, required not a list,
    a property that is not a schema) give Tools the model can call, not a failed listing."""
    config = MCPServerConfig(
        command=sys.executable, args=[str(HOSTILE)], timeout=20.0, connect_timeout=60.0
    )
    with mcp_tools(config) as tools:
        by_name = {t.name: t for t in tools}
        assert {"listy", "loose", "odd"} <= set(by_name)
        assert all(isinstance(t, Tool) for t in tools)
        assert by_name["listy"].schema()["parameters"] == {"type": "object", "properties": {}}
        assert json.loads(by_name["listy"].execute({})) == {"args": {}, "tool": "listy"}
        loose = by_name["loose"]
        assert "required" not in loose.schema()["parameters"]
        assert [p.name for p in loose.parameters] == ["from", "n"]  # '' cannot be a parameter
        assert json.loads(loose.execute({"from": "x", "n": None}))["args"] == {
            "from": "x",
            "n": None,
        }
        odd = by_name["odd"]
        assert [p.name for p in odd.parameters] == ["x", "y"]
        assert json.loads(odd.execute({"y": 2.5}))["args"] == {"y": 2.5}
