"""Performing :class:`AskApproval`: run the handler, bounded by the timeout and cancellation.

Each approval gets its own daemon thread (sync handlers, and async handlers
called from ``run()`` on a private loop) rather than a slot of a shared pool, so
a human taking their time never stalls tool timeouts elsewhere. A handler still
running when time is up is abandoned: its request is closed by the loop, so a
late answer has no effect, and async handlers are cancelled.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._effects import AskApproval

if TYPE_CHECKING:
    from concurrent.futures import Future

# asyncio, concurrent.futures and selectools.approval load when an approval is
# actually awaited: a run without an approval gate never pays for them.

__all__ = ["ask_async", "ask_sync"]

Outcome = tuple[str, Any]


async def _bounded(effect: AskApproval) -> Any:
    import asyncio

    return await asyncio.wait_for(effect.handler(effect.request), effect.timeout)


def _start_thread(effect: AskApproval, on_done: Callable[[], Any]) -> Future[Any]:
    """Run the handler in a new daemon thread; the future holds its result."""
    from concurrent.futures import Future

    from .._async_bridge import run_sync

    future: Future[Any] = Future()

    def target() -> None:
        try:
            if effect.is_async:
                value = run_sync(_bounded(effect))
            else:
                value = effect.handler(effect.request)
        except BaseException as exc:
            future.set_exception(exc)
        else:
            future.set_result(value)
        on_done()

    context = contextvars.copy_context()
    thread = threading.Thread(
        target=context.run, args=(target,), name="selectools-approval", daemon=True
    )
    thread.start()
    return future


def _outcome(future: Future[Any]) -> Outcome:
    import asyncio

    error = future.exception()
    if error is not None:
        return ("timeout", None) if isinstance(error, asyncio.TimeoutError) else ("error", error)
    return ("ok", future.result())


def _cancelled(effect: AskApproval) -> bool:
    return any(token.cancelled for token in effect.tokens)


def ask_sync(effect: AskApproval) -> Outcome:
    wake = threading.Event()
    removers = [token.on_cancel(wake.set) for token in effect.tokens]
    try:
        future = _start_thread(effect, wake.set)
        # a handler may wait itself, e.g. the notebook's, which handles UI events meanwhile
        waiter = getattr(effect.handler, "wait_for", None)
        if callable(waiter):
            waiter(wake, effect.timeout)
        else:
            wake.wait(effect.timeout)
    finally:
        for remove in removers:
            remove()
    if future.done():
        return _outcome(future)
    return ("cancelled", None) if _cancelled(effect) else ("timeout", None)


async def ask_async(effect: AskApproval) -> Outcome:
    import asyncio

    from ..approval import resolve_soon

    loop = asyncio.get_running_loop()
    if effect.is_async:
        pending: asyncio.Future[Any] = asyncio.ensure_future(effect.handler(effect.request))
    else:
        pending = asyncio.wrap_future(_start_thread(effect, lambda: None))
    stop: asyncio.Future[None] = loop.create_future()

    removers = [token.on_cancel(lambda: resolve_soon(loop, stop)) for token in effect.tokens]
    try:
        await asyncio.wait(
            {pending, stop}, timeout=effect.timeout, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        for remove in removers:
            remove()
        stop.cancel()
    if pending.done():
        if pending.cancelled():
            return ("timeout", None)
        error = pending.exception()
        return ("error", error) if error is not None else ("ok", pending.result())
    pending.cancel()
    return ("cancelled", None) if _cancelled(effect) else ("timeout", None)
