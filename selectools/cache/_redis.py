"""``RedisCache``: a response cache shared by every process that uses one Redis.

Entries are pickled ``(Message, UsageStats)`` tuples stored under ``prefix +
key`` with a server-side expiry, so stale entries disappear without any client
running. Needs the ``cache`` extra (redis-py); it is imported
when a cache is built, not when selectools is.

Pickle runs code while loading: only point this at a Redis that untrusted
clients cannot write to.
"""

from __future__ import annotations

import pickle
import threading
from typing import Any

from .._storage import glob_escape, redis_client
from ._base import CacheStats, check_ttl

__all__ = ["RedisCache"]


class RedisCache:
    """Distributed TTL cache. ``client`` may be a ready ``redis.Redis`` instead of ``url``.

    Hit and miss counters are kept per ``RedisCache`` object (per process);
    evictions happen on the server and are not counted.
    """

    def __init__(
        self,
        url: str = "redis://localhost:6379/0",
        prefix: str = "selectools:",
        default_ttl: float | None = 300,
        *,
        client: Any = None,
    ) -> None:
        if not isinstance(prefix, str):
            raise TypeError(f"prefix must be a str, got {type(prefix).__name__}")
        check_ttl("default_ttl", default_ttl)
        self.url = url
        self.prefix = prefix
        self.default_ttl = default_ttl
        self._client = client if client is not None else redis_client(url, "RedisCache", "cache")
        self._stats = CacheStats()
        self._lock = threading.Lock()

    def _key(self, key: str) -> str:
        return self.prefix + key

    def get(self, key: str) -> tuple[Any, Any] | None:
        blob = self._client.get(self._key(key))
        value = pickle.loads(blob) if blob is not None else None
        with self._lock:
            if value is None:
                self._stats.misses += 1
            else:
                self._stats.hits += 1
        return value

    def set(self, key: str, value: tuple[Any, Any], ttl: float | None = None) -> None:
        check_ttl("ttl", ttl)
        lifetime = ttl if ttl is not None else self.default_ttl
        blob = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        if lifetime is None:
            self._client.set(self._key(key), blob)
        else:
            self._client.set(self._key(key), blob, px=max(int(lifetime * 1000), 1))

    def delete(self, key: str) -> bool:
        return bool(self._client.delete(self._key(key)))

    def clear(self) -> None:
        """Delete every key under this cache's prefix (and nothing else)."""
        batch: list[Any] = []
        for name in self._client.scan_iter(match=glob_escape(self.prefix) + "*", count=500):
            batch.append(name)
            if len(batch) >= 500:
                self._client.delete(*batch)
                batch = []
        if batch:
            self._client.delete(*batch)

    @property
    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(self._stats.hits, self._stats.misses, self._stats.evictions)

    def __repr__(self) -> str:
        return (
            f"RedisCache(url={self.url!r}, prefix={self.prefix!r}, default_ttl={self.default_ttl})"
        )
