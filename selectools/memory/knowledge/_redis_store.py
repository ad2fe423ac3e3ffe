"""``RedisKnowledgeStore``: entries and facts in Redis under one key prefix.

Keys: ``<prefix>entries`` (hash id -> JSON), ``<prefix>log`` (sorted set of
ids by timestamp), ``<prefix>facts`` (list of JSON ``{category, content}``,
in order), ``<prefix>format``. Each ``add`` is one MULTI/EXEC transaction, so
concurrent writers never lose each other's entries and a killed client
leaves nothing half-written. redis-py is imported when the store is built.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from ..._storage import redis_client
from .._store import FORMAT_VERSION, MemoryStoreError, check_version
from ._entry import KnowledgeEntry

__all__ = ["RedisKnowledgeStore"]


class RedisKnowledgeStore:
    """Knowledge in Redis (``url`` or a ready ``client``), keys under ``prefix``."""

    def __init__(
        self,
        url: str = "redis://localhost:6379/0",
        *,
        prefix: str = "selectools:knowledge:",
        client: Any = None,
    ) -> None:
        self.prefix = prefix
        self._r = client if client is not None else redis_client(url, "RedisKnowledgeStore")
        self._entries = f"{prefix}entries"
        self._log = f"{prefix}log"
        self._facts = f"{prefix}facts"
        self._format = f"{prefix}format"
        #: entries the last read skipped because they could not be read (which, and why)
        self.unreadable: list[str] = []
        found = self._r.get(self._format)
        if found is not None:
            try:
                version = int(found)
            except ValueError:
                raise MemoryStoreError(f"Redis key {self._format} holds {found!r}") from None
            check_version(version, f"Redis knowledge store {prefix!r}")
        else:
            self._r.set(self._format, FORMAT_VERSION, nx=True)

    def __repr__(self) -> str:
        return f"RedisKnowledgeStore(prefix={self.prefix!r})"

    def add(self, entry: KnowledgeEntry) -> None:
        fact = json.dumps({"category": entry.category, "content": entry.content})
        pipe = self._r.pipeline(transaction=True)
        pipe.hset(self._entries, entry.id, json.dumps(entry.to_dict(), ensure_ascii=False))
        pipe.zadd(self._log, {entry.id: entry.timestamp.timestamp()})
        if entry.persistent:
            pipe.lrem(self._facts, 0, fact)
            pipe.rpush(self._facts, fact)
        pipe.execute()

    def entries(self, since: datetime | None = None) -> list[KnowledgeEntry]:
        low: float | str = since.timestamp() if since is not None else "-inf"
        ids = self._r.zrangebyscore(self._log, low, "+inf")
        self.unreadable = []
        if not ids:
            return []
        raws = self._r.hmget(self._entries, ids)
        found = []
        for entry_id, raw in zip(ids, raws, strict=True):
            if raw is None:
                continue
            try:
                found.append(KnowledgeEntry.from_dict(json.loads(raw)))
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                name = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
                self.unreadable.append(
                    f"entry {name!r} at Redis key {self._entries!r} cannot be read: {exc}"
                )
        found.sort(key=lambda e: e.timestamp)
        return found

    def facts(self) -> dict[str, list[str]]:
        facts: dict[str, list[str]] = {}
        for raw in self._r.lrange(self._facts, 0, -1):
            item = json.loads(raw)
            facts.setdefault(item["category"], []).append(item["content"])
        return facts

    def delete(self, ids: list[str]) -> int:
        if not ids:
            return 0
        pipe = self._r.pipeline(transaction=True)
        pipe.hdel(self._entries, *ids)
        pipe.zrem(self._log, *ids)
        removed, _ = pipe.execute()
        return int(removed)

    def prune(self, before: datetime) -> int:
        midnight = before.replace(hour=0, minute=0, second=0, microsecond=0)
        ids = self._r.zrangebyscore(self._log, "-inf", f"({midnight.timestamp()}")
        return self.delete([i.decode() if isinstance(i, bytes) else i for i in ids])

    def clear_logs(self) -> None:
        self._r.delete(self._entries, self._log)

    def clear(self) -> None:
        self._r.delete(self._entries, self._log, self._facts)
