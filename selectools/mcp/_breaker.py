"""A circuit breaker: stop calling a server that keeps failing, then probe it again.

Closed: calls go through and consecutive failures are counted. At
``threshold`` failures it opens: calls fail at once (no waiting for timeouts)
until ``cooldown`` seconds have passed. Then it is half-open: one trial call
is let through; its success closes the circuit, its failure opens it for
another cooldown. The clock is injectable so tests need not sleep.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["CircuitBreaker"]


class CircuitBreaker:
    """Fails fast after ``threshold`` failures in a row, then lets one trial call through after ``cooldown`` seconds."""

    def __init__(
        self, threshold: int, cooldown: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.threshold = threshold
        self.cooldown = cooldown
        self.clock = clock
        self.failures = 0
        self._opened_at: float | None = None
        self._trial = False
        self._lock = threading.Lock()

    @property
    def state(self) -> str:
        """``"closed"``, ``"open"`` or ``"half_open"``."""
        with self._lock:
            return self._state()

    def _state(self) -> str:
        if self._opened_at is None:
            return "closed"
        if self.clock() - self._opened_at >= self.cooldown:
            return "half_open"
        return "open"

    def retry_in(self) -> float:
        """Seconds until a trial call is allowed (0 when calls may go through)."""
        with self._lock:
            if self._opened_at is None:
                return 0.0
            return max(0.0, self.cooldown - (self.clock() - self._opened_at))

    def allow(self) -> bool:
        """Whether a call may go through now (claims the single half-open trial)."""
        with self._lock:
            state = self._state()
            if state == "closed":
                return True
            if state == "half_open" and not self._trial:
                self._trial = True
                return True
            return False

    def record_success(self) -> None:
        with self._lock:
            self.failures = 0
            self._opened_at = None
            self._trial = False

    def record_failure(self) -> None:
        with self._lock:
            self.failures += 1
            if self._trial or self.failures >= self.threshold:
                self._opened_at = self.clock()
            self._trial = False

    def reset(self) -> None:
        self.record_success()

    def release(self) -> None:
        """Give back a claimed trial whose call ended without an outcome (it was cancelled)."""
        with self._lock:
            self._trial = False
