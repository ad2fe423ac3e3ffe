"""``RedisSessionStore``: sessions shared by every process that uses one Redis.

Each session is a hash (``data`` as JSON, ``created_at``, ``updated_at``,
``format``) written by one server-side script, so a save is all or nothing and
never overwrites a session written in a newer format; expiry is handled by
Redis itself (``PEXPIRE``). :meth:`RedisSessionStore.lock` is a Redis lock
(redis-py's, with a lease renewed while held, so a killed worker's lock expires)
that an agent holds for a whole turn. Needs the ``redis`` extra;
redis-py is imported when a store is built.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from typing import Any
from urllib.parse import quote

from ..._storage import DEFAULT_TIMEOUT, glob_escape, redis_client
from ._base import (
    FORMAT_VERSION,
    SessionLock,
    SessionStoreError,
    check_format,
    check_namespace,
    check_session_id,
    check_ttl,
    encode_data,
    iso_timestamp,
    resolve_ttl,
    with_timestamps,
)

__all__ = ["RedisSessionStore"]

# KEYS[1] the session; ARGV: data, now (ISO), format, ttl in ms ("" for none)
_SAVE = """
local found = redis.call('HGET', KEYS[1], 'format')
if found and (tonumber(found) == nil or tonumber(found) > tonumber(ARGV[3])) then
  return redis.error_reply('NEWER_FORMAT ' .. found)
end
redis.call('HSETNX', KEYS[1], 'created_at', ARGV[2])
redis.call('HSET', KEYS[1], 'data', ARGV[1], 'updated_at', ARGV[2], 'format', ARGV[3])
if ARGV[4] == '' then
  redis.call('PERSIST', KEYS[1])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
return 1
"""

#: how long a turn's lock outlives a killed worker (renewed every third of it while held)
LOCK_LEASE_SECONDS = 30.0


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
        # locks and set-aside sessions: "!" is never in a quoted namespace, so never listed
        self._side = f"{prefix}!{quote(self.namespace or 'default', safe='-_.@')}:"
        self._client = client if client is not None else redis_client(url, "RedisSessionStore")
        self._save_script = self._client.register_script(_SAVE)

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
        expiry = "" if ttl is None else str(max(int(ttl * 1000), 1))
        import redis

        try:
            self._save_script(keys=[key], args=[body, iso_timestamp(now), FORMAT_VERSION, expiry])
        except redis.ResponseError as exc:
            if "NEWER_FORMAT" not in str(exc):
                raise
            check_format(
                str(exc).rsplit(" ", 1)[-1], f"session {session_id!r} at Redis key {key!r}"
            )
            raise

    def load(self, session_id: str) -> dict[str, Any] | None:
        """The saved dict (plus ``session_id``, ``created_at``, ``updated_at``), or None."""
        key = self._key(session_id)
        body, created, updated, found = self._client.hmget(
            key, ["data", "created_at", "updated_at", "format"]
        )
        if body is None:
            return None
        check_format(
            None if found is None else _text(found), f"session {session_id!r} at Redis key {key!r}"
        )
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

    def lock(self, session_id: str, timeout: float = DEFAULT_TIMEOUT) -> SessionLock:
        """The session's lock in Redis, for one turn across processes and machines."""
        name = self._side + "lock:" + check_session_id(session_id)
        held = self._client.lock(name, timeout=LOCK_LEASE_SECONDS, thread_local=False)
        stop = threading.Event()

        def renew() -> None:
            while not stop.wait(LOCK_LEASE_SECONDS / 3):
                try:
                    held.reacquire()
                except Exception:  # lost or unreachable: the lease runs out on its own
                    return

        def acquire(wait: float) -> bool:
            deadline = time.monotonic() + wait
            while not held.acquire(blocking=False):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                time.sleep(min(0.05, left))
            stop.clear()
            threading.Thread(target=renew, name="selectools-session-lock", daemon=True).start()
            return True

        def release() -> None:
            stop.set()
            with contextlib.suppress(Exception):  # the lease ran out: nothing to release
                held.release()

        return SessionLock(
            f"session {session_id!r} at Redis key {name!r}", timeout, acquire, release
        )

    def set_aside(self, session_id: str) -> str | None:
        """Move a damaged session to a key of its own (kept, never listed); returns that key."""
        key = self._key(session_id)
        kept = f"{self._side}set-aside:{session_id}:{int(time.time() * 1000)}"
        if not self._client.exists(key):
            return None
        self._client.rename(key, kept)
        return f"Redis key {kept!r}"

    def __repr__(self) -> str:
        return f"RedisSessionStore(url={self.url!r}, prefix={self.prefix!r}, ttl_seconds={self.ttl_seconds})"


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8")
    return "" if value is None else str(value)
