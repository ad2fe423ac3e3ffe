"""``agent.start(...)``: a run in a background thread, returned as a :class:`RunHandle`.

The handle can be polled (``done()``, ``status``), waited for (``result(timeout)``
or ``await handle``) and cancelled (``cancel()``: the run stops at its next step,
or inside a streaming model call, with ``stop_reason="cancelled"``). In a
notebook the cell that started it finishes at once; approval cards of the run
can still be answered because the kernel is idle and reads their messages.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

from ..cancellation import CancellationToken

if TYPE_CHECKING:
    from ..types import AgentResult

__all__ = ["RunHandle"]


class RunHandle:
    """One background run: ``target(token)`` in a daemon thread, cancellable through ``token``."""

    def __init__(self, target: Callable[[CancellationToken], AgentResult], name: str) -> None:
        self.name = name
        self.token = CancellationToken()
        self._done = threading.Event()
        self._result: AgentResult | None = None
        self._error: BaseException | None = None
        self._callbacks: list[Callable[[RunHandle], Any]] = []
        self._lock = threading.Lock()
        context = contextvars.copy_context()  # a kernel routes output by the cell's context
        self._thread = threading.Thread(
            target=context.run, args=(self._work, target), name=f"selectools-{name}", daemon=True
        )
        self._thread.start()

    def _work(self, target: Callable[[CancellationToken], AgentResult]) -> None:
        try:
            self._result = target(self.token)
        except BaseException as exc:  # kept for result(); the thread ends quietly
            self._error = exc
        with self._lock:
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)

    # -- polling -------------------------------------------------------------------
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def status(self) -> str:
        """``running``, ``failed``, or the run's stop reason (``final``, ``cancelled``...)."""
        if not self._done.is_set():
            return "running"
        if self._error is not None:
            return "failed"
        assert self._result is not None
        return str(self._result.stop_reason)

    def add_done_callback(self, callback: Callable[[RunHandle], Any]) -> None:
        """Call ``callback(handle)`` when the run ends (now, if it has)."""
        with self._lock:
            if not self._done.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    # -- waiting -------------------------------------------------------------------
    def result(self, timeout: float | None = None) -> AgentResult:
        """The run's result (its exception, re-raised, if it failed); waits up to ``timeout``."""
        if not self._done.wait(timeout):
            raise TimeoutError(f"the background run {self.name!r} is still running")
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result

    def __await__(self) -> Generator[Any, None, AgentResult]:
        return self._wait_async().__await__()

    async def _wait_async(self) -> AgentResult:
        import asyncio

        await asyncio.to_thread(self._done.wait)
        return self.result()

    # -- stopping -------------------------------------------------------------------
    def cancel(self, reason: str = "cancelled") -> bool:
        """Ask the run to stop; False if it was already asked or has ended."""
        return not self._done.is_set() and self.token.cancel(reason)

    def __repr__(self) -> str:
        return f"RunHandle({self.name!r}, {self.status})"
