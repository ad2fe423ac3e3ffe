"""``ChromaVectorStore``: a Chroma collection through the official ``chromadb`` client.

``persist_directory=`` keeps the collection on disk (``chromadb.PersistentClient``),
so a new store over the same folder finds the documents again; without it the
store lives in memory (``chromadb.EphemeralClient``) under a collection name of
its own, because Chroma shares one in-memory system per process and two stores
would otherwise see each other's documents. A ready ``client`` (e.g. an
``HttpClient`` to a Chroma server) works too.

Chroma's local mode (``persist_directory=``) is not safe with two processes
writing one folder at once (each keeps its own in-memory index), so the store
holds the folder's lock file while it is open: a store over the same folder in
another process waits up to ``lock_timeout`` seconds for it to be closed
(:meth:`close`, or the store garbage-collected), then raises
:class:`~selectools.rag.VectorStoreInUseError`. Stores in one process share the
folder. For several processes, run a Chroma server and pass ``client=``. A
folder Chroma cannot open (damaged files) is a
:class:`~selectools.rag.DocumentLoadError` naming it. What happens inside
Chroma's files when a process is killed is Chroma's (its SQLite log); the
storage tests kill writers mid-add and find every finished record whole.

The collection uses cosine distance (scores are ``1 - distance``). Scalar
metadata values (str, int, float, bool) are stored as Chroma metadata, so
filters run in Chroma; the whole metadata dict also travels as JSON so nested
values come back unchanged (filters on those do not match).
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..document import Document, SearchResult
from ..errors import DimensionMismatchError, DocumentLoadError, require_extra
from ..vector_store import VectorStore
from ._files import FolderHold, hold_folder

if TYPE_CHECKING:  # pragma: no cover
    import numpy

    from ...embeddings.provider import EmbeddingProvider

__all__ = ["ChromaVectorStore"]

#: Reserved metadata keys: the full metadata as JSON, and the insertion order.
_META = "_selectools_metadata"
_SEQ = "_selectools_seq"
_SCALARS = (str, int, float, bool)
_SHARE = (
    "run a Chroma server (chroma run --path FOLDER) and pass client=chromadb.HttpClient(...) "
    "to share it between processes"
)
_FIX = "restore it from a backup, or delete it and add the documents again"


class ChromaVectorStore(VectorStore):
    """Cosine search in a Chroma collection (the ``chroma`` extra)."""

    kind = "chroma"

    def __init__(
        self,
        embedder: EmbeddingProvider | None = None,
        persist_directory: str | Path | None = None,
        collection_name: str | None = None,
        *,
        client: Any = None,
        dimension: int | None = None,
        lock_timeout: float = 30.0,
    ) -> None:
        chromadb = require_extra("chromadb", "chroma", "ChromaVectorStore")
        super().__init__(embedder, dimension)
        self._hold: FolderHold | None = None
        #: documents the last search or listing skipped because they could not be read
        self.unreadable: list[str] = []
        if client is None:
            if persist_directory is not None:
                self._hold = hold_folder(self, Path(persist_directory), lock_timeout, _SHARE)
                try:
                    client = chromadb.PersistentClient(path=str(persist_directory))
                except Exception as exc:  # Chroma's own errors for files it cannot read
                    self._hold.release()
                    _forget_failed_system(str(persist_directory))
                    raise DocumentLoadError(
                        str(persist_directory), f"Chroma cannot open this folder ({exc}); {_FIX}"
                    ) from None
            else:
                client = chromadb.EphemeralClient()
                collection_name = collection_name or f"selectools-{uuid.uuid4().hex[:12]}"
        self.client = client
        self.persist_directory = None if persist_directory is None else Path(persist_directory)
        self.collection_name = collection_name or "selectools"
        try:
            self._collection = self._open()
            self._seq = 0
            found = self._collection.get(limit=1, include=["embeddings"])
        except Exception as exc:
            self.close()
            if self.persist_directory is None:
                raise
            raise DocumentLoadError(
                str(self.persist_directory), f"Chroma cannot read this folder ({exc}); {_FIX}"
            ) from None
        embeddings = found.get("embeddings")
        if embeddings is not None and len(embeddings):
            size = len(embeddings[0])
            if dimension is not None and dimension != size:
                raise DimensionMismatchError(
                    size, dimension, f"ChromaVectorStore({self.collection_name!r})"
                )
            self.dimension = size
            self._seq = max(self._sequence_numbers(), default=-1) + 1

    def _open(self) -> Any:
        return self.client.get_or_create_collection(
            self.collection_name, metadata={"hnsw:space": "cosine"}, embedding_function=None
        )

    def _sequence_numbers(self) -> list[int]:
        metas = self._collection.get(include=["metadatas"]).get("metadatas") or []
        return [_seq_of(m) for m in metas]

    def _add(self, ids: list[str], documents: list[Document], vectors: numpy.ndarray) -> None:
        metadatas: list[dict[str, Any]] = []
        for doc in documents:
            flat = {
                k: v
                for k, v in doc.metadata.items()
                if isinstance(k, str) and isinstance(v, _SCALARS)
            }
            flat[_META] = json.dumps(doc.metadata, default=str)
            flat[_SEQ] = self._seq
            self._seq += 1
            metadatas.append(flat)
        self._collection.add(
            ids=ids,
            embeddings=vectors.tolist(),
            documents=[doc.text for doc in documents],
            metadatas=metadatas,
        )

    @staticmethod
    def _where(filter: dict[str, Any] | None) -> dict[str, Any] | None:
        if not filter:
            return None
        clauses: list[dict[str, Any]] = []
        for key, value in filter.items():
            if isinstance(value, (list, tuple, set, frozenset)):
                clauses.append({key: {"$in": list(value)}})
            else:
                clauses.append({key: {"$eq": value}})
        return clauses[0] if len(clauses) == 1 else {"$and": clauses}

    @staticmethod
    def _document(text: str | None, meta: dict[str, Any] | None) -> Document:
        raw = (meta or {}).get(_META)
        metadata = json.loads(raw) if isinstance(raw, str) else {}
        if not isinstance(metadata, dict):
            raise ValueError(f"the metadata is {type(metadata).__name__}, not a JSON object")
        return Document(text=text or "", metadata=metadata)

    def _readable(self, rows: list[tuple[Any, ...]]) -> list[tuple[str, Document, Any]]:
        """``(id, document, extra)`` for each ``(id, text, meta, extra)`` row that can be read.

        The others are skipped and named in ``unreadable``.
        """
        good, bad = [], []
        for id_, text, meta, extra in rows:
            try:
                good.append((str(id_), self._document(text, meta), extra))
            except ValueError as exc:
                bad.append(
                    f"document {str(id_)!r} in Chroma collection {self.collection_name!r} cannot "
                    f"be read: {_META} is damaged ({exc}); delete it and add it again"
                )
        self.unreadable = bad
        return good

    def _search(
        self, vector: numpy.ndarray, top_k: int, filter: dict[str, Any] | None
    ) -> list[SearchResult]:
        total = self._collection.count()
        if total == 0:
            return []
        found = self._collection.query(
            query_embeddings=[vector.tolist()],
            n_results=min(top_k, total),
            where=self._where(filter),
            include=["documents", "metadatas", "distances"],
        )
        rows = zip(
            found["ids"][0],
            found["documents"][0],
            found["metadatas"][0],
            found["distances"][0],
            strict=True,
        )
        return [
            SearchResult(document=doc, score=1.0 - float(dist), id=id_)
            for id_, doc, dist in self._readable(list(rows))
        ]

    def _delete(self, ids: list[str]) -> None:
        if ids:
            self._collection.delete(ids=ids)

    def _clear(self) -> None:
        self.client.delete_collection(self.collection_name)
        self._collection = self._open()
        self._seq = 0

    def _count(self) -> int:
        return int(self._collection.count())

    def _documents(self) -> Iterator[tuple[str, Document]]:
        found = self._collection.get(include=["documents", "metadatas"])
        rows = list(zip(found["ids"], found["documents"], found["metadatas"], strict=True))
        rows.sort(key=lambda row: _seq_of(row[2]))
        readable = self._readable([(id_, text, meta, None) for id_, text, meta in rows])
        return iter([(id_, doc) for id_, doc, _ in readable])

    def close(self) -> None:
        """Release the client and the folder (another process can open it now)."""
        close = getattr(self.client, "close", None)
        if close is not None:
            close()
        if self._hold is not None:
            self._hold.release()


def _seq_of(meta: dict[str, Any] | None) -> int:
    """The insertion number of a record (0 when missing or damaged)."""
    value = (meta or {}).get(_SEQ, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _forget_failed_system(path: str) -> None:
    """Drop the half-started system Chroma caches per folder, so a later open retries.

    Chroma keeps one system per folder per process, also one whose start failed;
    without this, every later store over the folder in this process fails too.
    """
    with contextlib.suppress(Exception):
        from chromadb.api.shared_system_client import SharedSystemClient

        SharedSystemClient._identifier_to_system.pop(path, None)
