"""Cross-session knowledge memory: ``remember`` facts, recall them in later sessions.

``from selectools.knowledge import KnowledgeMemory``. The default file backend
keeps ``<storage_dir>/MEMORY.md`` (long-term facts by category, never pruned)
and ``<storage_dir>/logs/YYYY-MM-DD.jsonl`` (every entry, pruned after
``max_log_days``); ``backend="sqlite"`` and ``backend="redis"`` store the same
data in SQLite or a Redis server, or pass any :class:`KnowledgeStore`.

With ``AgentConfig(knowledge_memory=...)`` the agent gets a ``remember`` tool
and its prompt carries ``[Long-term Memory]`` and ``[Recent Memory]``.

Not included: the Supabase backend the docs name (``SupabaseKnowledgeStore``);
``backend="supabase"`` raises :class:`UnknownBackendError`. A store written
by a newer selectools raises :class:`StoreVersionError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._memory_store import MemoryStoreError, StoreVersionError, UnknownBackendError
from ._entry import KnowledgeEntry, KnowledgeStore
from ._file_store import FileKnowledgeStore
from ._memory import BACKENDS, KnowledgeMemory

if TYPE_CHECKING:
    from ._redis_store import RedisKnowledgeStore
    from ._sqlite_store import SQLiteKnowledgeStore

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
    "UnknownBackendError",
]


def __getattr__(name: str) -> Any:
    if name == "SQLiteKnowledgeStore":
        from ._sqlite_store import SQLiteKnowledgeStore

        return SQLiteKnowledgeStore
    if name == "RedisKnowledgeStore":
        from ._redis_store import RedisKnowledgeStore

        return RedisKnowledgeStore
    raise AttributeError(f"module 'selectools.knowledge' has no attribute {name!r}")
