"""``OllamaEmbeddingProvider``: local embedding models through Ollama's ``/api/embed``.

No key and no cost; the token count comes from ``prompt_eval_count``. The host
is looked up as for :class:`~selectools.providers.OllamaProvider`
(``host=``, ``OLLAMA_HOST``, ``http://localhost:11434``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._env import env_value
from ..exceptions import ProviderError
from ..providers._http import HTTPTransport
from ..providers._secret import safe_url
from ..providers.ollama_provider import DEFAULT_HOST, normalize_host
from .provider import EmbeddingUsage, batches, check_text, check_texts, estimate_tokens

__all__ = ["OllamaEmbeddingProvider"]

_LABEL = "Ollama embeddings"


class OllamaEmbeddingProvider(EmbeddingUsage):
    """Embeds text with ``nomic-embed-text`` (or the ``model`` you pulled)."""

    name = "ollama"

    def __init__(
        self,
        model: str = "nomic-embed-text",
        host: str | None = None,
        *,
        batch_size: int = 64,
        timeout: float | None = None,
        http_client: Any = None,
        async_http_client: Any = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.model = model
        self.batch_size = batch_size
        self.timeout = timeout
        self.host = normalize_host(host or env_value("OLLAMA_HOST") or DEFAULT_HOST)
        self._http = HTTPTransport(
            provider=self.name,
            extra="ollama",
            owner="OllamaEmbeddingProvider",
            base_url=self.host,
            headers={},
            secret=None,
            timeout=timeout,
            http_client=http_client,
            async_http_client=async_http_client,
        )
        self._init_usage()

    def __repr__(self) -> str:
        return f"OllamaEmbeddingProvider(model={self.model!r}, host={safe_url(self.host)!r})"

    def _vectors(self, data: Any, batch: list[str]) -> list[list[float]]:
        vectors = data.get("embeddings") if isinstance(data, dict) else None
        if not isinstance(vectors, list) or len(vectors) != len(batch):
            raise ProviderError(
                f"{_LABEL} failed: asked for {len(batch)} vectors, got "
                f"{len(vectors) if isinstance(vectors, list) else 'none'}",
                provider=self.name,
            )
        tokens = data.get("prompt_eval_count")
        self._record(int(tokens) if isinstance(tokens, int) else estimate_tokens(batch))
        return [[float(v) for v in vector] for vector in vectors]

    def embed_texts(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order."""
        vectors: list[list[float]] = []
        for batch in batches(check_texts(texts, "embed_texts"), self.batch_size):
            body = {"model": self.model, "input": batch}
            vectors.extend(
                self._vectors(self._http.post("/api/embed", body, self.timeout, _LABEL), batch)
            )
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self.embed_texts([check_text(text)])[0]

    async def aembed_texts(self, texts: Sequence[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for batch in batches(check_texts(texts, "aembed_texts"), self.batch_size):
            body = {"model": self.model, "input": batch}
            data = await self._http.apost("/api/embed", body, self.timeout, _LABEL)
            vectors.extend(self._vectors(data, batch))
        return vectors

    async def aembed_query(self, text: str) -> list[float]:
        return (await self.aembed_texts([check_text(text)]))[0]
