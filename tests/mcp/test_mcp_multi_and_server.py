"""MultiMCPClient over several real servers, and MCPServer driven by the SDK's own client."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from mcp_support import ServerThread, child_env

from selectools import Agent, AgentConfig, tool
from selectools.mcp import (
    MCPClient,
    MCPConnectionError,
    MCPServer,
    MCPServerConfig,
    MCPTimeoutError,
    MultiMCPClient,
    mcp_tools,
)
from selectools.testing import ScriptedProvider, tool_call


def test_tools_are_prefixed_with_their_server(stdio_config) -> None:
    configs = [stdio_config(name="search"), stdio_config(name="api")]
    with MultiMCPClient(configs) as client:
        assert client.active_servers == ["search", "api"]
        names = [t.name for t in client.list_all_tools_sync()]
    assert "search_add" in names
    assert "api_add" in names
    assert "search_search" in names


def test_without_prefixes_a_collision_is_a_value_error(stdio_config) -> None:
    async def main() -> None:
        configs = [stdio_config(name="one"), stdio_config(name="two")]
        async with MultiMCPClient(configs, prefix_tools=False) as client:
            with pytest.raises(ValueError, match="both have a tool named 'add'"):
                await client.list_all_tools()

    asyncio.run(main())


def test_a_server_that_fails_to_connect_leaves_the_others_working(stdio_config) -> None:
    broken = MCPServerConfig(command="selectools-no-such-server", name="api")

    async def main() -> tuple[list[str], list[str], str]:
        async with MultiMCPClient([stdio_config(name="search"), broken]) as client:
            tools = await client.list_all_tools()
            add = next(t for t in tools if t.name == "search_add")
            return (
                client.active_servers,
                client.failed_servers,
                await add.aexecute({"a": 1, "b": 2}),
            )

    active, failed, answer = asyncio.run(main())
    assert (active, failed, answer) == (["search"], ["api"], "3")


def test_when_no_server_connects_the_error_says_why() -> None:
    broken = MCPServerConfig(command="selectools-no-such-server", name="api")
    with pytest.raises(MCPConnectionError, match="none of the MCP servers could be connected"):
        MultiMCPClient([broken]).connect()


def test_duplicate_server_names_are_refused(stdio_config) -> None:
    with pytest.raises(ValueError, match="distinct name"):
        MultiMCPClient([stdio_config(name="a"), stdio_config(name="a")])


def test_mcp_tools_with_several_configs_prefixes_and_an_agent_uses_them(stdio_config) -> None:
    provider = ScriptedProvider([tool_call("calc_add", a=6, b=7), "13"])
    with mcp_tools([stdio_config(name="calc"), stdio_config(name="docs")]) as tools:
        agent = Agent(tools=tools, provider=provider, config=AgentConfig(model="scripted"))
        assert agent.run("add").content == "13"
    assert "calc_add" in provider.requests[0].tools


# -- MCPServer: selectools tools served over MCP --------------------------------------------
SERVER_SCRIPT = """
from selectools import tool
from selectools.mcp import MCPServer

@tool(description="Get weather for a city")
def get_weather(city: str) -> str:
    print("a stray print must not corrupt the protocol on stdout")
    return f"72°F in {city}"

@tool(description="Divide a by b")
def divide(a: float, b: float) -> str:
    return str(a / b)

MCPServer(tools=[get_weather, divide], name="weather").serve(transport="stdio")
"""


@tool(description="Get weather for a city")
def get_weather(city: str) -> str:
    return f"72°F in {city}"


@tool(description="Divide a by b")
def divide(a: float, b: float) -> str:
    return str(a / b)


def _check_with_the_sdk_client(server: object) -> None:
    from mcp import Client

    async def main() -> None:
        async with Client(server) as client:  # type: ignore[arg-type]
            listing = await client.list_tools()
            tools = {t.name: t for t in listing.tools}
            assert set(tools) == {"get_weather", "divide"}
            assert tools["get_weather"].description == "Get weather for a city"
            assert tools["get_weather"].input_schema["required"] == ["city"]
            ok = await client.call_tool("get_weather", {"city": "Oslo"})
            assert not ok.is_error
            assert ok.content[0].text == "72°F in Oslo"
            bad = await client.call_tool("get_weather", {"town": "Oslo"})
            assert bad.is_error
            assert "Invalid arguments for 'get_weather'" in bad.content[0].text
            crash = await client.call_tool("divide", {"a": 1, "b": 0})
            assert crash.is_error
            assert "ZeroDivisionError" in crash.content[0].text
            again = await client.call_tool("divide", {"a": 1, "b": 4})
            assert again.content[0].text == "0.25"

    asyncio.run(main())


def test_the_sdk_client_lists_and_calls_a_stdio_mcp_server(tmp_path: Path) -> None:
    from mcp import StdioServerParameters

    script = tmp_path / "weather_server.py"
    script.write_text(SERVER_SCRIPT)
    _check_with_the_sdk_client(
        StdioServerParameters(command=sys.executable, args=[str(script)], env=child_env())
    )


def test_the_sdk_client_lists_and_calls_a_streamable_http_mcp_server() -> None:
    server = MCPServer(tools=[get_weather, divide], name="weather")
    with ServerThread(server.streamable_http_app()) as running:
        _check_with_the_sdk_client(running.url)


def test_selectools_to_selectools_round_trip_over_http() -> None:
    server = MCPServer(tools=[get_weather, divide], name="weather")
    provider = ScriptedProvider([tool_call("get_weather", city="Lima"), "It is 72°F in Lima."])
    with ServerThread(server.streamable_http_app()) as running:
        config = MCPServerConfig(url=running.url, transport="streamable-http", name="weather")
        with MCPClient(config) as client:
            tools = client.list_tools_sync()
            agent = Agent(tools=tools, provider=provider, config=AgentConfig(model="scripted"))
            result = agent.run("Weather in Lima?")
    assert result.content == "It is 72°F in Lima."
    tool_message = [m for m in provider.requests[1].messages if m.role.value == "tool"][-1]
    assert tool_message.content == "72°F in Lima"


def test_server_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="at least one tool"):
        MCPServer(tools=[])
    with pytest.raises(ValueError, match="two tools are named 'divide'"):
        MCPServer(tools=[divide, divide])
    with pytest.raises(ValueError, match="transport must be"):
        MCPServer(tools=[divide]).serve(transport="sse")


ROUND_TRIP_SERVER = """
import asyncio
import os

from selectools import tool
from selectools.mcp import MCPServer

@tool(description="Wait, then answer")
async def slow(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return "late"

@tool(description="Kill the server mid-call")
def crash() -> str:
    os._exit(7)

@tool(description="Echo the text")
def echo(text: str) -> str:
    return text

MCPServer(tools=[slow, crash, echo], name="ours").serve()
"""


def test_selectools_server_and_client_over_stdio_timeout_and_crash(tmp_path: Path) -> None:
    script = tmp_path / "ours.py"
    script.write_text(ROUND_TRIP_SERVER)
    config = MCPServerConfig(
        command=sys.executable,
        args=[str(script)],
        env=child_env(),
        timeout=1.0,
        connect_timeout=60,
        retry_backoff=0.01,
    )
    with MCPClient(config) as client:
        assert client.call_tool_sync("echo", {"text": "hi"}) == "hi"
        with pytest.raises(MCPTimeoutError):
            client.call_tool_sync("slow", {"seconds": 30})
        with pytest.raises(MCPConnectionError, match="during the call to 'crash'"):
            client.call_tool_sync("crash", {})
        assert client.call_tool_sync("echo", {"text": "back"}) == "back"
