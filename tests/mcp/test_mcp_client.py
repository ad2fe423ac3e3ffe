"""MCPClient against real SDK servers over stdio: tools, errors, timeouts, crashes, retries."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest
from mcp_support import count

from selectools import Agent, AgentConfig
from selectools.exceptions import ToolExecutionError, ToolValidationError
from selectools.mcp import (
    MCPClient,
    MCPConnectionError,
    MCPServerConfig,
    MCPTimeoutError,
    MCPTool,
    MCPToolError,
    mcp_tools,
)
from selectools.testing import ScriptedProvider, reply, tool_call
from selectools.tools import ToolLike


async def _until(condition, limit: float = 30.0) -> None:
    """Wait for something another process does (a bound, not a timing assertion)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not condition():
        assert loop.time() < deadline, "gave up waiting"
        await asyncio.sleep(0.05)


def test_tools_carry_the_servers_schema_and_answer(stdio_config) -> None:
    with MCPClient(stdio_config()) as client:
        tools = {t.name: t for t in client.list_tools_sync()}
        add = tools["add"]
        assert isinstance(add, MCPTool)
        assert isinstance(add, ToolLike)
        assert add.server == "fixture_server"
        assert add.schema() == {
            "name": "add",
            "description": "Add two integers.",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
            },
        }
        assert add.execute({"a": 2, "b": 40}) == "42"
        assert client.call_tool_sync("search", {"query": "mcp"}).startswith("results for mcp")
        assert client.connected
    assert not client.connected


def test_arguments_are_checked_before_anything_is_sent(stdio_config, state: Path) -> None:
    with mcp_tools(stdio_config()) as tools:
        add = next(t for t in tools if t.name == "add")
        with pytest.raises(ToolValidationError) as caught:
            add.execute({"a": "two", "b": 1})
        assert "$.a" in caught.value.issue
        with pytest.raises(ToolValidationError):
            add.execute({"a": 1})
    assert count(state, "add") == 0


def test_a_tool_error_from_the_server_is_typed(stdio_config) -> None:
    with mcp_tools(stdio_config()) as tools:
        boom = next(t for t in tools if t.name == "boom")
        with pytest.raises(ToolExecutionError) as caught:
            boom.execute({"reason": "disk full"})
        error = caught.value.error
        assert isinstance(error, MCPToolError)
        assert (error.server, error.tool) == ("fixture_server", "boom")


def test_a_slow_tool_hits_the_timeout_and_the_client_stays_usable(
    stdio_config, state: Path
) -> None:
    with MCPClient(stdio_config(timeout=1.0)) as client:
        with pytest.raises(MCPTimeoutError) as caught:
            client.call_tool_sync("slow", {"seconds": 30})
        assert "within 1s" in str(caught.value)
        asyncio.run(_until(lambda: count(state, "slow_cancelled") == 1))  # not left running
        assert client.call_tool_sync("add", {"a": 1, "b": 1}) == "2"


def test_a_server_that_dies_mid_call_gives_a_connection_error_then_reconnects(
    stdio_config, state: Path
) -> None:
    with MCPClient(stdio_config()) as client:
        with pytest.raises(MCPConnectionError) as caught:
            client.call_tool_sync("crash", {})
        message = str(caught.value)
        assert "closed the connection during the call to 'crash'" in message
        assert count(state, "crash") == 1  # not re-sent: the tool is not marked idempotent
        assert client.call_tool_sync("add", {"a": 2, "b": 2}) == "4"  # a fresh server


def test_without_auto_reconnect_a_lost_server_stays_lost(stdio_config) -> None:
    with MCPClient(stdio_config(auto_reconnect=False)) as client:
        with pytest.raises(MCPConnectionError):
            client.call_tool_sync("crash", {})
        with pytest.raises(MCPConnectionError, match="auto_reconnect is off"):
            client.call_tool_sync("add", {"a": 1, "b": 1})


def test_only_read_only_or_idempotent_calls_are_resent_after_a_crash(
    stdio_config, state: Path
) -> None:
    with MCPClient(stdio_config(max_retries=2)) as client:
        client.list_tools_sync()  # the hints come with the listing
        assert client.call_tool_sync("flaky_read", {}) == "read ok"
        assert count(state, "flaky_read") == 2
        with pytest.raises(MCPConnectionError):
            client.call_tool_sync("flaky_write", {})
        assert count(state, "flaky_write") == 1  # a side effect is never repeated
        assert client.call_tool_sync("flaky_write", {}) == "write ok"


def test_a_run_goes_on_when_the_server_dies_mid_call(stdio_config) -> None:
    provider = ScriptedProvider(
        [tool_call("crash"), tool_call("add", a=20, b=22), "The sum is 42."]
    )
    with mcp_tools(stdio_config()) as tools:
        agent = Agent(tools=tools, provider=provider, config=AgentConfig(model="scripted"))
        result = agent.run("crash, then add")
    assert result.content == "The sum is 42."
    seen = [m.content for m in provider.requests[1].messages if m.role.value == "tool"]
    assert "closed the connection during the call to 'crash'" in seen[-1]
    seen = [m.content for m in provider.requests[2].messages if m.role.value == "tool"]
    assert seen[-1] == "42"


def test_a_run_goes_on_when_a_call_times_out(stdio_config) -> None:
    provider = ScriptedProvider([tool_call("slow", seconds=30), "gave up waiting"])
    with mcp_tools(stdio_config(timeout=1.0)) as tools:
        agent = Agent(tools=tools, provider=provider, config=AgentConfig(model="scripted"))
        result = agent.run("be slow")
    assert result.content == "gave up waiting"
    tool_message = [m for m in provider.requests[1].messages if m.role.value == "tool"][-1]
    assert "did not answer the call to 'slow' within 1s" in tool_message.content


def test_sync_use_works_inside_a_running_event_loop(stdio_config) -> None:
    """What a notebook cell does: sync API calls while the cell's loop is running."""

    async def cell() -> str:
        with mcp_tools(stdio_config()) as tools:
            agent = Agent(
                tools=tools,
                provider=ScriptedProvider([tool_call("add", a=3, b=4), "seven"]),
                config=AgentConfig(model="scripted"),
            )
            result = agent.run("add")
            return f"{result.content} {result.trace.steps[-2].summary}"

    assert asyncio.run(cell()).startswith("seven")


def test_async_client_and_arun(stdio_config) -> None:
    async def main() -> tuple[str, str]:
        async with MCPClient(stdio_config()) as client:
            tools = await client.list_tools()
            agent = Agent(
                tools=tools,
                provider=ScriptedProvider([tool_call("add", a=5, b=3), "eight"]),
                config=AgentConfig(model="scripted"),
            )
            result = await agent.arun("Add 5 and 3")
            direct = await client._call_tool("search", {"query": "python"})
            return result.content, direct

    content, direct = asyncio.run(main())
    assert content == "eight"
    assert direct.startswith("results for python")


def test_cancelling_a_call_cancels_the_request(stdio_config, state: Path) -> None:
    async def main() -> str:
        async with MCPClient(stdio_config()) as client:
            task = asyncio.create_task(client.call_tool("slow", {"seconds": 30}))
            while count(state, "slow_started") == 0:
                await asyncio.sleep(0.02)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert client.circuit.failures == 0  # a cancelled call is not a failure
            await _until(lambda: count(state, "slow_cancelled") == 1)  # the server stopped it
            return await client.call_tool("add", {"a": 1, "b": 2})

    assert asyncio.run(main()) == "3"
    assert count(state, "slow_finished") == 0


def test_an_agent_tool_timeout_cancels_the_mcp_call(stdio_config, state: Path) -> None:
    provider = ScriptedProvider([tool_call("slow", seconds=30), "moved on"])

    async def main() -> str:
        async with mcp_tools(stdio_config()) as tools:
            agent = Agent(
                tools=tools,
                provider=provider,
                config=AgentConfig(model="scripted", tool_timeout_seconds=0.5),
            )
            answer = (await agent.arun("be slow")).content
            await _until(lambda: count(state, "slow_cancelled") == 1)  # the server stopped it
            return answer

    assert asyncio.run(main()) == "moved on"
    assert count(state, "slow_finished") == 0
    tool_message = [m for m in provider.requests[1].messages if m.role.value == "tool"][-1]
    assert "timed out" in tool_message.content


def test_a_missing_command_fails_at_once_with_a_clear_error() -> None:
    config = MCPServerConfig(command="selectools-no-such-server", args=["x"], retry_backoff=5)
    with pytest.raises(MCPConnectionError, match="could not connect to MCP server 'x'") as caught:
        MCPClient(config).connect()
    assert "selectools-no-such-server" in str(caught.value)


def test_a_server_that_exits_at_start_shows_its_stderr(tmp_path: Path) -> None:
    script = tmp_path / "broken_server.py"
    script.write_text("import sys\nsys.exit('config file missing: /etc/thing.toml')\n")
    config = MCPServerConfig(command=sys.executable, args=[str(script)], max_retries=0)
    with pytest.raises(MCPConnectionError) as caught:
        MCPClient(config).connect()
    assert "config file missing: /etc/thing.toml" in str(caught.value)
    assert "broken_server" in str(caught.value)


def test_tools_of_a_closed_client_say_so(stdio_config) -> None:
    with mcp_tools(stdio_config()) as tools:
        add = next(t for t in tools if t.name == "add")
    with pytest.raises(ToolExecutionError) as caught:
        add.execute({"a": 1, "b": 2})
    assert isinstance(caught.value.error, MCPConnectionError)
    assert "is closed" in str(caught.value.error)


def test_parallel_calls_share_one_server(stdio_config, state: Path) -> None:
    calls = [tool_call("add", a=n, b=n) for n in (1, 2, 3)]
    provider = ScriptedProvider([reply("", *calls), "done"])

    async def main() -> list[str]:
        async with mcp_tools(stdio_config()) as tools:
            agent = Agent(tools=tools, provider=provider, config=AgentConfig(model="scripted"))
            result = await agent.arun("add three times")
        return sorted(s.result or "" for s in result.trace.filter("tool_execution"))

    assert asyncio.run(main()) == ["2", "4", "6"]  # the trace is in finishing order
    answers = [m.content for m in provider.requests[1].messages if m.role.value == "tool"]
    assert answers == ["2", "4", "6"]  # the model reads them in call order
    assert count(state, "add") == 3


def test_tools_carry_the_servers_screening_flag(stdio_config) -> None:
    with mcp_tools(stdio_config(screen_output=False)) as tools:
        assert {t.screen_output for t in tools} == {False}
    with mcp_tools(stdio_config()) as tools:
        assert {t.screen_output for t in tools} == {True}


def test_interrupting_a_sync_call_cancels_it_on_the_server(stdio_config, state: Path) -> None:
    """Jupyter's "interrupt kernel" is SIGINT to a cell blocked in a sync call."""
    import signal
    import threading

    main = threading.get_ident()

    def interrupt_once_started() -> None:
        asyncio.run(_until(lambda: count(state, "slow_started") == 1))
        signal.pthread_kill(main, signal.SIGINT)

    # A kernel runs a cell with Python's own SIGINT handler (KeyboardInterrupt); the test process
    # may have had it replaced by an earlier test (ipykernel's app ignores SIGINT), so set it here.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        # the call's own timeout stays out of the way on a loaded machine: the interrupt ends it
        with MCPClient(stdio_config(timeout=60.0)) as client:
            threading.Thread(target=interrupt_once_started, daemon=True).start()
            with pytest.raises(KeyboardInterrupt):
                client.call_tool_sync("slow", {"seconds": 30})
            asyncio.run(_until(lambda: count(state, "slow_cancelled") == 1))
            assert client.call_tool_sync("add", {"a": 2, "b": 3}) == "5"
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_backtracking_schema_pattern_is_refused_in_time(stdio_config, state: Path) -> None:
    """The server's schema pattern runs on a model-chosen argument under a deadline."""
    with mcp_tools(stdio_config()) as tools:
        lookup = next(t for t in tools if t.name == "lookup")
        assert lookup.schema()["parameters"]["properties"]["code"]["pattern"] == "(a|a)+$"
        assert lookup.execute({"code": "aaa"}) == "found aaa"
        started = time.monotonic()
        with pytest.raises(ToolValidationError) as caught:
            lookup.execute({"code": "a" * 27 + "!"})  # with re: ~16 s of backtracking
        elapsed = time.monotonic() - started
        assert elapsed < 8, f"the pattern check ran {elapsed:.1f}s; the limit is 1s"
        assert "'(a|a)+$'" in caught.value.issue
        assert "backtracks catastrophically" in caught.value.issue
    assert count(state, "lookup") == 1  # the refused call never reached the server
