"""The documented path of the knowledge memory; it lives in :mod:`selectools.memory.knowledge`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .memory.knowledge import (
    BACKENDS,
    FileKnowledgeStore,
    KnowledgeEntry,
    KnowledgeMemory,
    KnowledgeStore,
    MemoryStoreError,
    StoreVersionError,
    UnknownBackendError,
)

if TYPE_CHECKING:
    from .memory.knowledge import (
        RedisKnowledgeStore,
        SQLiteKnowledgeStore,
        SupabaseKnowledgeStore,
    )

__all__ = [
    "BACKENDS",
    "FileKnowledgeStore",
    "KnowledgeEntry",
    "KnowledgeMemory",
    "KnowledgeStore",
    "MemoryStoreError",
    "RedisKnowledgeStore",
    "SQLiteKnowledgeStore",
    "StoreVersionError",
    "SupabaseKnowledgeStore",
    "UnknownBackendError",
]


def __getattr__(name: str) -> Any:
    """The stores with optional dependencies load on first use, as in the package."""
    if name in ("RedisKnowledgeStore", "SQLiteKnowledgeStore", "SupabaseKnowledgeStore"):
        from .memory import knowledge

        return getattr(knowledge, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
