"""A private event loop on a daemon thread that owns one MCP connection.

The MCP SDK's sessions are bound to the loop (and the task) that opened them,
while selectools calls tools from sync code, from a notebook cell that is
itself inside a running loop, and from ``agent.arun()`` on any loop. So every
SDK call runs here, and callers wait on a future: sync callers block (fine
even inside a notebook's loop, which is a different thread), async callers
await ``asyncio.wrap_future``, whose cancellation cancels the task here — that
is how an agent's timeout or a cancelled run reaches the MCP request.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

__all__ = ["Portal"]

T = TypeVar("T")


class Portal:
    def __init__(self, name: str) -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._loop is not None and self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        if self.running:
            return
        ready = threading.Event()

        def main() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            ready.set()
            try:
                loop.run_forever()
            finally:
                pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
                for task in pending:
                    task.cancel()
                if pending:
                    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
                with contextlib.suppress(Exception):
                    loop.run_until_complete(loop.shutdown_asyncgens())
                loop.close()

        self._thread = threading.Thread(
            target=main, name=f"selectools-mcp-{self._name}", daemon=True
        )
        self._thread.start()
        ready.wait()

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        loop = self._loop
        if loop is None or not self.running:
            coro.close()
            raise RuntimeError("the MCP client is not connected")
        return asyncio.run_coroutine_threadsafe(coro, loop)

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` here and block until it finishes (an interrupt cancels it)."""
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("Portal.call from the portal's own thread would deadlock")
        future = self.submit(coro)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    async def acall(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` running here; cancelling the awaiting task cancels it."""
        return await asyncio.wrap_future(self.submit(coro))

    def stop(self, timeout: float = 10.0) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if thread.is_alive():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(loop.stop)
            if thread is not threading.current_thread():
                thread.join(timeout)
        self._loop = None
        self._thread = None
