"""The ``EmbeddingProvider`` protocol and the usage bookkeeping the vendor embedders share.

An embedder turns text into vectors: ``embed_query`` for one search query,
``embed_texts`` for a batch of documents (split into requests of
``batch_size``). Every request's token count is recorded as a
:class:`~selectools.usage.UsageStats` with ``embedding_tokens`` and
``embedding_cost_usd`` priced by :func:`~selectools.pricing.calculate_embedding_cost`;
``last_usage`` holds the latest and ``usage`` the running totals, so a RAG
agent can fold embedding costs into its own usage.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from ..pricing import calculate_embedding_cost
from ..usage import AgentUsage, UsageStats

__all__ = [
    "EmbeddingProvider",
    "EmbeddingUsage",
    "batches",
    "check_text",
    "check_texts",
    "estimate_tokens",
]


@runtime_checkable
class EmbeddingProvider(Protocol):
    """What vector stores and RAG tools need from an embedder."""

    model: str

    def embed_query(self, text: str) -> list[float]: ...

    def embed_texts(self, texts: Sequence[str]) -> list[list[float]]: ...


def check_texts(texts: Sequence[str], method: str) -> list[str]:
    """``texts`` as a list, or a TypeError that says what was passed instead."""
    if isinstance(texts, str):
        raise TypeError(
            f"{method} takes a list of strings, got one string; use embed_query(text) for one"
        )
    items = list(texts)
    for index, text in enumerate(items):
        if not isinstance(text, str):
            raise TypeError(f"{method}: item {index} is {type(text).__name__}, not str")
    return items


def check_text(text: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"embed_query takes a str, got {type(text).__name__}")
    return text


def estimate_tokens(texts: Sequence[str]) -> int:
    """About four characters a token, for APIs that report no count."""
    return sum((len(text) + 3) // 4 for text in texts)


def batches(items: list[str], size: int) -> list[list[str]]:
    return [items[start : start + size] for start in range(0, len(items), size)]


class EmbeddingUsage:
    """Token and cost bookkeeping for an embedder (thread-safe)."""

    name = ""
    model = ""

    def _init_usage(self) -> None:
        self.usage = AgentUsage()
        self.last_usage: UsageStats | None = None
        self._usage_lock = threading.Lock()

    def _record(self, tokens: int) -> None:
        stats = UsageStats(
            model=self.model,
            provider=self.name,
            embedding_tokens=tokens,
            embedding_cost_usd=calculate_embedding_cost(self.model, tokens),
        )
        with self._usage_lock:
            self.usage.add_usage(stats)
            self.last_usage = stats

    @property
    def total_tokens(self) -> int:
        return self.usage.total_embedding_tokens

    @property
    def total_cost_usd(self) -> float:
        return self.usage.total_embedding_cost_usd
