"""Cross-session knowledge memory: ``remember`` facts, recall them in later sessions.

``from selectools.knowledge import KnowledgeMemory`` (or ``selectools.memory.knowledge``). The default file backend
keeps ``<storage_dir>/MEMORY.md`` (long-term facts by category, never pruned)
and ``<storage_dir>/logs/YYYY-MM-DD.jsonl`` (every entry, pruned after
``max_log_days``); ``backend="sqlite"``, ``backend="redis"`` and
``backend="supabase"`` store the same data in SQLite, a Redis server or two
Supabase tables, or pass any :class:`KnowledgeStore`.

With ``AgentConfig(knowledge_memory=...)`` the agent gets a ``remember`` tool
and its prompt carries ``[Long-term Memory]`` and ``[Recent Memory]``.

An unknown ``backend`` raises :class:`UnknownBackendError`; a store written by
a newer selectools raises :class:`StoreVersionError`. The Supabase store is
tested against a local fake of the PostgREST routes it uses, not supabase.com.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._store import MemoryStoreError, StoreVersionError, UnknownBackendError
from ._entry import KnowledgeEntry, KnowledgeStore
from ._file_store import FileKnowledgeStore
from ._memory import BACKENDS, KnowledgeMemory

if TYPE_CHECKING:
    from ._redis_store import RedisKnowledgeStore
    from ._sqlite_store import SQLiteKnowledgeStore
    from ._supabase_store import SupabaseKnowledgeStore

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
    if name == "SQLiteKnowledgeStore":
        from ._sqlite_store import SQLiteKnowledgeStore

        return SQLiteKnowledgeStore
    if name == "RedisKnowledgeStore":
        from ._redis_store import RedisKnowledgeStore

        return RedisKnowledgeStore
    if name == "SupabaseKnowledgeStore":
        from ._supabase_store import SupabaseKnowledgeStore

        return SupabaseKnowledgeStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
