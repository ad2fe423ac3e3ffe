"""``RedisSessionStore``: sessions shared by every process that uses one Redis.

Each session is a hash (``data`` as JSON, ``created_at``, ``updated_at``)
written in one MULTI/EXEC transaction, with expiry handled by Redis itself
(``PEXPIRE``). Needs ``pip install selectools[redis]``; redis-py is imported
when a store is built.
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import quote

from .._redis import glob_escape, redis_client
from ._base import (
    SessionStoreError,
    check_namespace,
    check_session_id,
    check_ttl,
    encode_data,
    iso_timestamp,
    resolve_ttl,
    with_timestamps,
)

__all__ = ["RedisSessionStore"]


class RedisSessionStore:
    """Sessions under ``<prefix><namespace>:<session_id>`` (namespace ``default`` when unset).

    ``client`` may be a ready ``redis.Redis`` instead of ``url``. ``ttl_seconds``
    (also accepted as ``default_ttl``) sets the expiry each save renews;
    ``save(..., ttl_seconds=...)`` overrides it for one session.
    """

    def __init__(
        self,
        url: str = "redis://localhost:6379/0",
        prefix: str = "selectools:session:",
        ttl_seconds: float | None = None,
        *,
        default_ttl: float | None = None,
        namespace: str | None = None,
        client: Any = None,
    ) -> None:
        if not isinstance(prefix, str):
            raise TypeError(f"prefix must be a str, got {type(prefix).__name__}")
        self.ttl_seconds = resolve_ttl(ttl_seconds, default_ttl)
        self.namespace = check_namespace(namespace)
        self.url = url
        self.prefix = prefix
        self._base = f"{prefix}{quote(self.namespace or 'default', safe='-_.@')}:"
        self._client = client if client is not None else redis_client(url, "RedisSessionStore")

    def _key(self, session_id: str) -> str:
        return self._base + check_session_id(session_id)

    def save(
        self, session_id: str, data: dict[str, Any], *, ttl_seconds: float | None = None
    ) -> None:
        """Write the session in one transaction and (re)start its expiry."""
        key = self._key(session_id)
        check_ttl(ttl_seconds)
        body = encode_data(data)
        now = time.time()
        ttl = ttl_seconds if ttl_seconds is not None else self.ttl_seconds
        pipe = self._client.pipeline(transaction=True)
        pipe.hsetnx(key, "created_at", iso_timestamp(now))
        pipe.hset(key, mapping={"data": body, "updated_at": iso_timestamp(now)})
        if ttl is None:
            pipe.persist(key)
        else:
            pipe.pexpire(key, max(int(ttl * 1000), 1))
        pipe.execute()

    def load(self, session_id: str) -> dict[str, Any] | None:
        """The saved dict (plus ``session_id``, ``created_at``, ``updated_at``), or None."""
        key = self._key(session_id)
        body, created, updated = self._client.hmget(key, ["data", "created_at", "updated_at"])
        if body is None:
            return None
        try:
            data = json.loads(body)
            if not isinstance(data, dict):
                raise ValueError("the stored data is not a JSON object")
        except ValueError as exc:
            raise SessionStoreError(
                f"session {session_id!r} at Redis key {key!r} cannot be read ({exc}); "
                "it was left untouched"
            ) from None
        return with_timestamps(data, session_id, _text(created), _text(updated))

    def exists(self, session_id: str) -> bool:
        return bool(self._client.exists(self._key(session_id)))

    def delete(self, session_id: str) -> None:
        """Remove the session; no-op when it does not exist."""
        self._client.delete(self._key(session_id))

    def list_sessions(self) -> list[str]:
        """Ids of the sessions that have not expired, sorted."""
        start = len(self._base)
        ids = (
            _text(name)[start:]
            for name in self._client.scan_iter(match=glob_escape(self._base) + "*", count=500)
        )
        return sorted(ids)

    def __repr__(self) -> str:
        return f"RedisSessionStore(url={self.url!r}, prefix={self.prefix!r}, ttl_seconds={self.ttl_seconds})"


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8")
    return "" if value is None else str(value)
