"""The graph engine's performers: run a node, or branches side by side, blocking or on a loop.

:func:`._engine.core` is an effect program stepped by :mod:`selectools._driver`
(shared with the agent loop and pipelines): a node's exception is thrown back
into the engine, which applies the node's error policy. The sync performer never
starts an event loop unless a parallel group holds async nodes. The streaming one
(``astream``) hands out the ``GraphEvent``s the recorder queued, and an agent
node's text as it arrives. ``live`` is a paused generator node (an in-process
resume), given to the first node run.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Generator
from typing import TYPE_CHECKING, Any

from .._driver import (
    Reply,
    drive_async as _drive_async,
    drive_async_stream as _drive_async_stream,
    drive_sync as _drive_sync,
)
from ._effects import RunNode
from ._node_run import NodeOutcome, run_node_async, run_node_sync
from ._recorder import graph_event
from .node import GraphNode

if TYPE_CHECKING:
    from ._run_state import _Run
    from .events import GraphEvent
    from .graph import GraphResult
    from .state import GraphState

__all__ = ["drive_async", "drive_sync", "drive_to_end"]


def drive_sync(run: _Run, gen: Generator[Any, Any, None], live: Any = None) -> GraphResult:
    first = [live]

    def perform(effect: Any) -> Any:
        if type(effect) is RunNode:
            paused, first[0] = first[0], None
            return run_node_sync(effect.node, effect.state, run, paused)
        return _branches_sync(effect.branches, run)

    _drive_sync(gen, perform, catch=Exception)
    assert run.result is not None
    return run.result


def _branches_sync(branches: list[tuple[GraphNode, GraphState]], run: _Run) -> list[NodeOutcome]:
    if all(node.kind == "sync" for node, _ in branches):
        return [run_node_sync(node, state, run) for node, state in branches]
    from .._async_bridge import run_sync

    return run_sync(_branches_async(branches, run))


async def _branches_async(
    branches: list[tuple[GraphNode, GraphState]], run: _Run
) -> list[NodeOutcome]:
    return list(await asyncio.gather(*(run_node_async(n, s, run) for n, s in branches)))


async def drive_async(
    run: _Run, gen: Generator[Any, Any, None], live: Any = None
) -> AsyncIterator[GraphEvent]:
    stream = run.stream
    first = [live]

    async def perform(effect: Any) -> AsyncIterator[Any]:
        if stream:
            for event in stream:
                yield event
            stream.clear()
        if run.emitter is not None and run.emitter.pending:
            await run.emitter.flush()
        if type(effect) is not RunNode:
            yield Reply(await _branches_async(effect.branches, run))
            return
        node, paused, first[0] = effect.node, first[0], None
        if stream is not None and node.kind == "agent":
            chunks: list[NodeOutcome] = []
            async for event in _stream_agent(node, effect.state, run, chunks):
                yield event
            yield Reply(chunks.pop())
        else:
            yield Reply(await run_node_async(node, effect.state, run, paused))

    try:
        async for event in _drive_async_stream(gen, perform, catch=Exception):
            if event is not None:  # the last item is the engine's return value, None
                yield event
    except Exception:
        if stream:  # what the run recorded before it failed is streamed before the error
            for event in stream:
                yield event
            stream.clear()
        raise
    if stream:
        for event in stream:
            yield event
        stream.clear()


async def drive_to_end(run: _Run, gen: Generator[Any, Any, None], live: Any = None) -> GraphResult:
    """Drive on the event loop without streaming; the run's result."""
    first = [live]

    async def perform(effect: Any) -> Any:
        if run.emitter is not None and run.emitter.pending:
            await run.emitter.flush()
        if type(effect) is RunNode:
            paused, first[0] = first[0], None
            return await run_node_async(effect.node, effect.state, run, paused)
        return await _branches_async(effect.branches, run)

    await _drive_async(gen, perform, catch=Exception)
    assert run.result is not None
    return run.result


async def _stream_agent(
    node: GraphNode, state: GraphState, run: _Run, out: list[NodeOutcome]
) -> AsyncIterator[GraphEvent]:
    """Run an agent node streaming: NODE_CHUNK events as the text arrives, outcome into ``out``."""
    queue: asyncio.Queue[Any] = asyncio.Queue()

    def on_chunk(text: str) -> None:
        queue.put_nowait(graph_event(run, "node_chunk", node.name, chunk=text))

    task = asyncio.ensure_future(run_node_async(node, state, run, None, on_chunk))
    while not task.done() or not queue.empty():
        getter = asyncio.ensure_future(queue.get())
        done, _ = await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
        if getter in done:
            yield getter.result()
        else:
            getter.cancel()
    out.append(task.result())
