"""Embedding providers: text in, vectors out (for RAG and semantic search).

Names load lazily, so importing this package pulls in no SDK until an embedder
is used. ``OpenAIEmbedder`` and ``OpenAIEmbeddings`` are other names the docs
use for :class:`OpenAIEmbeddingProvider`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'selectools.embeddings' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .gemini import GeminiEmbeddingProvider
    from .ollama import OllamaEmbeddingProvider
    from .openai import OpenAIEmbedder, OpenAIEmbeddingProvider, OpenAIEmbeddings
