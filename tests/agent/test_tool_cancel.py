"""Cancelling while a tool runs: the run stops waiting for the tool (a sync tool's worker
thread is abandoned, an async tool's task is cancelled) and ends with stop_reason="cancelled",
the tool's trace step marked as cancelled and every tool call answered in the history."""

from __future__ import annotations

import asyncio
import threading

import pytest

from selectools import Agent, CancellationToken, tool
from selectools.testing import ScriptedProvider, reply, tool_call
from selectools.types import Role


class Gate:
    """A tool that says when it started and then blocks until the test releases it."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.finished = threading.Event()


def _agent(tool_fn) -> Agent:
    provider = ScriptedProvider(
        [reply("", tool_call("slow", key="a")), reply("never reached: the run was cancelled")]
    )
    return Agent(provider=provider, tools=[tool_fn])


def _sync_tool(gate: Gate):
    @tool()
    def slow(key: str) -> str:
        """Blocks until released."""
        gate.started.set()
        gate.release.wait(30)
        gate.finished.set()
        return key

    return slow


def _async_tool(gate: Gate):
    @tool()
    async def slow(key: str) -> str:
        """Blocks until released (or cancelled)."""
        gate.started.set()
        try:
            while not gate.release.is_set():
                await asyncio.sleep(0.005)
        except asyncio.CancelledError:
            gate.finished.set()  # the task was cancelled, not left running
            raise
        return key

    return slow


def _cancel_when_started(gate: Gate, token: CancellationToken) -> threading.Thread:
    def press() -> None:
        gate.started.wait(30)
        token.cancel("stop pressed")

    thread = threading.Thread(target=press, daemon=True)
    thread.start()
    return thread


def _check(result, gate: Gate) -> None:
    assert result.stop_reason == "cancelled"
    assert result.content.startswith("Cancelled: stop pressed")
    steps = result.trace.steps
    tool_steps = [s for s in steps if s.type.value == "tool_execution"]
    assert len(tool_steps) == 1
    step = tool_steps[0]
    assert step.status == "error" and step.data["cancelled"] is True
    assert "still running when the run was cancelled" in step.error
    assert steps[-1].type.value == "cancelled"
    # the history answers the call: assistant(tool call) then its tool reply
    calls = [m for m in result.messages if m.role == Role.ASSISTANT and m.tool_calls]
    replies = [m for m in result.messages if m.role == Role.TOOL]
    assert [c.id for m in calls for c in m.tool_calls] == [r.tool_call_id for r in replies]
    assert "cancelled" in replies[0].content


def test_sync_tool_is_abandoned_on_cancel():
    gate, token = Gate(), CancellationToken()
    presser = _cancel_when_started(gate, token)
    result = _agent(_sync_tool(gate)).run("go", cancellation_token=token)
    still_running = not gate.finished.is_set()
    gate.release.set()
    presser.join()
    assert still_running  # the run ended while the tool was blocked: it did not wait for it
    _check(result, gate)
    assert gate.finished.wait(30)  # the abandoned worker finishes in the background


def test_sync_tool_is_abandoned_on_cancel_while_streaming():
    gate, token = Gate(), CancellationToken()
    presser = _cancel_when_started(gate, token)
    items = list(_agent(_sync_tool(gate)).stream("go", cancellation_token=token))
    still_running = not gate.finished.is_set()
    gate.release.set()
    presser.join()
    assert still_running
    _check(items[-1], gate)


@pytest.mark.parametrize("mode", ["arun", "astream"])
def test_async_tool_task_is_cancelled(mode):
    gate, token = Gate(), CancellationToken()
    presser = _cancel_when_started(gate, token)
    agent = _agent(_async_tool(gate))

    async def main():
        if mode == "arun":
            return await agent.arun("go", cancellation_token=token)
        items = [item async for item in agent.astream("go", cancellation_token=token)]
        return items[-1]

    result = asyncio.run(main())
    released = gate.release.is_set()
    gate.release.set()
    presser.join()
    assert not released
    assert gate.finished.is_set()  # the tool's task got CancelledError: it is not left running
    _check(result, gate)


def test_sync_tool_in_arun_is_abandoned_on_cancel():
    gate, token = Gate(), CancellationToken()
    presser = _cancel_when_started(gate, token)
    agent = _agent(_sync_tool(gate))

    async def main():
        result = await agent.arun("go", cancellation_token=token)
        # checked before asyncio.run ends: it waits for its default executor's threads
        still_running = not gate.finished.is_set()
        gate.release.set()
        return result, still_running

    result, still_running = asyncio.run(main())
    presser.join()
    assert still_running
    _check(result, gate)


def test_without_a_token_the_tool_completes():
    gate = Gate()
    gate.release.set()
    result = _agent(_sync_tool(gate)).run("go")
    assert result.stop_reason == "final"
    assert gate.finished.is_set()
