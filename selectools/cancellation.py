"""``CancellationToken``: ask a running agent (or graph) to stop at its next step boundary.

Cancellation is cooperative: a streamed model call stops being read, a running
tool stops being waited for (a sync tool's worker thread is abandoned, it cannot
be killed; an async tool's task is cancelled; its trace step is marked
``cancelled``), then the run ends cleanly with ``stop_reason="cancelled"`` instead
of raising. The token is thread-safe, so a button callback, another thread or an
asyncio task can cancel a run blocking elsewhere.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

__all__ = ["CancellationToken"]


class CancellationToken:
    """A one-way switch: once cancelled, it stays cancelled."""

    __slots__ = ("_callbacks", "_event", "_lock", "_reason")

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._reason: str | None = None
        self._callbacks: list[Callable[[], object]] = []

    def cancel(self, reason: str | None = None) -> bool:
        """Request cancellation; returns False if it was already cancelled (the first reason stays)."""
        with self._lock:
            if self._event.is_set():
                return False
            self._reason = reason
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()
        return True

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    @property
    def reason(self) -> str | None:
        """The reason given to :meth:`cancel`, if any."""
        return self._reason

    def wait(self, timeout: float | None = None) -> bool:
        """Block until cancelled or ``timeout`` seconds pass; True if cancelled."""
        return self._event.wait(timeout)

    def on_cancel(self, callback: Callable[[], object]) -> Callable[[], None]:
        """Call ``callback`` once on cancellation (now, if already cancelled); returns a remover."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return lambda: self._remove(callback)
        callback()
        return lambda: None

    def _remove(self, callback: Callable[[], object]) -> None:
        with self._lock:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

    def __repr__(self) -> str:
        state = f"cancelled, reason={self._reason!r}" if self.cancelled else "active"
        return f"CancellationToken({state})"
