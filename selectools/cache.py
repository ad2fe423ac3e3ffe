"""Response caching: skip a provider call whose exact request was answered before.

``AgentConfig(cache=...)`` makes the agent look up every non-streaming provider
call under a :class:`CacheKeyBuilder` key. A hit returns the stored
``(Message, UsageStats)`` without calling the model; its usage is still counted,
so costs reflect what the run would have spent. Streaming calls are never cached.

:class:`InMemoryCache` is a thread-safe LRU with per-entry TTL on a monotonic
clock; :class:`~selectools.cache_redis.RedisCache` shares entries between
processes. Anything with the :class:`Cache` methods can be used instead.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .tools import ToolLike
    from .types import Message

__all__ = ["Cache", "CacheKeyBuilder", "CacheStats", "InMemoryCache"]


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


def _check_ttl(name: str, ttl: float | None) -> None:
    if ttl is not None and (isinstance(ttl, bool) or not ttl > 0):
        raise ValueError(f"{name} must be a number of seconds > 0 or None, got {ttl!r}")


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
        _check_ttl("default_ttl", default_ttl)
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
        _check_ttl("ttl", ttl)
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


class CacheKeyBuilder:
    """Deterministic cache keys: ``"selectools:" + sha256`` of the request.

    Hashed: the model, the system prompt, each message's role, content, tool
    calls (name and arguments; call ids are random per run and left out), tool
    name and attached image, each
    tool's name, description and parameter schema (in order: tool order
    matters), and the temperature.
    """

    PREFIX = "selectools:"

    @staticmethod
    def build(
        model: str,
        system_prompt: str,
        messages: Sequence[Message],
        tools: Sequence[ToolLike] | None,
        temperature: float,
    ) -> str:
        payload = {
            "model": model,
            "system_prompt": system_prompt,
            "messages": [_message_fingerprint(m) for m in messages],
            "tools": [_tool_fingerprint(t) for t in tools or ()],
            "temperature": temperature,
        }
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=repr)
        return CacheKeyBuilder.PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _message_fingerprint(message: Message) -> list[Any]:
    content: Any = message.content
    if isinstance(content, list):
        content = [part.to_dict() for part in content]
    calls = [[c.tool_name, c.parameters] for c in message.tool_calls or ()]
    return [
        message.role.value,
        content,
        calls,
        message.tool_name,
        message.image_path,
        message.image_base64,
    ]


def _tool_fingerprint(tool: ToolLike) -> list[Any]:
    schema = tool.schema()
    return [schema["name"], schema["description"], schema["parameters"]]
