"""The triple stores: in memory (a dict) and SQLite (the documented schema).

Both ignore duplicates (same subject, relation, object: the first one kept) and
return triples oldest first. Keyword search ranks by how many keywords a triple
mentions, then by recency. The SQLite store writes each ``add``/``delete`` in
one transaction (WAL journal, busy timeout), so a killed process leaves the
database readable and concurrent writers from several processes all land.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path

from ..._storage import transaction
from .._store import open_store_db
from ._triple import Triple, matches_keywords

__all__ = ["InMemoryTripleStore", "SQLiteTripleStore"]


def _stamp(triple: Triple) -> Triple:
    if triple.created_at is None:
        triple.created_at = datetime.now(timezone.utc)
    return triple


def _rank(triples: Iterable[Triple], keywords: list[str], top_k: int) -> list[Triple]:
    lowered = [k.lower() for k in keywords if isinstance(k, str) and k.strip()]
    scored = [(matches_keywords(t, lowered), i, t) for i, t in enumerate(triples)]
    hits = [s for s in scored if s[0] > 0]
    hits.sort(key=lambda s: (-s[0], -s[1]))
    return [t for _, _, t in hits[:top_k]]


class InMemoryTripleStore:
    """Triples in a dict: no dependencies, gone when the process ends."""

    def __init__(self) -> None:
        self._triples: dict[tuple[str, str, str], Triple] = {}
        self._lock = threading.Lock()

    def add(self, triples: list[Triple]) -> None:
        with self._lock:
            for triple in triples:
                self._triples.setdefault(triple.key, _stamp(triple))

    def query(
        self,
        subject: str | None = None,
        relation: str | None = None,
        object: str | None = None,
    ) -> list[Triple]:
        with self._lock:
            return [
                t
                for t in self._triples.values()
                if (subject is None or t.subject == subject)
                and (relation is None or t.relation == relation)
                and (object is None or t.object == object)
            ]

    def search(self, keywords: list[str], top_k: int = 20) -> list[Triple]:
        with self._lock:
            return _rank(list(self._triples.values()), keywords, top_k)

    def delete(
        self,
        subject: str | None = None,
        relation: str | None = None,
        object: str | None = None,
    ) -> int:
        doomed = self.query(subject, relation, object)
        with self._lock:
            for triple in doomed:
                self._triples.pop(triple.key, None)
        return len(doomed)

    def all(self) -> list[Triple]:
        with self._lock:
            return list(self._triples.values())

    def clear(self) -> None:
        with self._lock:
            self._triples.clear()

    def count(self) -> int:
        return len(self._triples)

    def __repr__(self) -> str:
        return f"InMemoryTripleStore(triples={self.count()})"


_SCHEMA = """
CREATE TABLE IF NOT EXISTS triples (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    subject TEXT NOT NULL,
    relation TEXT NOT NULL,
    object TEXT NOT NULL,
    confidence REAL DEFAULT 1.0,
    source_turn INTEGER,
    created_at TEXT,
    UNIQUE(subject, relation, object)
);
CREATE INDEX IF NOT EXISTS idx_subject ON triples(subject);
CREATE INDEX IF NOT EXISTS idx_object ON triples(object);
CREATE INDEX IF NOT EXISTS idx_relation ON triples(relation);
"""


class SQLiteTripleStore:
    """Triples in a SQLite file (``db_path``): persistent, indexed, safe across processes."""

    def __init__(self, db_path: str | Path = "knowledge_graph.db") -> None:
        self.db_path = str(db_path)
        self._lock = threading.Lock()
        self._conn = open_store_db(self.db_path, _SCHEMA, "triple store")
        #: rows the last read skipped because they could not be read (which, and why)
        self.unreadable: list[str] = []

    def close(self) -> None:
        self._conn.close()

    def _select(self, where: str = "", params: tuple[object, ...] = ()) -> list[Triple]:
        sql = (
            "SELECT id, subject, relation, object, confidence, source_turn, created_at "
            f"FROM triples{where} ORDER BY id"
        )
        with self._lock:
            rows = self._conn.execute(sql, params).fetchall()
        found, unreadable = [], []
        for row_id, s, r, o, c, turn, at in rows:
            try:
                found.append(
                    Triple(
                        s,
                        r,
                        o,
                        float(c if c is not None else 1.0),
                        turn,
                        datetime.fromisoformat(at) if at else None,
                    )
                )
            except (ValueError, TypeError) as exc:
                unreadable.append(f"triple row {row_id} in {self.db_path} cannot be read: {exc}")
        self.unreadable = unreadable
        return found

    def add(self, triples: list[Triple]) -> None:
        rows = [
            (
                t.subject,
                t.relation,
                t.object,
                t.confidence,
                t.source_turn,
                _stamp(t).created_at.isoformat(),  # type: ignore[union-attr]
            )
            for t in triples
        ]
        with self._lock, transaction(self._conn):
            self._conn.executemany(
                "INSERT OR IGNORE INTO triples "
                "(subject, relation, object, confidence, source_turn, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                rows,
            )

    @staticmethod
    def _where(
        subject: str | None, relation: str | None, object: str | None
    ) -> tuple[str, tuple[object, ...]]:
        parts, params = [], []
        for column, value in (("subject", subject), ("relation", relation), ("object", object)):
            if value is not None:
                parts.append(f"{column} = ?")
                params.append(value)
        return (" WHERE " + " AND ".join(parts) if parts else ""), tuple(params)

    def query(
        self,
        subject: str | None = None,
        relation: str | None = None,
        object: str | None = None,
    ) -> list[Triple]:
        return self._select(*self._where(subject, relation, object))

    def search(self, keywords: list[str], top_k: int = 20) -> list[Triple]:
        words = [k.lower() for k in keywords if isinstance(k, str) and k.strip()]
        if not words:
            return []
        clause = " OR ".join(
            "instr(lower(subject), ?) OR instr(lower(relation), ?) OR instr(lower(object), ?)"
            for _ in words
        )
        params = tuple(w for w in words for _ in range(3))
        return _rank(self._select(f" WHERE {clause}", params), words, top_k)

    def delete(
        self,
        subject: str | None = None,
        relation: str | None = None,
        object: str | None = None,
    ) -> int:
        where, params = self._where(subject, relation, object)
        with self._lock, transaction(self._conn):
            return self._conn.execute(f"DELETE FROM triples{where}", params).rowcount

    def all(self) -> list[Triple]:
        return self._select()

    def clear(self) -> None:
        self.delete()

    def count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM triples").fetchone()[0])

    def __repr__(self) -> str:
        return f"SQLiteTripleStore(db_path={self.db_path!r})"
