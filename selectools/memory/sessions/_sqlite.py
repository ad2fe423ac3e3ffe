"""``SQLiteSessionStore``: every session in one SQLite file, each save one transaction.

The table keeps the documented columns (``session_id``, ``data`` as JSON,
``created_at``/``updated_at`` as ISO 8601) plus a namespace, the numeric update
time and an optional per-session TTL. The database is opened the way every
selectools SQLite store is (:func:`selectools._storage.open_sqlite`: WAL,
``synchronous=FULL``, format version in ``PRAGMA user_version``), so a process
killed mid-save leaves the last committed session, several processes can read
while one writes, and a database from a newer selectools is refused.
:meth:`SQLiteSessionStore.lock` is a per-session lock file beside the database
(``<db>.locks/``) that an agent holds for a whole turn.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..._storage import (
    DEFAULT_TIMEOUT,
    NewerFormatError,
    new_file_lock,
    open_sqlite,
    transaction,
    try_acquire,
)
from ._base import (
    FORMAT_VERSION,
    SessionLock,
    SessionStoreError,
    check_namespace,
    check_session_id,
    check_ttl,
    encode_data,
    iso_timestamp,
    resolve_ttl,
    with_timestamps,
)

if TYPE_CHECKING:
    import sqlite3

__all__ = ["SQLiteSessionStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    namespace TEXT NOT NULL DEFAULT '',
    session_id TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    updated_ts REAL NOT NULL,
    ttl_seconds REAL,
    PRIMARY KEY (namespace, session_id)
)
"""

_UPSERT = """
INSERT INTO sessions (namespace, session_id, data, created_at, updated_at, updated_ts, ttl_seconds)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (namespace, session_id) DO UPDATE SET
    data = excluded.data,
    updated_at = excluded.updated_at,
    updated_ts = excluded.updated_ts,
    ttl_seconds = excluded.ttl_seconds
"""

# live: no TTL (own or the store's), or updated less than TTL seconds ago
_LIVE = "(COALESCE(ttl_seconds, ?) IS NULL OR ? - updated_ts < COALESCE(ttl_seconds, ?))"


class SQLiteSessionStore:
    """Sessions in the SQLite database at ``db_path``.

    ``ttl_seconds`` (also accepted as ``default_ttl``) expires sessions not
    saved for that long; ``save(..., ttl_seconds=...)`` overrides it for one
    session. ``namespace`` keeps several stores apart in one database.
    ``clock`` returns epoch seconds (replace it in tests).
    """

    def __init__(
        self,
        db_path: str | os.PathLike[str] = "sessions.db",
        ttl_seconds: float | None = None,
        *,
        default_ttl: float | None = None,
        namespace: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.ttl_seconds = resolve_ttl(ttl_seconds, default_ttl)
        self.namespace = check_namespace(namespace)
        self.db_path = os.fspath(db_path)
        self._clock = clock
        self._local = threading.local()
        self._connection()  # create (or check) the database now

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection (opened, schema and format checked, on first use)."""
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None or getattr(self._local, "pid", None) != os.getpid():
            try:
                db = open_sqlite(
                    self.db_path,
                    _SCHEMA,
                    what="session store",
                    format_version=FORMAT_VERSION,
                    error=SessionStoreError,
                )
            except NewerFormatError as exc:
                raise SessionStoreError(str(exc)) from None
            self._local.db, self._local.pid = db, os.getpid()
        return db

    def close(self) -> None:
        """Close this thread's connection (the next call opens a new one)."""
        db = getattr(self._local, "db", None)
        if db is not None:
            self._local.db = None
            db.close()

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        yield self._connection()

    def _live_args(self) -> tuple[Any, Any, Any]:
        return (self.ttl_seconds, self._clock(), self.ttl_seconds)

    def save(
        self, session_id: str, data: dict[str, Any], *, ttl_seconds: float | None = None
    ) -> None:
        """Insert or replace the session in one transaction (``created_at`` is kept)."""
        check_session_id(session_id)
        check_ttl(ttl_seconds)
        body = encode_data(data)
        now = self._clock()
        stamp = iso_timestamp(now)
        row = (self.namespace or "", session_id, body, stamp, stamp, now, ttl_seconds)
        with self._connect() as db, transaction(db):
            db.execute(_UPSERT, row)

    def load(self, session_id: str) -> dict[str, Any] | None:
        """The saved dict (plus ``session_id``, ``created_at``, ``updated_at``), or None."""
        check_session_id(session_id)
        with self._connect() as db:
            row = db.execute(
                f"SELECT data, created_at, updated_at FROM sessions "
                f"WHERE namespace = ? AND session_id = ? AND {_LIVE}",
                (self.namespace or "", session_id, *self._live_args()),
            ).fetchone()
        if row is None:
            return None
        try:
            data = json.loads(row[0])
            if not isinstance(data, dict):
                raise ValueError("the stored data is not a JSON object")
        except ValueError as exc:
            raise SessionStoreError(
                f"session {session_id!r} in {self.db_path} cannot be read ({exc}); "
                "it was left untouched"
            ) from None
        return with_timestamps(data, session_id, row[1], row[2])

    def exists(self, session_id: str) -> bool:
        check_session_id(session_id)
        with self._connect() as db:
            row = db.execute(
                f"SELECT 1 FROM sessions WHERE namespace = ? AND session_id = ? AND {_LIVE}",
                (self.namespace or "", session_id, *self._live_args()),
            ).fetchone()
        return row is not None

    def delete(self, session_id: str) -> None:
        """Remove the session; no-op when it does not exist."""
        check_session_id(session_id)
        with self._connect() as db:
            db.execute(
                "DELETE FROM sessions WHERE namespace = ? AND session_id = ?",
                (self.namespace or "", session_id),
            )

    def list_sessions(self) -> list[str]:
        """Ids of the sessions that have not expired, sorted."""
        with self._connect() as db:
            rows = db.execute(
                f"SELECT session_id FROM sessions WHERE namespace = ? AND {_LIVE} "
                "ORDER BY session_id",
                (self.namespace or "", *self._live_args()),
            ).fetchall()
        return [row[0] for row in rows]

    def lock(self, session_id: str, timeout: float = DEFAULT_TIMEOUT) -> SessionLock:
        """The session's lock (a lock file in ``<db_path>.locks/``), for one turn across processes."""
        check_session_id(session_id)
        key = f"{self.namespace or ''}\0{session_id}".encode()
        name = hashlib.sha256(key).hexdigest()[:32] + ".lock"
        held = new_file_lock(Path(f"{self.db_path}.locks") / name, timeout)

        return SessionLock(
            f"session {session_id!r} in {self.db_path}",
            timeout,
            partial(try_acquire, held),
            held.release,
        )

    def set_aside(self, session_id: str) -> str | None:
        """Move a damaged session out of the way (to ``sessions_set_aside``); where it went."""
        check_session_id(session_id)
        key = (self.namespace or "", session_id)
        with self._connect() as db, transaction(db):
            db.execute(
                "CREATE TABLE IF NOT EXISTS sessions_set_aside AS SELECT * FROM sessions WHERE 0"
            )
            moved = db.execute(
                "INSERT INTO sessions_set_aside SELECT * FROM sessions "
                "WHERE namespace = ? AND session_id = ?",
                key,
            ).rowcount
            db.execute("DELETE FROM sessions WHERE namespace = ? AND session_id = ?", key)
        return f"table sessions_set_aside of {self.db_path}" if moved else None

    def __repr__(self) -> str:
        return f"SQLiteSessionStore(db_path={self.db_path!r}, ttl_seconds={self.ttl_seconds})"
