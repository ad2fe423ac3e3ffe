"""Rerankers: re-score retrieved candidates with a cross-encoder service (Cohere, Jina).

Both speak their vendor's HTTP rerank API with httpx: ``POST`` the query and
the candidate texts, get back ``results`` of ``{"index", "relevance_score"}``.
``rerank`` returns the candidates re-ordered by relevance with that score,
``top_k`` of them (``None``: all). Keys come from the constructor or
``COHERE_API_KEY`` / ``JINA_API_KEY``; ``api_url`` points elsewhere (a proxy, a
self-hosted endpoint, a test server).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from .._env import env_value
from ..exceptions import ProviderConfigurationError
from .document import SearchResult
from .errors import RAGError

__all__ = ["CohereReranker", "JinaReranker", "Reranker", "RerankerError"]


class RerankerError(RAGError):
    """The rerank API failed (status, and the body's message)."""

    def __init__(self, vendor: str, message: str, status_code: int | None = None) -> None:
        self.vendor = vendor
        self.status_code = status_code
        where = f"HTTP {status_code}" if status_code is not None else "request failed"
        super().__init__(f"{vendor} rerank {where}: {message}")


class Reranker(ABC):
    """Re-score and re-order search results for a query."""

    @abstractmethod
    def rerank(
        self, query: str, results: Sequence[SearchResult], top_k: int | None = None
    ) -> list[SearchResult]:
        """Re-scored results, best first; ``top_k=None`` returns all of them."""


class _HTTPReranker(Reranker):
    vendor = ""
    env_key = ""
    default_url = ""

    def __init__(
        self, model: str, api_key: str | None, api_url: str | None, timeout: float
    ) -> None:
        key = api_key or env_value(self.env_key)
        if not key:
            raise ProviderConfigurationError(self.vendor, "API key", self.env_key)
        self.model = model
        self.api_url = api_url or self.default_url
        self.timeout = timeout
        self._key = key
        self.last_response: dict[str, Any] | None = None

    def _body(self, query: str, documents: list[str], top_n: int) -> dict[str, Any]:
        return {"model": self.model, "query": query, "documents": documents, "top_n": top_n}

    def rerank(
        self, query: str, results: Sequence[SearchResult], top_k: int | None = None
    ) -> list[SearchResult]:
        import httpx

        candidates = list(results)
        if not candidates:
            return []
        top_n = len(candidates) if top_k is None else max(1, min(top_k, len(candidates)))
        try:
            response = httpx.post(
                self.api_url,
                json=self._body(query, [r.document.text for r in candidates], top_n),
                headers={"Authorization": f"Bearer {self._key}", "Accept": "application/json"},
                timeout=self.timeout,
            )
        except httpx.HTTPError as exc:
            raise RerankerError(self.vendor, f"{type(exc).__name__}: {exc}") from exc
        if response.status_code >= 400:
            raise RerankerError(self.vendor, _message(response), response.status_code)
        try:
            payload = response.json()
            ranked = [
                (int(item["index"]), float(item["relevance_score"])) for item in payload["results"]
            ]
        except (ValueError, KeyError, TypeError) as exc:
            raise RerankerError(
                self.vendor, f"unexpected response ({exc})", response.status_code
            ) from None
        self.last_response = payload
        ranked.sort(key=lambda pair: -pair[1])
        out = []
        for index, score in ranked[:top_n]:
            if not 0 <= index < len(candidates):
                raise RerankerError(
                    self.vendor, f"result index {index} out of range", response.status_code
                )
            hit = candidates[index]
            out.append(SearchResult(document=hit.document, score=score, id=hit.id))
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, api_url={self.api_url!r})"


def _message(response: Any) -> str:
    try:
        body = response.json()
    except ValueError:
        text: str = response.text[:300]  # an httpx/requests response: .text is a str
        return text
    if isinstance(body, dict):
        detail = body.get("message") or body.get("detail") or body.get("error")
        if detail:
            return str(detail)
    return str(body)[:300]


class CohereReranker(_HTTPReranker):
    """Cohere Rerank API v2 (``rerank-v3.5`` by default)."""

    vendor = "Cohere"
    env_key = "COHERE_API_KEY"
    default_url = "https://api.cohere.com/v2/rerank"

    def __init__(
        self,
        model: str = "rerank-v3.5",
        api_key: str | None = None,
        api_url: str | None = None,
        timeout: float = 30.0,
    ) -> None:
        super().__init__(model, api_key, api_url, timeout)


class JinaReranker(_HTTPReranker):
    """Jina AI Rerank API (``jina-reranker-v2-base-multilingual`` by default)."""

    vendor = "Jina"
    env_key = "JINA_API_KEY"
    default_url = "https://api.jina.ai/v1/rerank"

    def __init__(
        self,
        model: str = "jina-reranker-v2-base-multilingual",
        api_key: str | None = None,
        api_url: str | None = None,
        timeout: float = 30.0,
    ) -> None:
        super().__init__(model, api_key, api_url, timeout)

    def _body(self, query: str, documents: list[str], top_n: int) -> dict[str, Any]:
        return {**super()._body(query, documents, top_n), "return_documents": False}
