"""``InMemoryVectorStore``: a numpy matrix searched exactly (one matrix-vector product).

Fast for up to a few hundred thousand vectors; ``save(path)``/``load(path)``
keep it across sessions in a folder: ``vectors-<generation>.npy``, then
``documents.json`` naming that file with its SHA-256, replaced last and
atomically, so a process killed during ``save`` leaves the previous pair or the
new one, never vectors that do not belong to their documents. ``save`` and
``load`` hold the folder's lock file across processes, and a store saved back to
the folder it came from replays its adds, deletes and clears onto what other
processes saved there meanwhile (two processes adding lose nothing); saving to
another folder replaces what is there. A damaged or mismatched file is a
:class:`~selectools.rag.DocumentLoadError` naming it.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..document import Document, SearchResult
from ..errors import DocumentLoadError
from ..vector_store import VectorStore, top_hits
from ._files import DOCUMENTS, REBUILD, SavedByGeneration, load_documents, read_checked

if TYPE_CHECKING:  # pragma: no cover
    import numpy

    from ...embeddings.provider import EmbeddingProvider

__all__ = ["InMemoryVectorStore"]


class InMemoryVectorStore(SavedByGeneration, VectorStore):
    """Exact cosine search over a numpy matrix held in this process."""

    kind = "memory"
    _lock_file = ".selectools-memory.lock"
    _data_files = (("vectors", ".npy"),)

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
        #: the folder this store was loaded from or last saved to, and its generation then
        self._origin: tuple[Path, str] | None = None
        #: changes since then, replayed onto the folder if another process saved meanwhile
        self._added: dict[str, tuple[Document, numpy.ndarray]] = {}
        self._deleted: set[str] = set()
        self._cleared = False

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
        if ids:
            for id_, doc, vector in zip(ids, self._docs[-len(ids) :], vectors, strict=True):
                self._added[id_] = (doc, vector)
                self._deleted.discard(id_)

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
        for id_ in gone:
            self._added.pop(id_, None)
        self._deleted |= gone
        keep = [i for i, id_ in enumerate(self._ids) if id_ not in gone]
        if len(keep) == len(self._ids):
            return
        matrix = self._vectors()
        self._matrix = matrix[numpy.asarray(keep, dtype=numpy.int64)] if keep else None
        self._ids = [self._ids[i] for i in keep]
        self._docs = [self._docs[i] for i in keep]

    def _clear(self) -> None:
        self._ids, self._docs, self._blocks, self._matrix = [], [], [], None
        self._added.clear()
        self._deleted.clear()
        self._cleared = True

    def _count(self) -> int:
        return len(self._ids)

    def _documents(self) -> Iterator[tuple[str, Document]]:
        return iter(list(zip(self._ids, self._docs, strict=True)))

    def _replay_onto(self, current: InMemoryVectorStore) -> None:
        """Adopt ``current`` (the folder as saved elsewhere) with this store's changes on top."""
        import numpy

        if self._cleared:
            current._clear()
        current._delete(sorted(self._deleted))
        have = set(current._ids)
        added = [(i, d, v) for i, (d, v) in self._added.items() if i not in have]
        if added:
            current._add(
                [i for i, _, _ in added],
                [d for _, d, _ in added],
                numpy.stack([v for _, _, v in added]).astype(numpy.float32),
            )
        self.dimension = self.dimension or current.dimension
        self._ids, self._docs = current._ids, current._docs
        self._matrix, self._blocks = current._vectors(), []

    def _write(self, folder: Path) -> None:
        import numpy

        buffer = io.BytesIO()
        numpy.save(buffer, self._vectors())
        data = ("vectors", ".npy", buffer.getvalue())
        extra = {"kind": self.kind, "dimension": self.dimension}
        self._commit(folder, data, self._ids, self._docs, extra)

    @classmethod
    def _read(cls, folder: Path, embedder: EmbeddingProvider | None) -> InMemoryVectorStore:
        import numpy

        ids, docs, extra = load_documents(folder / DOCUMENTS)
        store = cls(embedder=embedder, dimension=extra.get("dimension"))
        vectors_path = folder / str(extra.get("vectors_file", "vectors.npy"))  # older saves' name
        data = read_checked(vectors_path, extra.get("vectors_sha256"), "vectors")
        try:
            matrix = numpy.load(io.BytesIO(data), allow_pickle=False)
        except (ValueError, OSError, EOFError) as exc:
            raise DocumentLoadError(
                str(vectors_path), f"not a numpy array ({exc}); {REBUILD}"
            ) from None
        rows = matrix.shape[0] if matrix.ndim == 2 else -1
        if rows != len(ids) or (len(ids) and store.dimension not in (None, matrix.shape[1])):
            raise DocumentLoadError(
                str(vectors_path),
                f"the file holds vectors of shape {matrix.shape}, but {DOCUMENTS} lists "
                f"{len(ids)} documents of dimension {store.dimension}; {REBUILD}",
            )
        if len(ids):
            store._add(ids, docs, matrix.astype(numpy.float32))
        store._added.clear()
        store._origin = (folder.resolve(), str(extra.get("generation", "")))
        return store
