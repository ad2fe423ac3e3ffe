"""The one sync↔async portal: a private event loop on its own thread, started and closed on purpose.

Synchronous code reaches coroutines through it where ``asyncio.run`` cannot serve:
inside a running loop (a notebook cell; :func:`~selectools._async_bridge.run_sync`
opens one portal per call there and uses ``asyncio.run`` elsewhere), for an MCP
connection whose sessions are bound to the loop that opened them, and for a graph's
async generator node paused between ``run`` and ``resume``. :class:`Portal` has the shape of
anyio's ``BlockingPortal`` (``start``, ``submit``, ``call``, ``close``), written on the
standard library because the core's dependencies (pydantic, regex, filelock,
python-dotenv) do not bring anyio, and the core must stay light: anyio arrives only
with the provider and serve extras.

Closing is deterministic: :meth:`Portal.close` cancels what still runs, finalizes
async generators, closes the loop and joins the thread, so no loop or thread
outlives its owner. Each submitted coroutine runs in a copy of the submitter's
context variables (tracing and request state cross over).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from types import TracebackType
from typing import Any, TypeVar

__all__ = ["Portal", "PortalClosed"]

T = TypeVar("T")


class PortalClosed(RuntimeError):
    """The portal is not running (never started, or closed): start it first."""


class Portal:
    """A loop on a thread of its own; use it as a context manager or call :meth:`close`."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        #: submitted coroutines the loop has not turned into tasks yet (cancelled by close)
        self._unscheduled: dict[
            Future[Any], tuple[asyncio.AbstractEventLoop, Coroutine[Any, Any, Any]]
        ] = {}

    @property
    def running(self) -> bool:
        thread = self._thread
        return self._loop is not None and thread is not None and thread.is_alive()

    def start(self) -> Portal:
        """Start the loop thread (again after a close); a running portal is left as it is."""
        with self._lock:
            if self.running:
                return self
            loop = asyncio.new_event_loop()
            ready = threading.Event()

            def main() -> None:
                asyncio.set_event_loop(loop)
                loop.call_soon(ready.set)
                try:
                    loop.run_forever()
                finally:
                    _finish(loop)

            thread = threading.Thread(target=main, name=f"selectools-{self.name}", daemon=True)
            self._loop, self._thread = loop, thread
            thread.start()
            ready.wait()
        return self

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        """Schedule ``coro`` here; cancelling the returned future cancels its task."""
        loop = self._loop
        if loop is None or not self.running:
            coro.close()
            raise PortalClosed(f"the {self.name} portal is not running")
        result: Future[T] = Future()
        context = contextvars.copy_context()

        def settle(task: asyncio.Task[T]) -> None:
            if task.cancelled():
                result.cancel()
            elif not result.set_running_or_notify_cancel():
                return  # the caller cancelled it meanwhile
            elif (error := task.exception()) is not None:
                result.set_exception(error)
            else:
                result.set_result(task.result())

        def schedule() -> None:  # runs in the caller's context, so the task copies it
            with self._lock:
                if self._loop is not loop:
                    return  # the portal is closing: close() cancels the future
                self._unscheduled.pop(result, None)
            if result.cancelled():
                coro.close()
                return
            task = loop.create_task(coro)
            task.add_done_callback(settle)
            result.add_done_callback(lambda f: _cancel_from_outside(loop, task, f))

        with self._lock:
            self._unscheduled[result] = (loop, coro)
        try:
            loop.call_soon_threadsafe(schedule, context=context)
        except RuntimeError:  # closed meanwhile
            with self._lock:
                self._unscheduled.pop(result, None)
            coro.close()
            raise PortalClosed(f"the {self.name} portal is not running") from None
        return result

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` here and block until it finishes; an interrupt (Ctrl-C) cancels it."""
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError(f"{self.name} portal: call from its own thread would deadlock")
        future = self.submit(coro)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    async def acall(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` running here; cancelling the awaiting task cancels it."""
        return await asyncio.wrap_future(self.submit(coro))

    def close(self, timeout: float = 10.0) -> None:
        """Cancel what still runs, close the loop and join the thread (up to ``timeout`` s)."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop already stopped
            loop.call_soon_threadsafe(loop.stop)
        if thread is not threading.current_thread():
            thread.join(timeout)
        with self._lock:  # submitted while the loop was stopping: never started, so cancelled
            unscheduled = [(f, c) for f, (on, c) in self._unscheduled.items() if on is loop]
            for future, _ in unscheduled:
                del self._unscheduled[future]
        for future, coro in unscheduled:
            coro.close()
            future.cancel()

    def __enter__(self) -> Portal:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Portal({self.name!r}, {'running' if self.running else 'closed'})"


def _cancel_from_outside(
    loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any], future: Future[Any]
) -> None:
    """A submitter cancelled ``future``: cancel its task on the loop (if the loop still runs)."""
    if future.cancelled() and not task.done():
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(task.cancel)


def _finish(loop: asyncio.AbstractEventLoop) -> None:
    """On the loop's own thread after it stopped: cancel tasks, finalize generators, close."""
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    with contextlib.suppress(Exception):
        loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()
