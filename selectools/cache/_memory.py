"""``InMemoryCache``: a thread-safe LRU with per-entry TTL on a monotonic clock (no dependencies)."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ._base import CacheStats, check_ttl

__all__ = ["InMemoryCache"]


class InMemoryCache:
    """Thread-safe LRU cache with per-entry expiry; no dependencies.

    ``max_size`` bounds the number of entries (the least recently used one is
    evicted first); ``default_ttl`` is the lifetime in seconds of entries set
    without their own ``ttl`` (``None``: until evicted). ``clock`` is the
    monotonic clock expiry is measured on (replace it in tests).
    """

    #: Lookups are in-process and never block, so async runs call it directly.
    in_process = True

    def __init__(
        self,
        max_size: int = 1000,
        default_ttl: float | None = 300,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1:
            raise ValueError(f"max_size must be an int >= 1, got {max_size!r}")
        check_ttl("default_ttl", default_ttl)
        self.max_size = max_size
        self.default_ttl = default_ttl
        self._clock = clock
        self._entries: OrderedDict[str, tuple[tuple[Any, Any], float | None]] = OrderedDict()
        self._lock = threading.Lock()
        self._stats = CacheStats()

    def get(self, key: str) -> tuple[Any, Any] | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                value, expires = entry
                if expires is None or self._clock() < expires:
                    self._entries.move_to_end(key)
                    self._stats.hits += 1
                    return value
                del self._entries[key]
            self._stats.misses += 1
            return None

    def set(self, key: str, value: tuple[Any, Any], ttl: float | None = None) -> None:
        check_ttl("ttl", ttl)
        lifetime = ttl if ttl is not None else self.default_ttl
        expires = None if lifetime is None else self._clock() + lifetime
        with self._lock:
            self._entries[key] = (value, expires)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_size:
                self._entries.popitem(last=False)
                self._stats.evictions += 1

    def delete(self, key: str) -> bool:
        with self._lock:
            return self._entries.pop(key, None) is not None

    def clear(self) -> None:
        """Drop every entry (the stats are kept)."""
        with self._lock:
            self._entries.clear()

    @property
    def stats(self) -> CacheStats:
        """A snapshot of the counters."""
        with self._lock:
            return CacheStats(self._stats.hits, self._stats.misses, self._stats.evictions)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def __repr__(self) -> str:
        return f"InMemoryCache(max_size={self.max_size}, default_ttl={self.default_ttl}, entries={len(self)})"
