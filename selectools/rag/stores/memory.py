"""``InMemoryVectorStore``: a numpy matrix searched exactly (one matrix-vector product).

Fast for up to a few hundred thousand vectors; ``save(path)``/``load(path)``
keep it across sessions (``documents.json`` + ``vectors.npy`` in a folder).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..._storage import atomic_write_bytes
from ..document import Document, SearchResult
from ..vector_store import VectorStore, top_hits
from ._files import dump_documents, load_documents

if TYPE_CHECKING:  # pragma: no cover
    import numpy

    from ...embeddings.provider import EmbeddingProvider

__all__ = ["InMemoryVectorStore"]


class InMemoryVectorStore(VectorStore):
    """Exact cosine search over a numpy matrix held in this process."""

    kind = "memory"

    def __init__(
        self,
        embedder: EmbeddingProvider | None = None,
        dimension: int | None = None,
        *,
        embeddings: EmbeddingProvider | None = None,
    ) -> None:
        if embeddings is not None:  # the MIGRATION guide's spelling of embedder=
            if embedder is not None:
                raise ValueError("pass embedder= or embeddings=, not both")
            embedder = embeddings
        super().__init__(embedder, dimension)
        self._ids: list[str] = []
        self._docs: list[Document] = []
        self._blocks: list[numpy.ndarray] = []
        self._matrix: numpy.ndarray | None = None

    def _vectors(self) -> numpy.ndarray:
        import numpy

        if self._blocks:
            parts = ([self._matrix] if self._matrix is not None else []) + self._blocks
            self._matrix = numpy.concatenate(parts)
            self._blocks = []
        if self._matrix is None:
            return numpy.zeros((0, self.dimension or 0), dtype=numpy.float32)
        return self._matrix

    def _add(self, ids: list[str], documents: list[Document], vectors: numpy.ndarray) -> None:
        self._ids.extend(ids)
        self._docs.extend(Document(text=d.text, metadata=dict(d.metadata)) for d in documents)
        self._blocks.append(vectors)

    def _search(
        self, vector: numpy.ndarray, top_k: int, filter: dict[str, Any] | None
    ) -> list[SearchResult]:
        matrix = self._vectors()
        if not len(matrix):
            return []
        return top_hits(matrix @ vector, self._ids, self._docs, top_k, filter)

    def _delete(self, ids: list[str]) -> None:
        import numpy

        gone = set(ids)
        keep = [i for i, id_ in enumerate(self._ids) if id_ not in gone]
        if len(keep) == len(self._ids):
            return
        matrix = self._vectors()
        self._matrix = matrix[numpy.asarray(keep, dtype=numpy.int64)] if keep else None
        self._ids = [self._ids[i] for i in keep]
        self._docs = [self._docs[i] for i in keep]

    def _clear(self) -> None:
        self._ids, self._docs, self._blocks, self._matrix = [], [], [], None

    def _count(self) -> int:
        return len(self._ids)

    def _documents(self) -> Iterator[tuple[str, Document]]:
        return iter(list(zip(self._ids, self._docs, strict=True)))

    def save(self, path: str | Path) -> None:
        """Write the store to the folder ``path`` (documents.json + vectors.npy, each atomically)."""
        import numpy

        folder = Path(path)
        with self._lock:
            buffer = io.BytesIO()
            numpy.save(buffer, self._vectors())
            atomic_write_bytes(folder / "vectors.npy", buffer.getvalue())
            atomic_write_bytes(
                folder / "documents.json",
                dump_documents(
                    self._ids, self._docs, {"kind": self.kind, "dimension": self.dimension}
                ),
            )

    @classmethod
    def load(
        cls, path: str | Path, embedder: EmbeddingProvider | None = None
    ) -> InMemoryVectorStore:
        import numpy

        folder = Path(path)
        ids, docs, extra = load_documents(folder / "documents.json")
        store = cls(embedder=embedder, dimension=extra.get("dimension"))
        matrix = numpy.load(folder / "vectors.npy")
        if len(ids):
            store._add(ids, docs, matrix.astype(numpy.float32))
        return store
