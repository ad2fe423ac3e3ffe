"""``FAISSVectorStore``: an in-process FAISS index (exact inner product on unit vectors = cosine).

``index_factory`` picks another FAISS index (``"HNSW32"`` for approximate search
over millions of vectors); the default ``"Flat"`` is exact. ``save(path)``
writes the index and the documents to the folder ``path``;
``FAISSVectorStore.load(path, embedder)`` reads them back. Every call holds a
lock (FAISS is not thread-safe for writes).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..._storage import atomic_write_bytes
from ...stability import beta
from ..document import Document, SearchResult
from ..errors import require_extra
from ..vector_store import VectorStore, matches_filter
from ._files import dump_documents, load_documents

if TYPE_CHECKING:  # pragma: no cover
    import numpy

    from ...embeddings.provider import EmbeddingProvider

__all__ = ["FAISSVectorStore"]


@beta
class FAISSVectorStore(VectorStore):
    """Cosine search with FAISS (the ``rag`` extra)."""

    kind = "faiss"

    def __init__(
        self,
        embedder: EmbeddingProvider | None = None,
        dimension: int | None = None,
        index_factory: str = "Flat",
    ) -> None:
        self._faiss = require_extra("faiss", "rag", "FAISSVectorStore")
        super().__init__(embedder, dimension)
        self.index_factory = index_factory
        self._index: Any = None
        self._next = 0
        self._by_label: dict[int, tuple[str, Document]] = {}
        self._label_of: dict[str, int] = {}
        if dimension is not None:
            self._on_dimension(dimension)

    @property
    def faiss_index(self) -> Any:
        """The underlying FAISS index (e.g. to tune ``faiss.downcast_index(...).hnsw.efSearch``)."""
        return self._index

    def _on_dimension(self, dimension: int) -> None:
        faiss = self._faiss
        inner = faiss.index_factory(dimension, self.index_factory, faiss.METRIC_INNER_PRODUCT)
        self._index = (
            faiss.IndexIDMap2(inner) if self.index_factory == "Flat" else faiss.IndexIDMap(inner)
        )

    def _add(self, ids: list[str], documents: list[Document], vectors: numpy.ndarray) -> None:
        import numpy

        labels = numpy.arange(self._next, self._next + len(ids), dtype=numpy.int64)
        self._next += len(ids)
        if not self._index.is_trained:
            self._index.train(vectors)
        self._index.add_with_ids(numpy.ascontiguousarray(vectors), labels)
        for label, id_, doc in zip(labels.tolist(), ids, documents, strict=True):
            self._by_label[label] = (id_, Document(text=doc.text, metadata=dict(doc.metadata)))
            self._label_of[id_] = label

    def _search(
        self, vector: numpy.ndarray, top_k: int, filter: dict[str, Any] | None
    ) -> list[SearchResult]:
        total = len(self._by_label)
        if not total:
            return []
        if filter:
            allowed = [
                label
                for label, (_, doc) in self._by_label.items()
                if matches_filter(doc.metadata, filter)
            ]
            if not allowed:
                return []
            k = total
        else:
            allowed = None
            k = min(top_k, total)
        scores, labels = self._index.search(vector[None, :], k)
        keep = set(allowed) if allowed is not None else None
        hits = []
        for score, label in zip(scores[0].tolist(), labels[0].tolist(), strict=True):
            if label < 0 or (keep is not None and label not in keep):
                continue
            id_, doc = self._by_label[label]
            hits.append(SearchResult(document=doc, score=float(score), id=id_))
            if len(hits) == top_k:
                break
        return hits

    def _delete(self, ids: list[str]) -> None:
        import numpy

        labels = [self._label_of.pop(i) for i in ids if i in self._label_of]
        if labels:
            self._index.remove_ids(numpy.asarray(labels, dtype=numpy.int64))
            for label in labels:
                del self._by_label[label]

    def _clear(self) -> None:
        if self._index is not None:
            self._index.reset()
        self._by_label.clear()
        self._label_of.clear()

    def _count(self) -> int:
        return len(self._by_label)

    def _documents(self) -> Iterator[tuple[str, Document]]:
        return iter(list(self._by_label.values()))

    def save(self, path: str | Path) -> None:
        """Write the index (``index.faiss``) and documents (``documents.json``) to the folder ``path``."""
        folder = Path(path)
        with self._lock:
            labels = sorted(self._by_label)
            ids = [self._by_label[label][0] for label in labels]
            docs = [self._by_label[label][1] for label in labels]
            if self._index is not None:
                data = self._faiss.serialize_index(self._index).tobytes()
                atomic_write_bytes(folder / "index.faiss", data)
            extra = {
                "kind": self.kind,
                "dimension": self.dimension,
                "labels": labels,
                "next": self._next,
                "index_factory": self.index_factory,
            }
            atomic_write_bytes(folder / "documents.json", dump_documents(ids, docs, extra))

    @classmethod
    def load(cls, path: str | Path, embedder: EmbeddingProvider | None = None) -> FAISSVectorStore:
        """A store saved with :meth:`save`, ready to search and add to."""
        import numpy

        folder = Path(path)
        ids, docs, extra = load_documents(folder / "documents.json")
        store = cls(embedder=embedder, index_factory=extra.get("index_factory", "Flat"))
        store.dimension = extra.get("dimension")
        if store.dimension is not None:
            raw = numpy.frombuffer((folder / "index.faiss").read_bytes(), dtype=numpy.uint8)
            store._index = store._faiss.deserialize_index(raw)
        store._next = int(extra.get("next", 0))
        for label, id_, doc in zip(extra.get("labels", []), ids, docs, strict=True):
            store._by_label[label] = (id_, doc)
            store._label_of[id_] = label
        return store
