"""``OpenAIEmbeddingProvider``: OpenAI's embeddings API through the official SDK.

Same key, base URL and error handling as :class:`~selectools.providers.OpenAIProvider`
(``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, ``.env``; SDK retries off, failures
raised as :class:`~selectools.exceptions.ProviderError`). ``dimensions``
shortens ``text-embedding-3-*`` vectors. ``OpenAIEmbedder`` and
``OpenAIEmbeddings`` are other names for it used in the docs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._env import env_value
from ..exceptions import ProviderConfigurationError, ProviderError
from ..providers._clients import (
    PerLoop,
    close_async_client,
    close_with,
    require,
    sdk_http_client,
)
from ..providers._errors import map_sdk_error, translated_errors
from ..providers._secret import Secret, safe_url
from .provider import EmbeddingUsage, batches, check_text, check_texts

__all__ = ["OpenAIEmbedder", "OpenAIEmbeddingProvider", "OpenAIEmbeddings"]


class OpenAIEmbeddingProvider(EmbeddingUsage):
    """Embeds text with ``text-embedding-3-small`` (or the ``model`` you name)."""

    name = "openai"

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        dimensions: int | None = None,
        batch_size: int = 256,
        timeout: float | None = None,
        client: Any = None,
        async_client: Any = None,
        http_client: Any = None,
        async_http_client: Any = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if dimensions is not None and dimensions < 1:
            raise ValueError(f"dimensions must be >= 1, got {dimensions}")
        self._sdk = require("openai", "openai", "OpenAIEmbeddingProvider")
        key = api_key or env_value("OPENAI_API_KEY")
        if not key and client is None:
            raise ProviderConfigurationError("OpenAI", "API key", "OPENAI_API_KEY")
        self.model = model
        self.dimensions = dimensions
        self.batch_size = batch_size
        self.timeout = timeout
        self.base_url = base_url or env_value("OPENAI_BASE_URL")
        self._secret = Secret(key or "")
        options: dict[str, Any] = {"api_key": key or "unused", "max_retries": 0}
        if self.base_url:
            options["base_url"] = self.base_url
        sdk = self._sdk
        if client is None:
            sync_http = http_client or sdk_http_client(sdk, asynchronous=False)
            client = sdk.OpenAI(**options, http_client=sync_http)
            if http_client is None:
                close_with(self, client)
        self._client = client
        self._async_clients: PerLoop[Any] = PerLoop(
            lambda: sdk.AsyncOpenAI(
                **options, http_client=async_http_client or sdk_http_client(sdk, asynchronous=True)
            ),
            fixed=async_client,
            close=close_async_client if async_http_client is None else None,
        )
        self._init_usage()

    def __repr__(self) -> str:
        where = f", base_url={safe_url(self.base_url)!r}" if self.base_url else ""
        return f"OpenAIEmbeddingProvider(model={self.model!r}{where})"

    def _request(self, batch: list[str]) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "input": batch}
        if self.dimensions is not None:
            request["dimensions"] = self.dimensions
        if self.timeout is not None:
            request["timeout"] = self.timeout
        return request

    def _error(self, exc: Exception) -> ProviderError | None:
        return map_sdk_error(
            exc,
            self._sdk,
            label="OpenAI embeddings",
            provider=self.name,
            timeout=self.timeout,
            secret=self._secret,
        )

    def _vectors(self, response: Any, expected: int) -> list[list[float]]:
        data = sorted(response.data, key=lambda item: item.index)
        if len(data) != expected:
            raise ProviderError(
                f"OpenAI embeddings failed: asked for {expected} vectors, got {len(data)}",
                provider=self.name,
                retryable=True,
            )
        usage = getattr(response, "usage", None)
        self._record(int(getattr(usage, "prompt_tokens", 0) or 0))
        return [list(item.embedding) for item in data]

    def embed_texts(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order."""
        vectors: list[list[float]] = []
        for batch in batches(check_texts(texts, "embed_texts"), self.batch_size):
            with translated_errors(lambda exc: self._error(exc), self._secret):
                response = self._client.embeddings.create(**self._request(batch))
            vectors.extend(self._vectors(response, len(batch)))
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self.embed_texts([check_text(text)])[0]

    async def aembed_texts(self, texts: Sequence[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for batch in batches(check_texts(texts, "aembed_texts"), self.batch_size):
            with translated_errors(lambda exc: self._error(exc), self._secret):
                client = await self._async_clients.get()
                response = await client.embeddings.create(**self._request(batch))
            vectors.extend(self._vectors(response, len(batch)))
        return vectors

    async def aembed_query(self, text: str) -> list[float]:
        return (await self.aembed_texts([check_text(text)]))[0]


OpenAIEmbedder = OpenAIEmbeddingProvider
"""Another name for ``OpenAIEmbeddingProvider``."""
OpenAIEmbeddings = OpenAIEmbeddingProvider
"""Another name for ``OpenAIEmbeddingProvider``."""
