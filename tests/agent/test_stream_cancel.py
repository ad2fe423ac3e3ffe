"""Cancellation reaches into a streaming model call: the stream stops being read, and the run
ends with stop_reason="cancelled" and an intact trace (sync and async, run and stream)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from selectools import Agent, CancellationToken
from selectools.testing import ScriptedProvider, reply

WORDS = [f"w{i} " for i in range(400)]


def _agent() -> Agent:
    return Agent(
        provider=ScriptedProvider([reply("".join(WORDS), chunks=WORDS, chunk_latency=0.01)])
    )


def _check(result, seen: list[str]) -> None:
    assert result.stop_reason == "cancelled"
    assert 0 < len(seen) < len(WORDS)  # the stream was cut, not drained
    kinds = [step.type.value for step in result.trace.steps]
    assert kinds[-2:] == ["llm_call", "cancelled"], kinds  # the cut call is traced, then the stop
    assert result.content.startswith("Cancelled: stop pressed")


def test_run_with_a_stream_handler_stops_mid_stream():
    token, seen = CancellationToken(), []

    def on_text(text: str) -> None:
        seen.append(text)
        if len(seen) == 5:
            threading.Timer(0.02, token.cancel, args=("stop pressed",)).start()

    result = _agent().run("go", stream_handler=on_text, cancellation_token=token)
    _check(result, seen)


def test_stream_stops_mid_stream():
    token, seen = CancellationToken(), []
    result = None
    for item in _agent().stream("go", cancellation_token=token):
        if getattr(item, "content", None) and not hasattr(item, "stop_reason"):
            seen.append(item.content)
            if len(seen) == 5:
                token.cancel("stop pressed")
        elif hasattr(item, "stop_reason"):
            result = item
    _check(result, seen)


@pytest.mark.parametrize("mode", ["arun", "astream"])
def test_async_paths_stop_mid_stream(mode):
    token, seen = CancellationToken(), []

    async def main():
        agent = _agent()
        if mode == "arun":

            def on_text(text: str) -> None:
                seen.append(text)
                if len(seen) == 5:
                    token.cancel("stop pressed")

            return await agent.arun("go", stream_handler=on_text, cancellation_token=token)
        result = None
        async for item in agent.astream("go", cancellation_token=token):
            if hasattr(item, "stop_reason"):
                result = item
            elif item.content:
                seen.append(item.content)
                if len(seen) == 5:
                    token.cancel("stop pressed")
        return result

    _check(asyncio.run(main()), seen)


def test_background_handle_poll_cancel_and_await():
    from selectools import tool
    from selectools.testing import tool_call

    started, release = threading.Event(), threading.Event()

    @tool
    def slow() -> str:
        """Wait for the test."""
        started.set()
        release.wait(30)
        return "ok"

    script = [reply("", tool_call("slow")), reply("never read")]
    handle = Agent(tools=[slow], provider=ScriptedProvider(script)).start("go")
    assert started.wait(30)
    assert repr(handle) == "RunHandle('agent', running)" and not handle.done()
    with pytest.raises(TimeoutError):
        handle.result(timeout=0.01)
    assert handle.cancel("stop pressed") is True
    release.set()
    result = handle.result(timeout=30)
    assert handle.done() and handle.status == "cancelled" and result.stop_reason == "cancelled"
    assert asyncio.run(_await(handle)) is result


async def _await(handle):
    return await handle
