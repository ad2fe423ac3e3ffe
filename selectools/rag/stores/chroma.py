"""``ChromaVectorStore``: a Chroma collection through the official ``chromadb`` client.

``persist_directory=`` keeps the collection on disk (``chromadb.PersistentClient``),
so a new store over the same folder finds the documents again; without it the
store lives in memory (``chromadb.EphemeralClient``) under a collection name of
its own, because Chroma shares one in-memory system per process and two stores
would otherwise see each other's documents. A ready ``client`` (e.g. an
``HttpClient`` to a Chroma server) works too.

The collection uses cosine distance (scores are ``1 - distance``). Scalar
metadata values (str, int, float, bool) are stored as Chroma metadata, so
filters run in Chroma; the whole metadata dict also travels as JSON so nested
values come back unchanged (filters on those do not match).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..document import Document, SearchResult
from ..errors import DimensionMismatchError, require_extra
from ..vector_store import VectorStore

if TYPE_CHECKING:  # pragma: no cover
    import numpy

    from ...embeddings.provider import EmbeddingProvider

__all__ = ["ChromaVectorStore"]

#: Reserved metadata keys: the full metadata as JSON, and the insertion order.
_META = "_selectools_metadata"
_SEQ = "_selectools_seq"
_SCALARS = (str, int, float, bool)


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
    ) -> None:
        chromadb = require_extra("chromadb", "chroma", "ChromaVectorStore")
        super().__init__(embedder, dimension)
        if client is None:
            if persist_directory is not None:
                client = chromadb.PersistentClient(path=str(persist_directory))
            else:
                client = chromadb.EphemeralClient()
                collection_name = collection_name or f"selectools-{uuid.uuid4().hex[:12]}"
        self.client = client
        self.persist_directory = None if persist_directory is None else Path(persist_directory)
        self.collection_name = collection_name or "selectools"
        self._collection = self._open()
        self._seq = 0
        found = self._collection.get(limit=1, include=["embeddings"])
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
        return [int(m[_SEQ]) for m in metas if m and _SEQ in m]

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
        return Document(text=text or "", metadata=metadata)

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
        return [
            SearchResult(document=self._document(text, meta), score=1.0 - float(dist), id=str(id_))
            for id_, text, meta, dist in zip(
                found["ids"][0],
                found["documents"][0],
                found["metadatas"][0],
                found["distances"][0],
                strict=True,
            )
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
        rows.sort(key=lambda row: int((row[2] or {}).get(_SEQ, 0)))
        return iter([(str(id_), self._document(text, meta)) for id_, text, meta in rows])

    def close(self) -> None:
        """Release the client's resources (a new store can reopen the folder)."""
        close = getattr(self.client, "close", None)
        if close is not None:
            close()
