"""Shared Redis helpers: a lazily imported client and literal key patterns."""

from __future__ import annotations

from typing import Any

__all__ = ["glob_escape", "redis_client"]


def redis_client(url: str, feature: str, extra: str = "redis") -> Any:
    """A ``redis.Redis`` for ``url``; redis-py is imported here, not with selectools."""
    try:
        import redis
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            f"{feature} needs the redis package: pip install 'selectools[{extra}]'"
        ) from None
    return redis.Redis.from_url(url)


def glob_escape(text: str) -> str:
    """Escape Redis MATCH wildcards so a key prefix matches literally."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)
