"""Run a coroutine to completion from synchronous code, even inside a running loop.

A notebook cell already runs inside an event loop, so ``asyncio.run`` would fail
there. Instead of patching the loop (nest_asyncio), the coroutine runs on a
:class:`~selectools._portal.Portal` opened for the call and closed (thread joined)
before it returns. Context variables are copied over, so tracing and request state
survive. Outside a running loop, ``asyncio.run`` is enough.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

# asyncio and concurrent.futures cost ~20 ms to import and a sync ``agent.run()``
# never needs them, so they are imported by the functions that do.

__all__ = ["in_running_loop", "iterate_sync", "run_sync", "shared_pool"]

T = TypeVar("T")

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def shared_pool() -> ThreadPoolExecutor:
    """The process-wide worker pool used for tool timeouts and sync/async bridging."""
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                from concurrent.futures import ThreadPoolExecutor

                _pool = ThreadPoolExecutor(
                    max_workers=16, thread_name_prefix="selectools_tool_timeout"
                )
    return _pool


def in_running_loop() -> bool:
    if "asyncio" not in sys.modules:
        return False  # nothing imported asyncio, so no event loop can be running
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_sync(coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
    """Run ``coro`` and return its result; never touches the caller's event loop."""
    import asyncio

    if not in_running_loop():
        if timeout is None:
            return asyncio.run(coro)
        return asyncio.run(asyncio.wait_for(coro, timeout))
    from ._portal import Portal

    with Portal("run-sync") as portal:
        return portal.call(coro if timeout is None else asyncio.wait_for(coro, timeout))


def iterate_sync(make: Callable[[], AsyncIterator[T]]) -> Iterator[T]:
    """The items of the async iterator ``make()`` returns, as they arrive, from sync code.

    The iterator runs on a :class:`~selectools._portal.Portal` (context variables
    copied), never on the caller's loop; items cross over through a queue. If the
    consumer stops early, the producer is cancelled and the portal closed before
    the generator returns.
    """
    import queue

    from ._portal import Portal

    items: queue.SimpleQueue[tuple[int, Any]] = queue.SimpleQueue()

    async def pump() -> None:
        iterator = make()
        try:
            async for item in iterator:
                items.put((0, item))
        finally:
            close = getattr(iterator, "aclose", None)
            if close is not None:
                await close()

    with Portal("iterate-sync") as portal:
        pumping = portal.submit(pump())
        pumping.add_done_callback(lambda done: items.put((1, None)))
        try:
            while True:
                kind, value = items.get()
                if kind == 0:
                    yield cast(T, value)
                else:
                    break
        finally:
            pumping.cancel()  # a consumer that stops early stops the producer at once
    if not pumping.cancelled() and (error := pumping.exception()) is not None:
        raise error
