"""``QdrantVectorStore``: a Qdrant collection through the official ``qdrant-client``.

Give it a server ``url`` (and ``api_key`` for Qdrant Cloud), a ready
``client`` (``QdrantClient(":memory:")`` or ``QdrantClient(path=...)`` run the
real client in local mode, no server), or ``location``/``path`` in
``qdrant_kwargs``. The collection is created (cosine distance) on the first
add. Metadata is stored as payload under ``metadata``, so filters run in Qdrant.

Local mode on a folder (``path=``) serves one process at a time (the client
locks the folder and keeps every point in memory). The store holds the
folder's lock file while it is open, so a store over the same folder in
another process waits up to ``lock_timeout`` seconds for it to be closed
(:meth:`close`), then raises :class:`~selectools.rag.VectorStoreInUseError`
(a Qdrant client outside selectools holding it gives the same error). A folder
the client cannot read (damaged files) is a
:class:`~selectools.rag.DocumentLoadError` naming it. For several processes,
run a Qdrant server.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...stability import beta
from ..document import Document, SearchResult
from ..errors import DocumentLoadError, VectorStoreInUseError, require_extra
from ..vector_store import VectorStore
from ._files import FolderHold, hold_folder

if TYPE_CHECKING:  # pragma: no cover
    import numpy

    from ...embeddings.provider import EmbeddingProvider

__all__ = ["QdrantVectorStore"]

_SHARE = "run a Qdrant server and pass url= to share the collection between processes"


@beta
class QdrantVectorStore(VectorStore):
    """Cosine search in a Qdrant collection (the ``rag`` extra)."""

    kind = "qdrant"

    def __init__(
        self,
        embedder: EmbeddingProvider | None = None,
        collection_name: str = "selectools",
        url: str | None = "http://localhost:6333",
        api_key: str | None = None,
        prefer_grpc: bool = True,
        *,
        client: Any = None,
        dimension: int | None = None,
        lock_timeout: float = 30.0,
        **qdrant_kwargs: Any,
    ) -> None:
        qdrant_client = require_extra("qdrant_client", "rag", "QdrantVectorStore")
        self._models = qdrant_client.models
        super().__init__(embedder, dimension)
        self.collection_name = collection_name
        self._hold: FolderHold | None = None
        if client is None:
            if qdrant_kwargs.get("path") is not None:
                client = self._open_folder(
                    qdrant_client, Path(qdrant_kwargs["path"]), lock_timeout, qdrant_kwargs
                )
            elif "location" in qdrant_kwargs or "path" in qdrant_kwargs:
                client = qdrant_client.QdrantClient(**qdrant_kwargs)
            else:
                client = qdrant_client.QdrantClient(
                    url=url, api_key=api_key, prefer_grpc=prefer_grpc, **qdrant_kwargs
                )
        self.client = client
        self._seq = itertools.count()
        if self.client.collection_exists(collection_name):
            info = self.client.get_collection(collection_name)
            size = info.config.params.vectors.size
            if dimension is not None and dimension != size:
                from ..errors import DimensionMismatchError

                raise DimensionMismatchError(
                    size, dimension, f"QdrantVectorStore({collection_name!r})"
                )
            self.dimension = int(size)
            self._seq = itertools.count(self._count())

    def _open_folder(
        self, qdrant_client: Any, folder: Path, timeout: float, kwargs: dict[str, Any]
    ) -> Any:
        """The local-mode client over ``folder``, held for this store's lifetime."""
        self._hold = hold_folder(self, folder, timeout, _SHARE)
        deadline = time.monotonic() + timeout
        while True:
            try:
                return qdrant_client.QdrantClient(**kwargs)
            except RuntimeError as exc:  # the client's own folder lock, held outside selectools
                if "already accessed" not in str(exc):
                    self._hold.release()
                    raise DocumentLoadError(str(folder), f"Qdrant cannot open it ({exc})") from None
                if time.monotonic() >= deadline:
                    self._hold.release()
                    raise VectorStoreInUseError(str(folder), timeout, _SHARE) from None
                time.sleep(0.1)
            except Exception as exc:  # the client's errors for files it cannot read
                self._hold.release()
                raise DocumentLoadError(
                    str(folder),
                    f"Qdrant cannot read this folder ({type(exc).__name__}: {exc}); restore it "
                    "from a backup, or delete it and add the documents again",
                ) from None

    def _ensure_collection(self) -> None:
        if not self.client.collection_exists(self.collection_name):
            self.client.create_collection(
                self.collection_name,
                vectors_config=self._models.VectorParams(
                    size=self.dimension, distance=self._models.Distance.COSINE
                ),
            )

    def _add(self, ids: list[str], documents: list[Document], vectors: numpy.ndarray) -> None:
        self._ensure_collection()
        points = [
            self._models.PointStruct(
                id=id_,
                vector=vec.tolist(),
                payload={"text": doc.text, "metadata": doc.metadata, "seq": next(self._seq)},
            )
            for id_, doc, vec in zip(ids, documents, vectors, strict=True)
        ]
        self.client.upsert(self.collection_name, points=points, wait=True)

    def _filter(self, filter: dict[str, Any] | None) -> Any:
        if not filter:
            return None
        m = self._models
        conditions = []
        for key, value in filter.items():
            if isinstance(value, (list, tuple, set, frozenset)):
                match: Any = m.MatchAny(any=list(value))
            else:
                match = m.MatchValue(value=value)
            conditions.append(m.FieldCondition(key=f"metadata.{key}", match=match))
        return m.Filter(must=conditions)

    def _search(
        self, vector: numpy.ndarray, top_k: int, filter: dict[str, Any] | None
    ) -> list[SearchResult]:
        if not self.client.collection_exists(self.collection_name):
            return []
        response = self.client.query_points(
            self.collection_name,
            query=vector.tolist(),
            limit=top_k,
            query_filter=self._filter(filter),
            with_payload=True,
        )
        return [
            SearchResult(
                document=Document(text=p.payload["text"], metadata=p.payload.get("metadata") or {}),
                score=float(p.score),
                id=str(p.id),
            )
            for p in response.points
        ]

    def _delete(self, ids: list[str]) -> None:
        if ids and self.client.collection_exists(self.collection_name):
            self.client.delete(
                self.collection_name,
                points_selector=self._models.PointIdsList(points=ids),
                wait=True,
            )

    def _clear(self) -> None:
        if self.client.collection_exists(self.collection_name):
            self.client.delete_collection(self.collection_name)

    def _count(self) -> int:
        if not self.client.collection_exists(self.collection_name):
            return 0
        return int(self.client.count(self.collection_name, exact=True).count)

    def _documents(self) -> Iterator[tuple[str, Document]]:
        if not self.client.collection_exists(self.collection_name):
            return iter([])
        points: list[Any] = []
        offset = None
        while True:
            batch, offset = self.client.scroll(
                self.collection_name,
                limit=1000,
                offset=offset,
                with_payload=True,
                with_vectors=False,
            )
            points.extend(batch)
            if offset is None:
                break
        points.sort(key=lambda p: p.payload.get("seq", 0))
        return iter(
            [
                (
                    str(p.id),
                    Document(text=p.payload["text"], metadata=p.payload.get("metadata") or {}),
                )
                for p in points
            ]
        )

    def close(self) -> None:
        """Release the client (and the folder in local mode: another process can open it)."""
        self.client.close()
        if self._hold is not None:
            self._hold.release()
