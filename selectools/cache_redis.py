"""Where ``RedisCache`` was documented: re-exported from :mod:`selectools.cache` (the ``cache`` extra)."""

from __future__ import annotations

from .cache._redis import RedisCache

__all__ = ["RedisCache"]
