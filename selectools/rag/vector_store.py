"""``VectorStore``: the interface every store shares, and ``VectorStore.create(kind, ...)``.

A store holds documents with their vectors and finds the nearest ones by
cosine similarity (scores in [-1, 1], higher is closer). ``add_documents``
embeds with the store's embedder unless you pass ``embeddings``; ``search``
takes a query string (embedded with the store's embedder) or a ready vector
(positionally, or as ``query_embedding=`` as the RAG page names it),
``top_k`` and a metadata ``filter`` (``{"key": value}`` matches equal values,
``{"key": [a, b]}`` any of them; all keys must match). Subclasses implement the
storage primitives ``_add``, ``_search``, ``_delete``, ``_clear``,
``_count`` and ``_documents``; the checks (dimensions, embedder, filter shape)
live here once.
"""

from __future__ import annotations

import threading
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._display import RichDisplay
from .._progress import progress_bar
from ..stability import stable
from .document import Document, SearchResult, SearchResults
from .errors import DimensionMismatchError, RAGError, UnknownVectorStoreError

if TYPE_CHECKING:  # pragma: no cover
    import numpy

    from ..embeddings.provider import EmbeddingProvider

__all__ = ["NoEmbedderError", "VectorStore", "matches_filter"]

#: ``VectorStore.create`` names -> (module, class).
_KINDS = {
    "memory": (".stores.memory", "InMemoryVectorStore"),
    "sqlite": (".stores.sqlite", "SQLiteVectorStore"),
    "faiss": (".stores.faiss", "FAISSVectorStore"),
    "qdrant": (".stores.qdrant", "QdrantVectorStore"),
    "pgvector": (".stores.pgvector", "PgVectorStore"),
    "pinecone": (".stores.pinecone", "PineconeVectorStore"),
    "chroma": (".stores.chroma", "ChromaVectorStore"),
}


class NoEmbedderError(RAGError, ValueError):
    """A query string (or a document without embedding) met a store with no embedder."""

    def __init__(self) -> None:
        super().__init__(
            "Vector store does not have an embedding provider configured. "
            "Pass embedder= when creating the store, or pass embeddings/query vectors yourself."
        )


def matches_filter(metadata: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Whether ``metadata`` satisfies ``filter`` (equal value, or one of a list of values)."""
    if not filter:
        return True
    for key, wanted in filter.items():
        if key not in metadata:
            return False
        value = metadata[key]
        if isinstance(wanted, (list, tuple, set, frozenset)):
            if value not in wanted:
                return False
        elif value != wanted:
            return False
    return True


def _check_filter(filter: Any) -> dict[str, Any] | None:
    if filter is None:
        return None
    if not isinstance(filter, Mapping):
        raise TypeError(f"filter must be a dict of metadata values, got {type(filter).__name__}")
    return dict(filter)


@stable
class VectorStore(ABC, RichDisplay):
    """Documents with vectors, searched by cosine similarity. See the module docstring."""

    kind = "base"
    #: texts per embedding call when a large ingestion is embedded in batches
    EMBED_BATCH = 128

    def __init__(
        self, embedder: EmbeddingProvider | None = None, dimension: int | None = None
    ) -> None:
        if dimension is not None and dimension < 1:
            raise ValueError(f"dimension must be >= 1, got {dimension}")
        self.embedder = embedder
        self.dimension = dimension
        self._lock = threading.RLock()

    # -- factory ---------------------------------------------------------
    @staticmethod
    def create(kind: str, embedder: EmbeddingProvider | None = None, **kwargs: Any) -> VectorStore:
        """A store by name: ``"memory"``, ``"sqlite"`` (``db_path=``), ``"faiss"``, ``"qdrant"``, ``"pgvector"``, ``"pinecone"``, ``"chroma"`` (``persist_directory=``)."""
        import importlib

        key = kind.lower() if isinstance(kind, str) else kind
        if key not in _KINDS:
            raise UnknownVectorStoreError(kind, sorted(_KINDS))
        module, name = _KINDS[key]
        cls = getattr(importlib.import_module(module, __package__), name)
        store: VectorStore = cls(embedder=embedder, **kwargs)
        return store

    # -- public API ------------------------------------------------------
    def add_documents(
        self,
        documents: Sequence[Document],
        embeddings: Sequence[Sequence[float]] | None = None,
        *,
        progress: bool = True,
    ) -> list[str]:
        """Store ``documents`` (embedded now unless ``embeddings`` or ``Document.embedding`` given); return their ids.

        More than ``EMBED_BATCH`` texts are embedded in batches of that size with a progress
        bar (tqdm, or the notebook's own bar); ``progress=False`` hides it.
        """
        import numpy

        docs = list(documents)
        for index, doc in enumerate(docs):
            if not isinstance(doc, Document):
                raise TypeError(
                    f"add_documents: item {index} is {type(doc).__name__}, not Document"
                )
        if not docs:
            return []
        if embeddings is not None:
            if len(embeddings) != len(docs):
                raise ValueError(
                    f"add_documents: {len(docs)} documents but {len(embeddings)} embeddings"
                )
            matrix = numpy.asarray(embeddings, dtype=numpy.float32)
        elif all(doc.embedding is not None for doc in docs):
            matrix = numpy.asarray([doc.embedding for doc in docs], dtype=numpy.float32)
        else:
            matrix = self._embed_in_batches([doc.text for doc in docs], progress)
        if matrix.ndim != 2:
            raise ValueError("add_documents: embeddings must all have the same length")
        matrix = _normalise(self._check_dimension(matrix, "add_documents"))
        ids = [self._new_id() for _ in docs]
        with self._lock:
            self._add(ids, docs, matrix)
        return ids

    def search(
        self,
        query: str | Sequence[float] | None = None,
        top_k: int = 5,
        filter: Mapping[str, Any] | None = None,
        *,
        query_embedding: Sequence[float] | None = None,
    ) -> SearchResults:
        """The ``top_k`` documents closest to ``query`` (text or vector), best first.

        ``query_embedding=`` is the RAG page's name for a ready vector; pass one
        of ``query`` and ``query_embedding``.
        """
        import numpy

        if query_embedding is not None:
            if query is not None:
                raise TypeError("search: pass query or query_embedding, not both")
            if isinstance(query_embedding, (str, bytes)):
                raise TypeError(
                    "search: query_embedding takes a vector (a list of floats); "
                    "pass text as query=... and the store's embedder embeds it"
                )
            query = query_embedding
        elif query is None:
            raise TypeError("search needs query text or a query_embedding vector")
        if top_k < 1:
            raise ValueError(f"top_k must be >= 1, got {top_k}")
        filt = _check_filter(filter)
        text = query if isinstance(query, str) else None
        if text is not None:
            if self.embedder is None:
                raise NoEmbedderError()
            vector = numpy.asarray(self.embedder.embed_query(text), dtype=numpy.float32)
        else:
            vector = numpy.asarray(query, dtype=numpy.float32)
        if vector.ndim != 1:
            raise ValueError(f"search: the query vector must be flat, got shape {vector.shape}")
        if self.dimension is None:
            return SearchResults([], query=text, scored_by="cosine")
        vector = _normalise(self._check_dimension(vector[None, :], "search"))[0]
        with self._lock:
            hits = self._search(vector, top_k, filt)
        return SearchResults(hits, query=text, scored_by="cosine")

    def delete(self, ids: Sequence[str]) -> None:
        """Remove documents by id (unknown ids are ignored)."""
        if isinstance(ids, str):
            raise TypeError("delete takes a list of ids, got one string; use delete([id])")
        with self._lock:
            self._delete(list(ids))

    def clear(self) -> None:
        """Remove every document."""
        with self._lock:
            self._clear()

    def count(self) -> int:
        with self._lock:
            return self._count()

    def __len__(self) -> int:
        return self.count()

    def documents(self) -> Iterator[tuple[str, Document]]:
        """Every ``(id, document)`` stored (for BM25 indexing, exports and displays)."""
        with self._lock:
            items = list(self._documents())
        return iter(items)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(documents={self.count()}, dimension={self.dimension}, embedder={self.embedder!r})"

    # -- helpers ---------------------------------------------------------
    @staticmethod
    def _new_id() -> str:
        return str(uuid.uuid4())

    def _embed_in_batches(self, texts: list[str], progress: bool) -> numpy.ndarray:
        import numpy

        size = self.EMBED_BATCH
        if len(texts) <= size:
            return self._embed_documents(texts)
        parts = []
        with progress_bar(progress, len(texts), "embedding") as bar:
            for start in range(0, len(texts), size):
                parts.append(self._embed_documents(texts[start : start + size]))
                if bar is not None:
                    bar(min(start + size, len(texts)), len(texts))
        return numpy.concatenate(parts)

    def _embed_documents(self, texts: list[str]) -> numpy.ndarray:
        import numpy

        if self.embedder is None:
            raise NoEmbedderError()
        bulk = getattr(self.embedder, "embed_array", None)
        if bulk is not None:
            return numpy.asarray(bulk(texts), dtype=numpy.float32)
        return numpy.asarray(self.embedder.embed_texts(texts), dtype=numpy.float32)

    def _check_dimension(self, matrix: numpy.ndarray, where: str) -> numpy.ndarray:
        got = int(matrix.shape[1])
        if self.dimension is None:
            if got < 1:
                raise ValueError(f"{where}: empty embedding")
            self.dimension = got
            self._on_dimension(got)
        elif got != self.dimension:
            raise DimensionMismatchError(self.dimension, got, f"{type(self).__name__}.{where}")
        return matrix

    def _on_dimension(self, dimension: int) -> None:
        """Called once when the first vectors fix the store's dimension."""

    # -- storage primitives ---------------------------------------------
    @abstractmethod
    def _add(self, ids: list[str], documents: list[Document], vectors: numpy.ndarray) -> None: ...

    @abstractmethod
    def _search(
        self, vector: numpy.ndarray, top_k: int, filter: dict[str, Any] | None
    ) -> list[SearchResult]: ...

    @abstractmethod
    def _delete(self, ids: list[str]) -> None: ...

    @abstractmethod
    def _clear(self) -> None: ...

    @abstractmethod
    def _count(self) -> int: ...

    @abstractmethod
    def _documents(self) -> Iterator[tuple[str, Document]]: ...


def _normalise(matrix: numpy.ndarray) -> numpy.ndarray:
    import numpy

    norms = numpy.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    normalised: numpy.ndarray = (matrix / norms).astype(numpy.float32, copy=False)
    return normalised


def top_hits(
    scores: numpy.ndarray,
    ids: list[str],
    docs: list[Document],
    top_k: int,
    filter: dict[str, Any] | None,
) -> list[SearchResult]:
    """The best ``top_k`` of brute-force ``scores`` over parallel ``ids``/``docs``, honouring ``filter``."""
    import numpy

    if filter:
        keep = numpy.fromiter(
            (matches_filter(d.metadata, filter) for d in docs), dtype=bool, count=len(docs)
        )
        candidates = numpy.flatnonzero(keep)
        scores = scores[candidates]
    else:
        candidates = numpy.arange(len(docs))
    if len(candidates) == 0:
        return []
    k = min(top_k, len(candidates))
    part = (
        numpy.argpartition(-scores, k - 1)[:k]
        if k < len(candidates)
        else numpy.arange(len(candidates))
    )
    order = part[numpy.argsort(-scores[part], kind="stable")]
    return [
        SearchResult(document=docs[candidates[i]], score=float(scores[i]), id=ids[candidates[i]])
        for i in order
    ]
