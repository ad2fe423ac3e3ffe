"""Embedding providers: text in, vectors out (for RAG and semantic search).

Names load lazily, so importing this package pulls in no SDK until an embedder
is used. ``OpenAIEmbedder`` and ``OpenAIEmbeddings`` are other names the docs
use for :class:`OpenAIEmbeddingProvider`. ``E5EmbeddingProvider`` (alias
``LocalEmbedder``) is a real model that runs offline and
``StaticEmbeddingProvider`` its fast offline tier (static token vectors); ``HashEmbedder`` is a
deterministic stand-in for unit tests only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from .provider import EmbeddingProvider

__all__ = [
    "E5EmbeddingProvider",
    "EmbeddingProvider",
    "GeminiEmbeddingProvider",
    "HashEmbedder",
    "LocalEmbedder",
    "OllamaEmbeddingProvider",
    "OpenAIEmbedder",
    "OpenAIEmbeddingProvider",
    "OpenAIEmbeddings",
    "StaticEmbeddingProvider",
]

_LAZY = {
    "OpenAIEmbeddingProvider": ".openai",
    "OpenAIEmbedder": ".openai",
    "OpenAIEmbeddings": ".openai",
    "GeminiEmbeddingProvider": ".gemini",
    "OllamaEmbeddingProvider": ".ollama",
    "E5EmbeddingProvider": ".e5",
    "LocalEmbedder": ".e5",
    "HashEmbedder": ".hashing",
    "StaticEmbeddingProvider": ".static",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .e5 import E5EmbeddingProvider, LocalEmbedder
    from .gemini import GeminiEmbeddingProvider
    from .hashing import HashEmbedder
    from .ollama import OllamaEmbeddingProvider
    from .openai import OpenAIEmbedder, OpenAIEmbeddingProvider, OpenAIEmbeddings
    from .static import StaticEmbeddingProvider
