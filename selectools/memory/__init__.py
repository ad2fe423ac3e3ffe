"""Everything an agent remembers, in one package.

- ``conversation``: :class:`ConversationMemory`, the sliding window of the
  conversation (``Agent(memory=...)``), and the :class:`Memory` protocol;
- ``entity``: :class:`EntityMemory`, the people, places and things mentioned;
- ``knowledge_graph/``: :class:`KnowledgeGraphMemory`, subject-relation-object
  triples and their stores;
- ``knowledge/``: :class:`KnowledgeMemory`, facts remembered across sessions
  and their stores (file, SQLite, Redis, Supabase);
- ``sessions/``: :class:`SessionStore` backends that save a whole agent
  conversation under an id (JSON files, SQLite, Redis);
- ``_store``: what the kinds share (errors, the format version, extraction
  reply parsing, SQLite opening).

The agent's side of memory (injecting context, extraction calls, summaries)
lives in the loop: ``selectools/agent/_memory_kinds.py`` and
``selectools/agent/_summarize.py``. The historic import paths
(``selectools.entity_memory``, ``selectools.knowledge``,
``selectools.knowledge_graph``, ``selectools.sessions``) re-export from here.
Names load on first use, so ``import selectools.memory`` costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._store import ExtractionError, MemoryStoreError, StoreVersionError, UnknownBackendError
    from .conversation import ConversationMemory, Memory
    from .entity import Entity, EntityMemory
    from .knowledge import KnowledgeEntry, KnowledgeMemory, KnowledgeStore
    from .knowledge_graph import (
        InMemoryTripleStore,
        KnowledgeGraphMemory,
        SQLiteTripleStore,
        Triple,
        TripleStore,
    )
    from .sessions import (
        JsonFileSessionStore,
        RedisSessionStore,
        SessionStore,
        SQLiteSessionStore,
    )

_EXPORTS = {
    "ConversationMemory": ".conversation",
    "Memory": ".conversation",
    "Entity": ".entity",
    "EntityMemory": ".entity",
    "KnowledgeEntry": ".knowledge",
    "KnowledgeMemory": ".knowledge",
    "KnowledgeStore": ".knowledge",
    "InMemoryTripleStore": ".knowledge_graph",
    "KnowledgeGraphMemory": ".knowledge_graph",
    "SQLiteTripleStore": ".knowledge_graph",
    "Triple": ".knowledge_graph",
    "TripleStore": ".knowledge_graph",
    "JsonFileSessionStore": ".sessions",
    "RedisSessionStore": ".sessions",
    "SQLiteSessionStore": ".sessions",
    "SessionStore": ".sessions",
    "ExtractionError": "._store",
    "MemoryStoreError": "._store",
    "StoreVersionError": "._store",
    "UnknownBackendError": "._store",
}

__all__ = [
    "ConversationMemory",
    "Entity",
    "EntityMemory",
    "ExtractionError",
    "InMemoryTripleStore",
    "JsonFileSessionStore",
    "KnowledgeEntry",
    "KnowledgeGraphMemory",
    "KnowledgeMemory",
    "KnowledgeStore",
    "Memory",
    "MemoryStoreError",
    "RedisSessionStore",
    "SQLiteSessionStore",
    "SQLiteTripleStore",
    "SessionStore",
    "StoreVersionError",
    "Triple",
    "TripleStore",
    "UnknownBackendError",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
