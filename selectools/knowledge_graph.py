"""The documented path of the knowledge-graph memory; it lives in :mod:`selectools.memory.knowledge_graph`."""

from __future__ import annotations

from .memory.knowledge_graph import (
    ExtractionError,
    InMemoryTripleStore,
    KnowledgeGraphMemory,
    SQLiteTripleStore,
    StoreVersionError,
    Triple,
    TripleStore,
    UnknownBackendError,
    keywords_of,
)

__all__ = [
    "ExtractionError",
    "InMemoryTripleStore",
    "KnowledgeGraphMemory",
    "SQLiteTripleStore",
    "StoreVersionError",
    "Triple",
    "TripleStore",
    "UnknownBackendError",
    "keywords_of",
]
