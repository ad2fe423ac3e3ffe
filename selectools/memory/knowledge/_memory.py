"""``KnowledgeMemory``: facts an agent (or you) chose to keep, across sessions."""

from __future__ import annotations

import os
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..._display import RichDisplay, render
from .._store import UnknownBackendError
from ._entry import KnowledgeEntry, KnowledgeStore, clean_category, clean_content
from ._file_store import FileKnowledgeStore

if TYPE_CHECKING:
    import pandas

    from ...tools import Tool

__all__ = ["BACKENDS", "KnowledgeMemory"]

BACKENDS = ("file", "sqlite", "redis", "supabase")
"""``backend=`` names."""

_WORD = re.compile(r"\w+", re.UNICODE)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


class KnowledgeMemory(RichDisplay):
    """Long-term facts (MEMORY.md) and daily logs, injected into the agent's prompt.

    ``storage_dir`` is the folder of the default file backend; ``backend="sqlite"``
    (``db_path``, default ``<storage_dir>/knowledge.db``) and ``backend="redis"``
    (``redis_url``, ``redis_prefix``) and ``backend="supabase"`` (``supabase_url``,
    ``supabase_key`` or ``$SUPABASE_URL``/``$SUPABASE_KEY``) keep the same data
    elsewhere, or pass any
    :class:`KnowledgeStore` as ``store``. QUICKSTART's ``directory=`` and
    ``recent_days=`` are accepted: ``recent_days`` limits ``[Recent Memory]`` to
    the last N days (default: ``max_log_days``). ``max_entries`` caps the log:
    beyond it the least important (then oldest) non-persistent entries go.
    """

    def __init__(
        self,
        storage_dir: str | os.PathLike[str] = "./agent_memory",
        max_log_days: int = 30,
        max_context_entries: int = 50,
        *,
        backend: str = "file",
        store: KnowledgeStore | None = None,
        db_path: str | os.PathLike[str] | None = None,
        redis_url: str = "redis://localhost:6379/0",
        redis_prefix: str = "selectools:knowledge:",
        supabase_url: str | None = None,
        supabase_key: str | None = None,
        max_entries: int | None = None,
        directory: str | os.PathLike[str] | None = None,
        recent_days: int | None = None,
    ) -> None:
        if directory is not None:
            storage_dir = directory
        for knob, value in (
            ("max_log_days", max_log_days),
            ("max_context_entries", max_context_entries),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"KnowledgeMemory: {knob} must be an int >= 0, got {value!r}")
        self.storage_dir = Path(storage_dir)
        self.max_log_days = max_log_days
        self.max_context_entries = max_context_entries
        self.recent_days = recent_days
        self.max_entries = max_entries
        if store is None:
            store = self._store_for(
                backend, db_path, redis_url, redis_prefix, supabase_url, supabase_key
            )
        elif not isinstance(store, KnowledgeStore):
            raise TypeError(
                "KnowledgeMemory: store must implement KnowledgeStore (add, entries, facts, delete, "
                f"prune, clear_logs, clear), got {type(store).__name__}"
            )
        self.store: KnowledgeStore = store

    def _store_for(
        self,
        backend: str,
        db_path: str | os.PathLike[str] | None,
        redis_url: str,
        redis_prefix: str,
        supabase_url: str | None,
        supabase_key: str | None,
    ) -> KnowledgeStore:
        if backend == "file":
            return FileKnowledgeStore(self.storage_dir)
        if backend == "sqlite":
            from ._sqlite_store import SQLiteKnowledgeStore

            return SQLiteKnowledgeStore(
                Path(db_path) if db_path else self.storage_dir / "knowledge.db"
            )
        if backend == "redis":
            from ._redis_store import RedisKnowledgeStore

            return RedisKnowledgeStore(redis_url, prefix=redis_prefix)
        if backend == "supabase":
            from ._supabase_store import SupabaseKnowledgeStore

            url = supabase_url or os.environ.get("SUPABASE_URL")
            key = supabase_key or os.environ.get("SUPABASE_KEY")
            if not url or not key:
                raise ValueError(
                    "KnowledgeMemory(backend='supabase') needs supabase_url= and supabase_key= "
                    "(or the SUPABASE_URL and SUPABASE_KEY environment variables)"
                )
            return SupabaseKnowledgeStore(url, key)
        raise UnknownBackendError("KnowledgeMemory(backend=...)", backend, BACKENDS)

    def __repr__(self) -> str:
        return f"KnowledgeMemory(store={self.store!r}, max_log_days={self.max_log_days})"

    # -- writing ---------------------------------------------------------------
    def remember(
        self,
        content: str,
        category: str = "general",
        persistent: bool = False,
        *,
        importance: float = 0.5,
        ttl_days: float | None = None,
    ) -> str:
        """Store ``content`` in today's log (and in MEMORY.md when ``persistent``).

        The content is stored as one clean line (control characters and line
        breaks become spaces; at most 2000 characters). Returns the
        confirmation the ``remember`` tool gives the model.
        """
        entry = KnowledgeEntry(
            clean_content(content),
            clean_category(category),
            bool(persistent),
            importance,
            ttl_days,
        )
        self.store.add(entry)
        if self.max_entries is not None:
            self._evict()
        where = "long-term memory" if entry.persistent else "memory"
        return f"Saved to {where} ({entry.category}): {entry.content}"

    def _evict(self) -> None:
        assert self.max_entries is not None
        kept = [e for e in self.store.entries() if not e.persistent]
        excess = len(kept) - self.max_entries
        if excess > 0:
            kept.sort(key=lambda e: (e.importance, e.timestamp))
            self.store.delete([e.id for e in kept[:excess]])

    # -- reading ---------------------------------------------------------------
    def entries(self, days: int | None = None) -> list[KnowledgeEntry]:
        """Unexpired log entries (of the last ``days`` days), oldest first."""
        now = datetime.now(timezone.utc)
        since = None if days is None else now - timedelta(days=days)
        return [e for e in self.store.entries(since) if not e.expired(now)]

    def recall(
        self,
        query: str | None = None,
        *,
        category: str | None = None,
        limit: int = 10,
        min_importance: float = 0.0,
    ) -> list[KnowledgeEntry]:
        """Entries matching ``query`` (shared words), best first: matches, importance, recency.

        Long-term facts whose log entries were pruned still come back (as
        persistent entries). Without a query, the most important recent ones.
        """
        found = self.entries()
        seen = {(e.category, e.content) for e in found}
        stamp = datetime.fromtimestamp(0, timezone.utc)
        for cat, items in self.store.facts().items():
            for text in items:
                if (cat, text) not in seen:
                    found.append(
                        KnowledgeEntry(text, cat, True, 1.0, None, stamp, f"fact:{cat}:{text}")
                    )
        if category is not None:
            found = [e for e in found if e.category == category]
        found = [e for e in found if e.importance >= min_importance]
        wanted = _words(query) if query else set()
        scored = []
        for entry in found:
            score = len(wanted & _words(f"{entry.content} {entry.category}")) if wanted else 0
            if wanted and score == 0:
                continue
            scored.append((score, entry.importance, entry.timestamp, entry))
        scored.sort(key=lambda s: (s[0], s[1], s[2]), reverse=True)
        return [s[3] for s in scored[:limit]]

    def get_persistent_facts(self) -> dict[str, list[str]]:
        """Every long-term fact, by category."""
        return self.store.facts()

    def get_recent_entries(self, days: int = 7, limit: int = 50) -> list[dict[str, Any]]:
        """The last ``limit`` log entries of the last ``days`` days, as dicts, oldest first."""
        return [e.to_dict() for e in self.entries(days)[-limit:]] if limit > 0 else []

    def build_context(self) -> str:
        """``[Long-term Memory]`` then ``[Recent Memory]``; an empty section is left out.

        Stale logs (older than ``max_log_days``) are pruned first.
        """
        self.prune_logs()
        sections = []
        facts = self.store.facts()
        if facts:
            lines = ["[Long-term Memory]"]
            for category, items in facts.items():
                lines.append(f"## {category}")
                lines.extend(f"- {item}" for item in items)
                lines.append("")
            sections.append("\n".join(lines).rstrip())
        days = self.recent_days if self.recent_days is not None else self.max_log_days
        recent = [e for e in self.entries(days) if not e.persistent]
        recent = recent[-self.max_context_entries :] if self.max_context_entries else []
        if recent:
            lines = ["[Recent Memory]"]
            for entry in recent:
                when = entry.timestamp.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M")
                lines.append(f"- [{when}] ({entry.category}) {entry.content}")
            sections.append("\n".join(lines))
        return "\n\n".join(sections)

    # -- housekeeping ----------------------------------------------------------
    def prune_logs(self, max_days: int | None = None) -> int:
        """Delete logs older than ``max_days`` (default ``max_log_days``); returns how many.

        The file backend counts daily files, the others entries. MEMORY.md and
        long-term facts are never pruned.
        """
        days = self.max_log_days if max_days is None else max_days
        before = datetime.now(timezone.utc) - timedelta(days=days)
        return self.store.prune(before)

    def clear(self) -> None:
        """Remove everything: long-term facts and logs."""
        self.store.clear()

    def clear_logs(self) -> None:
        """Remove the logs, keep the long-term facts."""
        self.store.clear_logs()

    # -- agent -----------------------------------------------------------------
    def remember_tool(self) -> Tool:
        """The ``remember`` tool ``AgentConfig(knowledge_memory=...)`` gives the agent."""
        from ...tools import tool

        memory = self

        @tool(description="Save important information to long-term memory for future reference")
        def remember(content: str, category: str = "general", persistent: bool = False) -> str:
            """Remember a fact or piece of information.

            Args:
                content: The information to remember.
                category: Category for organization (e.g., "preferences", "personal", "technical").
                persistent: Whether this should be stored permanently.
            """
            return memory.remember(content, category, persistent)

        return remember

    # -- notebook --------------------------------------------------------------
    def to_dataframe(self) -> pandas.DataFrame:
        """Log entries plus long-term facts, one row each (pandas imported on use)."""
        return render(self, "dataframe")
