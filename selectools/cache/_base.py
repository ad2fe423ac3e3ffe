"""The cache contract: the :class:`Cache` protocol the agent calls and the :class:`CacheStats` counters.

Every backend (:mod:`._memory`, :mod:`._redis`, or a user's own) satisfies the
protocol; the TTL check is shared so all backends refuse the same bad values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["Cache", "CacheStats", "check_ttl"]


@dataclass
class CacheStats:
    """Hit, miss and eviction counters of one cache."""

    hits: int = 0
    misses: int = 0
    evictions: int = 0

    @property
    def total_requests(self) -> int:
        return self.hits + self.misses

    @property
    def hit_rate(self) -> float:
        """Hits as a fraction of lookups (0.0 before the first lookup)."""
        total = self.total_requests
        return self.hits / total if total > 0 else 0.0

    def __repr__(self) -> str:
        return (
            f"CacheStats(hits={self.hits}, misses={self.misses}, "
            f"evictions={self.evictions}, hit_rate={self.hit_rate:.2%})"
        )


@runtime_checkable
class Cache(Protocol):
    """What the agent needs from a cache backend."""

    def get(self, key: str) -> tuple[Any, Any] | None: ...

    def set(self, key: str, value: tuple[Any, Any], ttl: int | None = None) -> None: ...

    def delete(self, key: str) -> bool: ...

    def clear(self) -> None: ...

    @property
    def stats(self) -> CacheStats: ...


def check_ttl(name: str, ttl: float | None) -> None:
    """Refuse a TTL that is not a positive number of seconds (``None`` means no expiry)."""
    if ttl is not None and (isinstance(ttl, bool) or not ttl > 0):
        raise ValueError(f"{name} must be a number of seconds > 0 or None, got {ttl!r}")
