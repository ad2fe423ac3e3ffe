"""``GeminiEmbeddingProvider``: Gemini's free embedding models over HTTPS with ``httpx``.

Queries use ``:embedContent`` with ``taskType=RETRIEVAL_QUERY``; batches use
``:batchEmbedContents`` (at most 100 texts a request) with
``RETRIEVAL_DOCUMENT``, the pairing Google recommends for search. The API
reports no token counts, so usage is estimated (and costs nothing). Key and
base URL are looked up as for :class:`~selectools.providers.GeminiProvider`,
and the key travels in the ``x-goog-api-key`` header.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from ..exceptions import ProviderError
from ..providers._http import HTTPTransport
from ..providers._secret import Secret, safe_url
from ..providers.gemini_provider import DEFAULT_BASE_URL, gemini_base_url, gemini_key, retry_delay
from .provider import EmbeddingUsage, batches, check_text, check_texts, estimate_tokens

__all__ = ["GeminiEmbeddingProvider"]

_LABEL = "Gemini embeddings"


class GeminiEmbeddingProvider(EmbeddingUsage):
    """Embeds text with ``text-embedding-004`` (or the ``model`` you name)."""

    name = "gemini"

    def __init__(
        self,
        model: str = "text-embedding-004",
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        api_version: str = "v1beta",
        dimensions: int | None = None,
        batch_size: int = 100,
        timeout: float | None = None,
        http_client: Any = None,
        async_http_client: Any = None,
    ) -> None:
        if not 1 <= batch_size <= 100:
            raise ValueError(
                f"batch_size must be between 1 and 100 (the API's limit), got {batch_size}"
            )
        key = gemini_key(api_key)
        self.model = model[len("models/") :] if model.startswith("models/") else model
        self.dimensions = dimensions
        self.batch_size = batch_size
        self.timeout = timeout
        self.base_url = gemini_base_url(base_url)
        self._prefix = f"/{api_version.strip('/')}/models/{quote(self.model, safe='')}"
        self._http = HTTPTransport(
            provider=self.name,
            extra="gemini",
            owner="GeminiEmbeddingProvider",
            base_url=self.base_url,
            headers={"x-goog-api-key": key},
            secret=Secret(key),
            timeout=timeout,
            http_client=http_client,
            async_http_client=async_http_client,
            retry_hint=retry_delay,
        )
        self._init_usage()

    def __repr__(self) -> str:
        where = (
            "" if self.base_url == DEFAULT_BASE_URL else f", base_url={safe_url(self.base_url)!r}"
        )
        return f"GeminiEmbeddingProvider(model={self.model!r}{where})"

    def _request(self, text: str, task: str) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": f"models/{self.model}",
            "content": {"parts": [{"text": text}]},
            "taskType": task,
        }
        if self.dimensions is not None:
            request["outputDimensionality"] = self.dimensions
        return request

    def _single(self, data: Any, text: str) -> list[float]:
        values = data.get("embedding", {}).get("values") if isinstance(data, dict) else None
        if not isinstance(values, list):
            raise ProviderError(
                f"{_LABEL} failed: the reply has no embedding.values", provider=self.name
            )
        self._record(estimate_tokens([text]))
        return [float(v) for v in values]

    def _batch(self, data: Any, batch: list[str]) -> list[list[float]]:
        items = data.get("embeddings") if isinstance(data, dict) else None
        if not isinstance(items, list) or len(items) != len(batch):
            raise ProviderError(
                f"{_LABEL} failed: asked for {len(batch)} vectors, got "
                f"{len(items) if isinstance(items, list) else 'none'}",
                provider=self.name,
            )
        self._record(estimate_tokens(batch))
        return [[float(v) for v in item.get("values", [])] for item in items]

    def embed_query(self, text: str) -> list[float]:
        body = self._request(check_text(text), "RETRIEVAL_QUERY")
        data = self._http.post(f"{self._prefix}:embedContent", body, self.timeout, _LABEL)
        return self._single(data, text)

    def embed_texts(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order."""
        vectors: list[list[float]] = []
        for batch in batches(check_texts(texts, "embed_texts"), self.batch_size):
            body = {"requests": [self._request(t, "RETRIEVAL_DOCUMENT") for t in batch]}
            data = self._http.post(f"{self._prefix}:batchEmbedContents", body, self.timeout, _LABEL)
            vectors.extend(self._batch(data, batch))
        return vectors

    async def aembed_query(self, text: str) -> list[float]:
        body = self._request(check_text(text), "RETRIEVAL_QUERY")
        data = await self._http.apost(f"{self._prefix}:embedContent", body, self.timeout, _LABEL)
        return self._single(data, text)

    async def aembed_texts(self, texts: Sequence[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for batch in batches(check_texts(texts, "aembed_texts"), self.batch_size):
            body = {"requests": [self._request(t, "RETRIEVAL_DOCUMENT") for t in batch]}
            path = f"{self._prefix}:batchEmbedContents"
            data = await self._http.apost(path, body, self.timeout, _LABEL)
            vectors.extend(self._batch(data, batch))
        return vectors
