"""``PgVectorStore``: documents in a PostgreSQL table with the pgvector extension.

One psycopg connection per store. The table (``id``, ``text``, ``metadata``
JSONB, ``embedding vector(N)``) is created on first use; every query is
parameterised and ``table_name`` must be a plain identifier. Search orders by
pgvector's cosine distance ``<=>`` (score = 1 - distance); metadata filters run
in SQL (JSONB containment). ``add_documents`` upserts
(``INSERT ... ON CONFLICT DO UPDATE``) in one transaction, so a killed process
leaves all of a batch or none of it, and concurrent writers never lose each
other's rows. Creating the extension and the table is serialised between
processes by an advisory lock (two stores opening a new table at once would
otherwise collide in PostgreSQL's catalog). A row whose metadata is not a JSON
object (edited by hand) is skipped by search and listing and named in
``store.unreadable``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ...stability import beta
from ..document import Document, SearchResult
from ..errors import DimensionMismatchError, require_extra
from ..vector_store import VectorStore

if TYPE_CHECKING:  # pragma: no cover
    import numpy

    from ...embeddings.provider import EmbeddingProvider

__all__ = ["PgVectorStore"]

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
#: the advisory lock every PgVectorStore takes to create the extension or a table
_DDL_LOCK = 0x5E1EC7_0D0C


@beta
class PgVectorStore(VectorStore):
    """Cosine search in PostgreSQL + pgvector (the ``postgres`` extra)."""

    kind = "pgvector"

    def __init__(
        self,
        embedder: EmbeddingProvider | None = None,
        connection_string: str = "",
        table_name: str = "selectools_documents",
        dimensions: int | None = None,
    ) -> None:
        psycopg = require_extra("psycopg", "postgres", "PgVectorStore")
        self._pgv = require_extra("pgvector.psycopg", "postgres", "PgVectorStore")
        if not _IDENT.match(table_name):
            raise ValueError(
                f"table_name must be letters, digits and underscores (not starting with a digit), got {table_name!r}"
            )
        if not connection_string:
            raise ValueError(
                "PgVectorStore needs connection_string='postgresql://user:pass@host:5432/db'"
            )
        super().__init__(embedder, dimensions)
        self.table_name = table_name
        self._conn = psycopg.connect(connection_string, autocommit=True)
        #: rows the last search or listing skipped because they could not be read (which, and why)
        self.unreadable: list[str] = []
        if (
            self._conn.execute("select 1 from pg_extension where extname = 'vector'").fetchone()
            is None
        ):
            self._ddl("create extension if not exists vector")
        self._pgv.register_vector(self._conn)
        row = self._conn.execute(
            "select format_type(atttypid, atttypmod) from pg_attribute "
            "where attrelid = to_regclass(%s) and attname = 'embedding'",
            (table_name,),
        ).fetchone()
        if row is not None:
            stored = int(re.findall(r"\d+", row[0])[0])
            if dimensions is not None and dimensions != stored:
                raise DimensionMismatchError(stored, dimensions, f"PgVectorStore({table_name!r})")
            self.dimension = stored
        elif dimensions is not None:
            self._on_dimension(dimensions)

    def _ddl(self, statement: str) -> None:
        """Run ``statement`` (``create ... if not exists``) under the DDL advisory lock."""
        with self._conn.transaction():
            self._conn.execute("select pg_advisory_xact_lock(%s)", (_DDL_LOCK,))
            self._conn.execute(statement)

    def _on_dimension(self, dimension: int) -> None:
        t = self.table_name
        self._ddl(
            f"create table if not exists {t} (seq bigserial, id text primary key, text text not null, "
            f"metadata jsonb not null default '{{}}', embedding vector({int(dimension)}) not null)"
        )

    def _exists(self) -> bool:
        return (
            self._conn.execute("select to_regclass(%s)", (self.table_name,)).fetchone()[0]
            is not None
        )

    def _add(self, ids: list[str], documents: list[Document], vectors: numpy.ndarray) -> None:
        if not self._exists():
            self._on_dimension(self.dimension or vectors.shape[1])
        rows = [
            (id_, doc.text, json.dumps(doc.metadata, ensure_ascii=False), vec)
            for id_, doc, vec in zip(ids, documents, vectors, strict=True)
        ]
        with self._conn.transaction(), self._conn.cursor() as cur:
            cur.executemany(
                f"insert into {self.table_name} (id, text, metadata, embedding) values (%s, %s, %s::jsonb, %s) "
                "on conflict (id) do update set text = excluded.text, metadata = excluded.metadata, "
                "embedding = excluded.embedding",
                rows,
            )

    def _search(
        self, vector: numpy.ndarray, top_k: int, filter: dict[str, Any] | None
    ) -> list[SearchResult]:
        if not self._exists():
            return []
        where, params = _where(filter)
        rows = self._conn.execute(
            f"select id, text, metadata, embedding <=> %s as distance from {self.table_name} {where} "
            "order by distance asc, seq asc limit %s",
            (vector, *params, top_k),
        ).fetchall()
        return [
            SearchResult(
                document=Document(text=r[1], metadata=r[2]), score=1.0 - float(r[3]), id=r[0]
            )
            for r in self._readable(rows)
        ]

    def _readable(self, rows: list[Any]) -> list[Any]:
        """``rows`` whose metadata is a JSON object; the others are named in ``unreadable``."""
        good, bad = [], []
        for row in rows:
            if isinstance(row[2], dict):
                good.append(row)
            else:
                bad.append(
                    f"document {row[0]!r} in table {self.table_name} cannot be read: its metadata "
                    f"is {type(row[2]).__name__}, not a JSON object (fix or delete the row)"
                )
        self.unreadable = bad
        return good

    def _delete(self, ids: list[str]) -> None:
        if ids and self._exists():
            self._conn.execute(f"delete from {self.table_name} where id = any(%s)", (ids,))

    def _clear(self) -> None:
        if self._exists():
            self._conn.execute(f"truncate {self.table_name}")

    def _count(self) -> int:
        if not self._exists():
            return 0
        return int(self._conn.execute(f"select count(*) from {self.table_name}").fetchone()[0])

    def _documents(self) -> Iterator[tuple[str, Document]]:
        if not self._exists():
            return iter([])
        rows = self._conn.execute(
            f"select id, text, metadata from {self.table_name} order by seq"
        ).fetchall()
        return iter([(r[0], Document(text=r[1], metadata=r[2])) for r in self._readable(rows)])

    def close(self) -> None:
        self._conn.close()


def _where(filter: dict[str, Any] | None) -> tuple[str, list[Any]]:
    """SQL for a metadata filter: each key's value contained (a list: any of them)."""
    if not filter:
        return "", []
    clauses: list[str] = []
    params: list[Any] = []
    for key, value in filter.items():
        options = list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]
        clauses.append("(" + " or ".join(["metadata @> %s::jsonb"] * len(options)) + ")")
        params.extend(json.dumps({key: option}) for option in options)
    return "where " + " and ".join(clauses), params
