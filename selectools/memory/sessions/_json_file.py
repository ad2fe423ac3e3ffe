"""``JsonFileSessionStore``: one human-readable JSON file per session.

Saves are atomic and durable (:func:`selectools._storage.atomic_write_bytes`:
temporary file, fsync, rename), so a crash at any moment leaves either the old
or the new session, never a mix. Writers take the directory's lock file, so two
processes saving at once cannot interleave; readers need no lock. Temporary
files left by a killed writer are removed by the next save. :meth:`lock` is a
per-session lock file that an agent holds for a whole turn.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from ..._storage import (
    DEFAULT_TIMEOUT,
    atomic_write_bytes,
    file_lock,
    fsync_directory,
    new_file_lock,
    remove_orphans,
    try_acquire,
)
from ._base import (
    FORMAT_VERSION,
    SessionLock,
    SessionStoreError,
    check_format,
    check_namespace,
    check_session_id,
    check_ttl,
    encode_data,
    is_expired,
    iso_timestamp,
    resolve_ttl,
    with_timestamps,
)

__all__ = ["JsonFileSessionStore"]

_LOCK_NAME = ".selectools-sessions.lock"
_SAFE = "-_.@+=,"


def _file_stem(session_id: str) -> str:
    """A file name for any session id (percent-encoded; never hidden, never a path)."""
    stem = quote(session_id, safe=_SAFE)
    return "%2E" + stem[1:] if stem.startswith(".") else stem


class JsonFileSessionStore:
    """Sessions as ``<directory>/<session_id>.json`` (or ``<directory>/<namespace>/...``).

    ``ttl_seconds`` (also accepted as ``default_ttl``) expires sessions not
    saved for that long; ``save(..., ttl_seconds=...)`` overrides it for one
    session. ``namespace`` keeps several stores apart in one directory.
    ``clock`` returns epoch seconds (replace it in tests).
    """

    def __init__(
        self,
        directory: str | os.PathLike[str] = "./sessions",
        ttl_seconds: float | None = None,
        *,
        default_ttl: float | None = None,
        namespace: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.ttl_seconds = resolve_ttl(ttl_seconds, default_ttl)
        self.namespace = check_namespace(namespace)
        root = Path(directory)
        self.directory = root / _file_stem(self.namespace) if self.namespace else root
        self.directory.mkdir(parents=True, exist_ok=True)
        self._clock = clock

    def _path(self, session_id: str) -> Path:
        return self.directory / (_file_stem(check_session_id(session_id)) + ".json")

    # -- writing ------------------------------------------------------------
    def save(
        self, session_id: str, data: dict[str, Any], *, ttl_seconds: float | None = None
    ) -> None:
        """Write ``data`` atomically; ``ttl_seconds`` overrides the store's TTL for this session."""
        path = self._path(session_id)
        check_ttl(ttl_seconds)
        encode_data(data)  # fail on unserialisable data before touching the disk
        with file_lock(self.directory / _LOCK_NAME):
            remove_orphans(self.directory, ".json")
            now = self._clock()
            previous = self._read(path)  # damaged or newer: raises, and the file stays as is
            created = previous["created_at"] if previous is not None else iso_timestamp(now)
            record = {
                "format": FORMAT_VERSION,
                "session_id": session_id,
                "created_at": created,
                "updated_at": iso_timestamp(now),
                "updated_ts": now,
                "ttl_seconds": ttl_seconds,
                "data": data,
            }
            atomic_write_bytes(path, json.dumps(record, ensure_ascii=False, indent=2).encode())

    def delete(self, session_id: str) -> None:
        """Remove the session; no-op when it does not exist."""
        path = self._path(session_id)
        with file_lock(self.directory / _LOCK_NAME):
            path.unlink(missing_ok=True)
            fsync_directory(self.directory)

    def lock(self, session_id: str, timeout: float = DEFAULT_TIMEOUT) -> SessionLock:
        """The session's lock (a lock file next to it), for one turn across processes."""
        path = self._path(session_id)
        held = new_file_lock(path.with_name(f".{path.stem}.turn-lock"), timeout)

        return SessionLock(
            f"session {session_id!r} in {self.directory}",
            timeout,
            partial(try_acquire, held),
            held.release,
        )

    def set_aside(self, session_id: str) -> str | None:
        """Move a damaged session out of the way (renamed, kept); returns where it went."""
        path = self._path(session_id)
        with file_lock(self.directory / _LOCK_NAME):
            if not path.exists():
                return None
            kept = path.with_name(f"{path.name}.damaged-{int(self._clock() * 1000)}")
            os.replace(path, kept)
            fsync_directory(self.directory)
        return str(kept)

    # -- reading ------------------------------------------------------------
    def _read(self, path: Path) -> dict[str, Any] | None:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            record = json.loads(text)
            if not isinstance(record, dict):
                raise ValueError("not a session record")
            check_format(record.get("format"), str(path))
            if not isinstance(record.get("data"), dict):
                raise ValueError("not a session record")
            float(record["updated_ts"])
        except SessionStoreError:
            raise
        except (ValueError, KeyError, TypeError) as exc:
            raise SessionStoreError(
                f"{path} is not a session file this store can read ({exc}). It was left "
                "untouched: move or fix it, or delete it to start the session afresh."
            ) from None
        return record

    def _live(self, path: Path) -> dict[str, Any] | None:
        record = self._read(path)
        if record is None:
            return None
        ttl = record.get("ttl_seconds")
        if is_expired(
            float(record["updated_ts"]), ttl if ttl is not None else self.ttl_seconds, self._clock()
        ):
            return None
        return record

    def load(self, session_id: str) -> dict[str, Any] | None:
        """The saved dict (plus ``session_id``, ``created_at``, ``updated_at``), or None."""
        record = self._live(self._path(session_id))
        if record is None:
            return None
        return with_timestamps(
            record["data"], session_id, record["created_at"], record["updated_at"]
        )

    def exists(self, session_id: str) -> bool:
        return self._live(self._path(session_id)) is not None

    def list_sessions(self) -> list[str]:
        """Ids of the sessions that have not expired, sorted."""
        ids = []
        for path in self.directory.glob("*.json"):
            try:
                live = self._live(path) is not None
            except SessionStoreError:
                live = False
            if live:
                ids.append(unquote(path.name[: -len(".json")]))
        return sorted(ids)

    def __repr__(self) -> str:
        return f"JsonFileSessionStore(directory={str(self.directory)!r}, ttl_seconds={self.ttl_seconds})"
