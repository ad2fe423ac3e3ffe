"""``SQLiteKnowledgeStore``: entries and long-term facts in one SQLite file.

Each write is one transaction (WAL journal, 30 s busy timeout): a killed
process leaves the database as it was before or after the write, and
processes sharing the file wait for each other instead of losing records.
``PRAGMA user_version`` holds the format version.
"""

from __future__ import annotations

import threading
from datetime import datetime, timezone
from pathlib import Path

from ..._storage import transaction
from .._store import open_store_db
from ._entry import KnowledgeEntry

__all__ = ["SQLiteKnowledgeStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS knowledge_entries (
    id TEXT PRIMARY KEY,
    timestamp TEXT NOT NULL,
    category TEXT NOT NULL,
    content TEXT NOT NULL,
    persistent INTEGER NOT NULL DEFAULT 0,
    importance REAL NOT NULL DEFAULT 0.5,
    ttl_days REAL
);
CREATE INDEX IF NOT EXISTS idx_knowledge_timestamp ON knowledge_entries(timestamp);
CREATE TABLE IF NOT EXISTS knowledge_facts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    category TEXT NOT NULL,
    content TEXT NOT NULL,
    UNIQUE(category, content)
);
"""


def _iso(when: datetime) -> str:
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class SQLiteKnowledgeStore:
    """Knowledge in a SQLite database at ``db_path``."""

    def __init__(self, db_path: str | Path = "knowledge.db") -> None:
        self.db_path = str(db_path)
        self._lock = threading.Lock()
        self._conn = open_store_db(self.db_path, _SCHEMA, "knowledge store")
        #: entries the last read skipped because they could not be read (which, and why)
        self.unreadable: list[str] = []

    def __repr__(self) -> str:
        return f"SQLiteKnowledgeStore({self.db_path!r})"

    def close(self) -> None:
        self._conn.close()

    def add(self, entry: KnowledgeEntry) -> None:
        with self._lock, transaction(self._conn):
            self._conn.execute(
                "INSERT OR REPLACE INTO knowledge_entries VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    entry.id,
                    _iso(entry.timestamp),
                    entry.category,
                    entry.content,
                    int(entry.persistent),
                    entry.importance,
                    entry.ttl_days,
                ),
            )
            if entry.persistent:
                self._conn.execute(
                    "INSERT OR IGNORE INTO knowledge_facts (category, content) VALUES (?, ?)",
                    (entry.category, entry.content),
                )

    def entries(self, since: datetime | None = None) -> list[KnowledgeEntry]:
        sql = (
            "SELECT id, timestamp, category, content, persistent, importance, ttl_days "
            "FROM knowledge_entries"
        )
        params: tuple[str, ...] = ()
        if since is not None:
            sql += " WHERE timestamp >= ?"
            params = (_iso(since),)
        with self._lock:
            rows = self._conn.execute(sql + " ORDER BY timestamp, rowid", params).fetchall()
        found, unreadable = [], []
        for i, t, c, text, p, imp, ttl in rows:
            try:
                found.append(
                    KnowledgeEntry.from_dict(
                        {
                            "id": i,
                            "timestamp": t,
                            "category": c,
                            "content": text,
                            "persistent": bool(p),
                            "importance": imp,
                            "ttl_days": ttl,
                        }
                    )
                )
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                unreadable.append(f"entry {i!r} in {self.db_path} cannot be read: {exc}")
        self.unreadable = unreadable
        return found

    def facts(self) -> dict[str, list[str]]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT category, content FROM knowledge_facts ORDER BY seq"
            ).fetchall()
        facts: dict[str, list[str]] = {}
        for category, content in rows:
            facts.setdefault(category, []).append(content)
        return facts

    def delete(self, ids: list[str]) -> int:
        with self._lock, transaction(self._conn):
            return sum(
                self._conn.execute("DELETE FROM knowledge_entries WHERE id = ?", (i,)).rowcount
                for i in ids
            )

    def prune(self, before: datetime) -> int:
        day = before.astimezone(timezone.utc).strftime("%Y-%m-%d")
        with self._lock, transaction(self._conn):
            return self._conn.execute(
                "DELETE FROM knowledge_entries WHERE timestamp < ?", (day,)
            ).rowcount

    def clear_logs(self) -> None:
        with self._lock, transaction(self._conn):
            self._conn.execute("DELETE FROM knowledge_entries")

    def clear(self) -> None:
        with self._lock, transaction(self._conn):
            self._conn.execute("DELETE FROM knowledge_entries")
            self._conn.execute("DELETE FROM knowledge_facts")
