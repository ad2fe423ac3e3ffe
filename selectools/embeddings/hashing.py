"""``HashEmbedder``: deterministic bag-of-words vectors for unit tests. Not a model.

Each lowercase word is hashed (blake2b) into one of ``dimension`` buckets with
a sign; the vector is normalised. Texts sharing words score higher, so tests of
stores and search get a stable order with no model and no network; meaning is
not captured (use :class:`~selectools.embeddings.E5EmbeddingProvider` for that).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence

from .provider import EmbeddingUsage, check_text, check_texts, estimate_tokens

__all__ = ["HashEmbedder"]

_WORD = re.compile(r"[a-z0-9]+")


class HashEmbedder(EmbeddingUsage):
    """A test double for an embedder: same text, same vector; shared words, nearby vectors."""

    name = "hash"

    def __init__(self, dimension: int = 64) -> None:
        if dimension < 2:
            raise ValueError(f"dimension must be >= 2, got {dimension}")
        self.dimension = dimension
        self.model = f"hash-{dimension}"
        self._init_usage()

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * self.dimension
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            vector[value % self.dimension] += 1.0 if (value >> 63) & 1 else -1.0
        norm = math.sqrt(sum(x * x for x in vector))
        return [x / norm for x in vector] if norm else vector

    def embed_query(self, text: str) -> list[float]:
        text = check_text(text)
        self._record(estimate_tokens([text]))
        return self._vector(text)

    def embed_texts(self, texts: Sequence[str]) -> list[list[float]]:
        items = check_texts(texts, "embed_texts")
        self._record(estimate_tokens(items))
        return [self._vector(t) for t in items]

    def __repr__(self) -> str:
        return f"HashEmbedder(dimension={self.dimension})"
