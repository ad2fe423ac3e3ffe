"""Parallel tool execution: ordering, isolation, lanes and real concurrency."""

import asyncio
import threading
import time

import pytest

from selectools import Agent, AgentConfig, tool
from selectools.testing import ScriptedProvider, tool_call


def _slow_tools(barrier_parties=None):
    barrier = threading.Barrier(barrier_parties) if barrier_parties else None

    @tool()
    def slow(label: str, delay: float) -> str:
        """Sleeps then answers."""
        if barrier is not None:
            barrier.wait(timeout=5)
        time.sleep(delay)
        if label == "bad":
            raise RuntimeError("bad tool")
        return f"done {label}"

    return slow


def _script():
    return ScriptedProvider(
        [
            [
                tool_call("slow", label="a", delay=0.15),
                tool_call("slow", label="bad", delay=0.05),
                tool_call("slow", label="c", delay=0.01),
            ],
            "all done",
        ]
    )


def test_parallel_results_keep_call_order_and_isolate_errors():
    provider = _script()
    agent = Agent(tools=[_slow_tools(barrier_parties=3)], provider=provider)
    result = agent.run("go")
    tool_messages = provider.requests[1].messages[-3:]
    assert [m.content for m in tool_messages] == [
        "done a",
        "Error executing tool 'slow': bad tool",
        "done c",
    ]
    assert [m.is_error for m in tool_messages] == [False, True, False]
    steps = result.trace.filter(type="tool_execution")
    assert sorted(s.lane for s in steps) == [0, 1, 2]
    starts = [s.started_at for s in steps]
    assert max(starts) - min(starts) < 0.1


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_parallel_is_faster_than_sequential(mode):
    def run(parallel):
        agent = Agent(
            tools=[_slow_tools()],
            provider=ScriptedProvider(
                [[tool_call("slow", label=str(i), delay=0.15) for i in range(3)], "ok"]
            ),
            config=AgentConfig(parallel_tool_execution=parallel),
        )
        started = time.perf_counter()
        if mode == "sync":
            agent.run("x")
        else:
            asyncio.run(agent.arun("x"))
        return time.perf_counter() - started

    assert run(parallel=True) < 0.3
    assert run(parallel=False) >= 0.45


def test_async_tools_run_concurrently_in_arun():
    @tool()
    async def wait(label: str) -> str:
        """Async wait."""
        await asyncio.sleep(0.15)
        return label

    provider = ScriptedProvider([[tool_call("wait", label=x) for x in "abc"], "ok"])
    agent = Agent(tools=[wait], provider=provider)
    started = time.perf_counter()
    asyncio.run(agent.arun("x"))
    assert time.perf_counter() - started < 0.3
    assert [m.content for m in provider.requests[1].messages[-3:]] == ["a", "b", "c"]


def test_sequential_mode_uses_one_lane():
    agent = Agent(
        tools=[_slow_tools()], provider=_script(), config=AgentConfig(parallel_tool_execution=False)
    )
    result = agent.run("go")
    steps = result.trace.filter(type="tool_execution")
    assert [s.lane for s in steps] == [0, 0, 0]
    assert all(a.ended_at <= b.started_at for a, b in zip(steps, steps[1:]))


def test_terminal_tool_in_a_parallel_batch_stops_after_the_batch():
    @tool(terminal=True)
    def finish(answer: str) -> str:
        """Final answer."""
        return answer

    @tool()
    def other() -> str:
        """Other."""
        return "other"

    provider = ScriptedProvider([[tool_call("other"), tool_call("finish", answer="42")], "unused"])
    result = Agent(tools=[finish, other], provider=provider).run("x")
    assert result.content == "42"
    assert provider.calls == 1
