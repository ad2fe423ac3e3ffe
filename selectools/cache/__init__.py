"""Response caching: skip a provider call whose exact request was answered before.

``AgentConfig(cache=...)`` makes the agent look up every non-streaming provider
call under a :class:`CacheKeyBuilder` key. A hit returns the stored
``(Message, UsageStats)`` without calling the model; its usage is still counted,
so costs reflect what the run would have spent. Streaming calls are never cached.

:class:`InMemoryCache` is a thread-safe LRU with per-entry TTL on a monotonic
clock; :class:`RedisCache` (``selectools.cache_redis``, the ``cache`` extra)
shares entries between processes. Anything with the :class:`Cache` methods can
be used instead.

Layout: ``_base`` (the protocol and counters), ``_keys`` (request keys),
``_memory`` (in-process LRU), ``_redis`` (shared; loaded on first use so redis-py
is imported only when a Redis cache is built).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._base import Cache, CacheStats
from ._keys import CacheKeyBuilder
from ._memory import InMemoryCache

if TYPE_CHECKING:
    from ._redis import RedisCache

__all__ = ["Cache", "CacheKeyBuilder", "CacheStats", "InMemoryCache", "RedisCache"]


def __getattr__(name: str) -> Any:
    if name == "RedisCache":
        from ._redis import RedisCache

        return RedisCache
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
