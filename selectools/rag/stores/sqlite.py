"""``SQLiteVectorStore``: documents and float32 vectors in one SQLite file, searched exactly.

Writes are transactions (a crash never leaves half a batch). Search loads the
vectors once into a numpy matrix and reuses it until the next write.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..._storage import open_sqlite, transaction
from ..document import Document, SearchResult
from ..vector_store import VectorStore, top_hits

if TYPE_CHECKING:  # pragma: no cover
    import numpy

    from ...embeddings.provider import EmbeddingProvider

__all__ = ["SQLiteVectorStore"]

_SCHEMA = """
create table if not exists documents (
    seq integer primary key autoincrement,
    id text unique not null,
    text text not null,
    metadata text not null,
    embedding blob not null
);
create table if not exists store_info (key text primary key, value text not null);
"""


class SQLiteVectorStore(VectorStore):
    """A persistent local store in ``db_path`` (``":memory:"`` for a throwaway one)."""

    kind = "sqlite"

    def __init__(
        self,
        embedder: EmbeddingProvider | None = None,
        db_path: str | Path = "selectools_vectors.db",
        dimension: int | None = None,
    ) -> None:
        super().__init__(embedder, dimension)
        self.db_path = str(db_path)
        self._conn = open_sqlite(self.db_path, _SCHEMA, what="vector store")
        row = self._conn.execute("select value from store_info where key = 'dimension'").fetchone()
        if row is not None:
            stored = int(row[0])
            if dimension is not None and dimension != stored:
                from ..errors import DimensionMismatchError

                raise DimensionMismatchError(
                    stored, dimension, f"SQLiteVectorStore({self.db_path!r})"
                )
            self.dimension = stored
        self._cache: tuple[list[str], list[Document], numpy.ndarray] | None = None
        #: documents the last load skipped because they could not be read (which, and why)
        self.unreadable: list[str] = []

    def _on_dimension(self, dimension: int) -> None:
        with transaction(self._conn):
            self._conn.execute(
                "insert or replace into store_info (key, value) values ('dimension', ?)",
                (str(dimension),),
            )

    def _add(self, ids: list[str], documents: list[Document], vectors: numpy.ndarray) -> None:
        rows = [
            (id_, doc.text, json.dumps(doc.metadata, ensure_ascii=False), vec.tobytes())
            for id_, doc, vec in zip(ids, documents, vectors, strict=True)
        ]
        with transaction(self._conn):  # all rows or none
            self._conn.executemany(
                "insert into documents (id, text, metadata, embedding) values (?, ?, ?, ?)", rows
            )
        self._cache = None

    def _load(self) -> tuple[list[str], list[Document], numpy.ndarray]:
        import numpy

        if self._cache is None:
            rows = self._conn.execute(
                "select id, text, metadata, embedding from documents order by seq"
            ).fetchall()
            ids, docs, vectors, unreadable = [], [], [], []
            width = 4 * (self.dimension or 0)
            for id_, text, metadata, embedding in rows:
                try:
                    meta = json.loads(metadata)
                    if not isinstance(meta, dict) or not isinstance(embedding, bytes):
                        raise ValueError("metadata is not an object or the vector is not a blob")
                    if width and len(embedding) != width:
                        raise ValueError(f"the vector has {len(embedding)} bytes, not {width}")
                except ValueError as exc:
                    unreadable.append(f"document {id_!r} in {self.db_path} cannot be read: {exc}")
                    continue
                ids.append(id_)
                docs.append(Document(text=text, metadata=meta))
                vectors.append(embedding)
            self.unreadable = unreadable
            matrix = (
                numpy.frombuffer(b"".join(vectors), dtype=numpy.float32).reshape(len(ids), -1)
                if ids
                else numpy.zeros((0, self.dimension or 0), dtype=numpy.float32)
            )
            self._cache = (ids, docs, matrix)
        return self._cache

    def _search(
        self, vector: numpy.ndarray, top_k: int, filter: dict[str, Any] | None
    ) -> list[SearchResult]:
        ids, docs, matrix = self._load()
        if not ids:
            return []
        return top_hits(matrix @ vector, ids, docs, top_k, filter)

    def _delete(self, ids: list[str]) -> None:
        with transaction(self._conn):
            self._conn.executemany("delete from documents where id = ?", [(i,) for i in ids])
        self._cache = None

    def _clear(self) -> None:
        with transaction(self._conn):
            self._conn.execute("delete from documents")
        self._cache = None

    def _count(self) -> int:
        return int(self._conn.execute("select count(*) from documents").fetchone()[0])

    def _documents(self) -> Iterator[tuple[str, Document]]:
        ids, docs, _ = self._load()
        return iter(list(zip(ids, docs, strict=True)))

    def close(self) -> None:
        self._conn.close()
