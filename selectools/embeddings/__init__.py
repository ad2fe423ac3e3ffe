"""Embedding providers: text in, vectors out (for RAG and semantic search).

Names load lazily, so importing this package pulls in no SDK until an embedder
is used. ``OpenAIEmbedder`` and ``OpenAIEmbeddings`` are other names the docs
use for :class:`OpenAIEmbeddingProvider`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from .provider import EmbeddingProvider

__all__ = [
    "EmbeddingProvider",
    "GeminiEmbeddingProvider",
    "OllamaEmbeddingProvider",
    "OpenAIEmbedder",
    "OpenAIEmbeddingProvider",
    "OpenAIEmbeddings",
]

_LAZY = {
    "OpenAIEmbeddingProvider": ".openai",
    "OpenAIEmbedder": ".openai",
    "OpenAIEmbeddings": ".openai",
    "GeminiEmbeddingProvider": ".gemini",
    "OllamaEmbeddingProvider": ".ollama",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .gemini import GeminiEmbeddingProvider
    from .ollama import OllamaEmbeddingProvider
    from .openai import OpenAIEmbedder, OpenAIEmbeddingProvider, OpenAIEmbeddings
