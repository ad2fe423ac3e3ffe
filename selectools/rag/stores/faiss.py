"""``FAISSVectorStore``: an in-process FAISS index (exact inner product on unit vectors = cosine).

``index_factory`` picks another FAISS index (``"HNSW32"`` for approximate search
over millions of vectors); the default ``"Flat"`` is exact. ``save(path)``
writes the index and the documents to the folder ``path``;
``FAISSVectorStore.load(path, embedder)`` reads them back. Every call holds a
lock (FAISS is not thread-safe for writes).

A saved folder holds ``index-<generation>.faiss`` and ``documents.json``, which
names that index file with its SHA-256 and is replaced last, atomically: a
process killed during ``save`` leaves the previous pair or the new one, never
an index that does not match its documents. ``save`` and ``load`` hold the
folder's lock file (``.selectools-faiss.lock``) across processes. A store
saved to the folder it was loaded from (or last saved to) writes its changes
on top of what other processes saved there meanwhile: adds, deletes and a
clear since then are replayed onto the folder's current contents, so two
processes adding to one folder lose nothing. Saving a store to a folder it
did not come from replaces what is there. A damaged or mismatched file is a
:class:`~selectools.rag.DocumentLoadError` naming it, never a wrong answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...stability import beta
from ..document import Document, SearchResult
from ..errors import DocumentLoadError, require_extra
from ..vector_store import VectorStore, matches_filter
from ._files import DOCUMENTS, REBUILD, SavedByGeneration, load_documents, read_checked

if TYPE_CHECKING:  # pragma: no cover
    import numpy

    from ...embeddings.provider import EmbeddingProvider

__all__ = ["FAISSVectorStore"]


@beta
class FAISSVectorStore(SavedByGeneration, VectorStore):
    """Cosine search with FAISS (the ``rag`` extra)."""

    kind = "faiss"
    _lock_file = ".selectools-faiss.lock"
    _data_files = (("index", ".faiss"),)

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
        #: the folder this store was loaded from or last saved to, and its generation then
        self._origin: tuple[Path, str] | None = None
        #: changes since then, replayed onto the folder if another process saved meanwhile
        self._added: dict[str, tuple[Document, numpy.ndarray]] = {}
        self._deleted: set[str] = set()
        self._cleared = False
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
        for label, id_, doc, vector in zip(labels.tolist(), ids, documents, vectors, strict=True):
            kept = Document(text=doc.text, metadata=dict(doc.metadata))
            self._by_label[label] = (id_, kept)
            self._label_of[id_] = label
            self._added[id_] = (kept, vector)

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

        for id_ in ids:
            self._added.pop(id_, None)
            self._deleted.add(id_)
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
        self._added.clear()
        self._deleted.clear()
        self._cleared = True

    def _count(self) -> int:
        return len(self._by_label)

    def _documents(self) -> Iterator[tuple[str, Document]]:
        return iter(list(self._by_label.values()))

    def _replay_onto(self, current: FAISSVectorStore) -> None:
        """Adopt ``current`` (the folder as saved elsewhere) with this store's changes on top."""
        import numpy

        if self._cleared:
            current._clear()
        current._delete(sorted(self._deleted))
        added = [(i, d, v) for i, (d, v) in self._added.items() if i not in current._label_of]
        if added:
            if current._index is None:
                current.dimension = self.dimension
                current._on_dimension(int(self.dimension or len(added[0][2])))
            current._add(
                [i for i, _, _ in added],
                [d for _, d, _ in added],
                numpy.stack([v for _, _, v in added]).astype(numpy.float32),
            )
        self.dimension = current.dimension
        self._index, self._next = current._index, current._next
        self._by_label, self._label_of = current._by_label, current._label_of

    def _write(self, folder: Path) -> None:
        labels = sorted(self._by_label)
        data = None
        if self._index is not None:
            data = ("index", ".faiss", self._faiss.serialize_index(self._index).tobytes())
        extra: dict[str, Any] = {
            "kind": self.kind,
            "dimension": self.dimension,
            "labels": labels,
            "next": self._next,
            "index_factory": self.index_factory,
        }
        ids = [self._by_label[label][0] for label in labels]
        docs = [self._by_label[label][1] for label in labels]
        self._commit(folder, data, ids, docs, extra)

    @classmethod
    def _read(cls, folder: Path, embedder: EmbeddingProvider | None) -> FAISSVectorStore:
        import numpy

        ids, docs, extra = load_documents(folder / DOCUMENTS)
        store = cls(embedder=embedder, index_factory=extra.get("index_factory", "Flat"))
        store.dimension = extra.get("dimension")
        labels = extra.get("labels", [])
        if len(labels) != len(ids):
            raise DocumentLoadError(
                str(folder / DOCUMENTS),
                f"{len(labels)} index labels for {len(ids)} documents (damaged); {REBUILD}",
            )
        if store.dimension is not None:
            index_path = folder / extra.get(
                "index_file", "index.faiss"
            )  # the name older saves used
            data = read_checked(index_path, extra.get("index_sha256"), "index")
            try:
                store._index = store._faiss.deserialize_index(
                    numpy.frombuffer(data, dtype=numpy.uint8)
                )
            except Exception as exc:  # FAISS raises RuntimeError with its C++ message
                raise DocumentLoadError(
                    str(index_path), f"not a FAISS index ({exc}); {REBUILD}"
                ) from None
            if store._index.ntotal != len(ids) or store._index.d != store.dimension:
                raise DocumentLoadError(
                    str(index_path),
                    f"the index holds {store._index.ntotal} vectors of dimension "
                    f"{store._index.d}, but {DOCUMENTS} lists {len(ids)} documents of "
                    f"dimension {store.dimension}; {REBUILD}",
                )
        store._next = int(extra.get("next", 0))
        for label, id_, doc in zip(labels, ids, docs, strict=True):
            store._by_label[label] = (id_, doc)
            store._label_of[id_] = label
        store._origin = (folder.resolve(), str(extra.get("generation", "")))
        return store
