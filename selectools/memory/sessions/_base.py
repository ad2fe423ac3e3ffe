"""What every session store shares: the protocol, id and TTL checks, timestamps, encoding, locks."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any, Protocol, runtime_checkable

from ..._storage import LockTimeout
from ...exceptions import SelectoolsError

__all__ = [
    "FORMAT_VERSION",
    "SessionFormatError",
    "SessionLock",
    "SessionStore",
    "SessionStoreError",
    "check_format",
    "check_namespace",
    "check_session_id",
    "encode_data",
    "is_expired",
    "iso_timestamp",
    "resolve_ttl",
    "with_timestamps",
]


@runtime_checkable
class SessionStore(Protocol):
    """Persists conversation state by session id; expired sessions count as missing."""

    def save(self, session_id: str, data: dict[str, Any]) -> None: ...

    def load(self, session_id: str) -> dict[str, Any] | None: ...

    def exists(self, session_id: str) -> bool: ...

    def delete(self, session_id: str) -> None: ...

    def list_sessions(self) -> list[str]: ...


class SessionStoreError(SelectoolsError, ValueError):
    """A stored session cannot be read (damaged or written by something else); it is left as is."""


class SessionFormatError(SessionStoreError):
    """A stored session was written by a newer selectools: refused, never read or overwritten."""


#: the session record format this version writes (and the newest it reads)
FORMAT_VERSION = 1


def check_format(found: Any, where: str) -> None:
    """Refuse a record written in a newer (or unknown) format; it must not be read or overwritten."""
    if found is None:
        return
    try:
        number = int(found)
    except (TypeError, ValueError):
        number = -1
    if number < 1 or number > FORMAT_VERSION:
        raise SessionFormatError(
            f"{where} was written in session format {found!r} by a newer selectools; this version "
            f"reads format {FORMAT_VERSION}. Upgrade selectools (a newer selectools-jupyter) to use "
            "it; it was left untouched."
        )


class SessionLock:
    """One session's lock, held across processes for a whole turn (load, run, save).

    ``acquire()`` waits up to the timeout and raises :class:`~selectools._storage.LockTimeout`;
    ``release()`` may be called from another thread. Also a context manager.
    """

    def __init__(
        self,
        what: str,
        timeout: float,
        acquire: Callable[[float], bool],
        release: Callable[[], None],
    ) -> None:
        self._what = what
        self.timeout = timeout
        self._acquire = acquire
        self._release = release
        self._held = False
        self._guard = threading.Lock()

    def acquire(self) -> None:
        if not self._acquire(self.timeout):
            raise LockTimeout(
                f"{self._what} stayed locked by another turn for {self.timeout:g}s "
                "(AgentConfig.session_lock_timeout): another process or thread is running a turn "
                "on this session"
            )
        with self._guard:
            self._held = True

    def release(self) -> None:
        with self._guard:
            if not self._held:
                return
            self._held = False
        self._release()

    def __enter__(self) -> SessionLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def resolve_ttl(ttl_seconds: float | None, default_ttl: float | None) -> float | None:
    """The store's TTL from either spelling (``ttl_seconds`` or ``default_ttl``)."""
    if ttl_seconds is not None and default_ttl is not None:
        raise ValueError(
            "pass ttl_seconds or default_ttl, not both: they are two names of the same setting"
        )
    ttl = ttl_seconds if ttl_seconds is not None else default_ttl
    check_ttl(ttl)
    return ttl


def check_ttl(ttl: float | None, name: str = "ttl_seconds") -> None:
    if ttl is not None and (isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or ttl <= 0):
        raise ValueError(f"{name} must be a number of seconds > 0 or None, got {ttl!r}")


def check_session_id(session_id: Any) -> str:
    if not isinstance(session_id, str) or not session_id:
        raise ValueError(f"session_id must be a non-empty string, got {session_id!r}")
    if len(session_id) > 200:
        raise ValueError(f"session_id is {len(session_id)} characters long; the limit is 200")
    return session_id


def check_namespace(namespace: Any) -> str | None:
    if namespace is None:
        return None
    if not isinstance(namespace, str) or not namespace:
        raise ValueError(f"namespace must be a non-empty string or None, got {namespace!r}")
    return check_session_id(namespace)


def iso_timestamp(epoch: float) -> str:
    """ISO 8601 in UTC, e.g. ``2026-03-13T10:00:00.123456Z``."""
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat().replace("+00:00", "Z")


def is_expired(updated_ts: float, ttl: float | None, now: float) -> bool:
    return ttl is not None and now - updated_ts >= ttl


def encode_data(data: Any) -> str:
    """The session as JSON text, checked before anything is written."""
    if not isinstance(data, dict):
        raise TypeError(f"session data must be a dict, got {type(data).__name__}")
    try:
        return json.dumps(data, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"session data must be JSON-serialisable (dicts, lists, str, numbers, bool, None): {exc}"
        ) from None


def with_timestamps(
    data: dict[str, Any], session_id: str, created_at: str, updated_at: str
) -> dict[str, Any]:
    """What ``load`` returns: the saved dict plus id and timestamps (keys it had are kept)."""
    data.setdefault("session_id", session_id)
    data.setdefault("created_at", created_at)
    data.setdefault("updated_at", updated_at)
    return data
