"""``PineconeVectorStore``: a Pinecone index over its HTTP data-plane API (httpx, no SDK).

``index_name`` is resolved to the index's host through the control plane
(``GET {control_url}/indexes/{name}``) unless ``host`` (or ``PINECONE_HOST``)
is given; the key is ``api_key`` or ``PINECONE_API_KEY``. Each document is a
vector whose metadata holds the text (``_text``), the full metadata as JSON
(``_meta``) and the scalar metadata keys themselves, so filters run in
Pinecone (``$eq`` / ``$in``). Upserts go in batches of 100.

Remote only: Pinecone applies each batch whole; durability, concurrent writers
and damaged data are the service's, so the local storage suite (kill -9, two
writer processes, damaged files) does not cover this store (see the security
page).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..._env import env_value
from ...exceptions import ProviderConfigurationError
from ..document import Document, SearchResult
from ..errors import RAGError, require_extra
from ..vector_store import VectorStore

if TYPE_CHECKING:  # pragma: no cover
    import numpy

    from ...embeddings.provider import EmbeddingProvider

__all__ = ["PineconeError", "PineconeVectorStore"]

_API_VERSION = "2025-01"
_BATCH = 100


class PineconeError(RAGError):
    """A Pinecone API call failed (the status and Pinecone's message)."""


class PineconeVectorStore(VectorStore):
    """Cosine search in a Pinecone index (the ``rag`` extra, for httpx)."""

    kind = "pinecone"

    def __init__(
        self,
        embedder: EmbeddingProvider | None = None,
        index_name: str = "selectools",
        api_key: str | None = None,
        *,
        host: str | None = None,
        namespace: str = "",
        control_url: str = "https://api.pinecone.io",
        timeout: float = 30.0,
    ) -> None:
        self._httpx = require_extra("httpx", "rag", "PineconeVectorStore")
        key = api_key or env_value("PINECONE_API_KEY")
        if not key:
            raise ProviderConfigurationError("Pinecone", "API key", "PINECONE_API_KEY")
        super().__init__(embedder, None)
        self.index_name = index_name
        self.namespace = namespace
        self._headers = {"Api-Key": key, "X-Pinecone-API-Version": _API_VERSION}
        self._client = self._httpx.Client(timeout=timeout, headers=self._headers)
        host = host or env_value("PINECONE_HOST")
        if not host:
            host = self._call("GET", f"{control_url.rstrip('/')}/indexes/{index_name}")["host"]
        self.host = host if "://" in host else f"https://{host}"
        stats = self._stats()
        if stats.get("dimension"):
            self.dimension = int(stats["dimension"])
        self._seq = itertools.count(self._count_from(stats))

    def _call(self, method: str, url: str, **kwargs: Any) -> Any:
        try:
            response = self._client.request(method, url, **kwargs)
        except self._httpx.HTTPError as exc:
            raise PineconeError(f"Pinecone {method} {url}: {type(exc).__name__}: {exc}") from exc
        if response.status_code >= 400:
            try:
                detail = response.json().get("message") or response.text
            except ValueError:
                detail = response.text
            raise PineconeError(f"Pinecone {method} {url}: HTTP {response.status_code}: {detail}")
        return response.json() if response.content else {}

    def _post(self, path: str, body: dict[str, Any]) -> Any:
        return self._call("POST", f"{self.host}{path}", json=body)

    def _stats(self) -> dict[str, Any]:
        stats: dict[str, Any] = self._post("/describe_index_stats", {})
        return stats

    def _count_from(self, stats: dict[str, Any]) -> int:
        return int((stats.get("namespaces") or {}).get(self.namespace, {}).get("vectorCount", 0))

    def _add(self, ids: list[str], documents: list[Document], vectors: numpy.ndarray) -> None:
        records = []
        for id_, doc, vec in zip(ids, documents, vectors, strict=True):
            meta: dict[str, Any] = {
                k: v
                for k, v in doc.metadata.items()
                if isinstance(v, (str, int, float, bool)) and not k.startswith("_")
            }
            meta.update(
                {"_text": doc.text, "_meta": json.dumps(doc.metadata), "_seq": next(self._seq)}
            )
            records.append({"id": id_, "values": vec.tolist(), "metadata": meta})
        for start in range(0, len(records), _BATCH):
            self._post(
                "/vectors/upsert",
                {"vectors": records[start : start + _BATCH], "namespace": self.namespace},
            )

    def _search(
        self, vector: numpy.ndarray, top_k: int, filter: dict[str, Any] | None
    ) -> list[SearchResult]:
        body: dict[str, Any] = {
            "vector": vector.tolist(),
            "topK": top_k,
            "includeMetadata": True,
            "includeValues": False,
            "namespace": self.namespace,
        }
        if filter:
            body["filter"] = {
                k: {"$in": list(v)} if isinstance(v, (list, tuple, set, frozenset)) else {"$eq": v}
                for k, v in filter.items()
            }
        matches = self._post("/query", body).get("matches", [])
        return [
            SearchResult(document=_document(m["metadata"]), score=float(m["score"]), id=m["id"])
            for m in matches
        ]

    def _delete(self, ids: list[str]) -> None:
        if ids:
            self._post("/vectors/delete", {"ids": ids, "namespace": self.namespace})

    def _clear(self) -> None:
        self._post("/vectors/delete", {"deleteAll": True, "namespace": self.namespace})

    def _count(self) -> int:
        return self._count_from(self._stats())

    def _documents(self) -> Iterator[tuple[str, Document]]:
        ids: list[str] = []
        token = None
        while True:
            params: dict[str, Any] = {"namespace": self.namespace, "limit": 100}
            if token:
                params["paginationToken"] = token
            page = self._call("GET", f"{self.host}/vectors/list", params=params)
            ids.extend(v["id"] for v in page.get("vectors", []))
            token = (page.get("pagination") or {}).get("next")
            if not token:
                break
        found: list[tuple[int, str, Document]] = []
        for start in range(0, len(ids), _BATCH):
            params = {"ids": ids[start : start + _BATCH], "namespace": self.namespace}
            vectors = self._call("GET", f"{self.host}/vectors/fetch", params=params).get(
                "vectors", {}
            )
            for id_, record in vectors.items():
                meta = record.get("metadata") or {}
                found.append((int(meta.get("_seq", 0)), id_, _document(meta)))
        found.sort(key=lambda item: item[0])
        return iter([(id_, doc) for _, id_, doc in found])

    def close(self) -> None:
        self._client.close()


def _document(meta: dict[str, Any]) -> Document:
    return Document(text=str(meta.get("_text", "")), metadata=json.loads(meta.get("_meta") or "{}"))
