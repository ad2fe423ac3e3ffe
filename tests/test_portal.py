"""The one sync↔async portal: every bridge runs on it and leaves no thread or loop behind."""

from __future__ import annotations

import asyncio
import contextvars
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from selectools._async_bridge import iterate_sync, run_sync
from selectools._portal import Portal, PortalClosed

ROOT = Path(__file__).resolve().parents[1]
REQUEST = contextvars.ContextVar("request", default="none")


def _bridge_threads() -> list[str]:
    return sorted(
        t.name
        for t in threading.enumerate()
        if t.name.startswith("selectools-") and "tool_timeout" not in t.name
    )


def _settled(before: list[str], within: float = 5.0) -> list[str]:
    """The bridge threads, once they match ``before`` (or ``within`` s have passed)."""
    deadline = time.monotonic() + within
    while _bridge_threads() != before and time.monotonic() < deadline:
        time.sleep(0.01)
    return _bridge_threads()


def test_a_portal_runs_coroutines_in_the_callers_context_and_closes_completely() -> None:
    before = _bridge_threads()
    finalized: list[str] = []

    async def lingering() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            finalized.append("task")

    async def paused_generator() -> AsyncIterator[int]:
        try:
            yield 1
            yield 2
        finally:
            finalized.append("generator")

    async def first_item() -> int:
        global _kept
        _kept = paused_generator()
        return await _kept.__anext__()

    async def current() -> str:
        return REQUEST.get()

    portal = Portal("test")
    with portal:
        token = REQUEST.set("req-7")
        try:
            assert portal.call(current()) == "req-7"
        finally:
            REQUEST.reset(token)
        portal.submit(lingering())
        assert portal.call(first_item()) == 1
        assert _bridge_threads() == sorted([*before, "selectools-test"])
        loop = portal._loop
    assert not portal.running and loop is not None and loop.is_closed()
    assert sorted(finalized) == ["generator", "task"]  # cancelled and finalized, not leaked
    assert _bridge_threads() == before
    with pytest.raises(PortalClosed, match="test portal is not running"):
        portal.call(current())


_kept: object = None


def test_cancelling_a_submitted_call_cancels_its_task() -> None:
    started, cancelled = threading.Event(), threading.Event()

    async def slow() -> None:
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    with Portal("cancel") as portal:
        future = portal.submit(slow())
        assert started.wait(10)
        assert future.cancel()
        assert cancelled.wait(10)


def test_the_bridges_leave_no_thread_behind_inside_a_running_loop() -> None:
    """run_sync and iterate_sync called from a notebook-like running loop, 20 times each."""

    async def answer(n: int) -> int:
        await asyncio.sleep(0)
        return n * 2

    async def numbers() -> AsyncIterator[int]:
        for n in range(5):
            await asyncio.sleep(0)
            yield n

    async def cell() -> None:
        for n in range(20):
            assert run_sync(answer(n), timeout=30) == n * 2
            assert list(iterate_sync(numbers)) == [0, 1, 2, 3, 4]

    before = _bridge_threads()
    asyncio.run(cell())
    assert _bridge_threads() == before  # joined before each call returned


def test_a_consumer_that_stops_early_stops_the_producer_at_once() -> None:
    """The old bridge left the producer's thread blocked until its next item (here: never)."""
    stopped = threading.Event()

    async def slow_stream() -> AsyncIterator[str]:
        try:
            yield "first"
            await asyncio.sleep(3600)
            yield "never"
        finally:
            stopped.set()

    before = _bridge_threads()
    stream = iterate_sync(slow_stream)
    assert next(stream) == "first"
    stream.close()
    assert stopped.is_set()
    assert _settled(before, within=0.5) == before


def test_a_producer_error_reaches_the_consumer_and_closes_the_portal() -> None:
    async def failing() -> AsyncIterator[int]:
        yield 1
        raise ValueError("upstream broke")

    before = _bridge_threads()
    with pytest.raises(ValueError, match="upstream broke"):
        list(iterate_sync(failing))
    assert _bridge_threads() == before


def test_the_graph_generator_portal_finalizes_a_paused_node_at_exit(tmp_path: Path) -> None:
    """A sync run paused in an async generator node: the process's exit runs its ``finally``."""
    marker = tmp_path / "finalized"
    script = textwrap.dedent(
        f"""
        from selectools.orchestration import AgentGraph, GraphState, InterruptRequest

        async def review(state: GraphState):
            try:
                answer = yield InterruptRequest(prompt="ok?")
                state.last_output = f"approved={{answer}}"
            finally:
                open({str(marker)!r}, "w").write("closed")

        graph = AgentGraph()
        graph.add_node("review", review)
        assert graph.run("x").interrupted  # left paused: nobody resumes it
        """
    )
    ran = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    assert marker.read_text() == "closed"
