"""``SupabaseKnowledgeStore``: entries and facts in two Supabase (PostgREST) tables, over HTTPS.

Speaks Supabase's REST API (PostgREST) with the standard library, so it needs
no extra package. Create the tables once in the Supabase SQL editor::

    create table selectools_knowledge (
        id text primary key, timestamp text not null, category text not null,
        content text not null, persistent boolean not null default false,
        importance double precision not null default 0.5, ttl_days double precision
    );
    create index on selectools_knowledge (timestamp);
    create table selectools_knowledge_facts (
        seq bigint generated always as identity primary key,
        category text not null, content text not null, unique (category, content)
    );

Every write is one HTTP request, which the database applies atomically, so a
killed client never leaves half an entry and concurrent writers never lose
each other's; beyond that, durability, concurrent writers and damaged rows are
Supabase's (the server's), so the local storage suite (kill -9, two writer
processes, damaged files) does not cover this store. Our tests run it against a
local fake of the PostgREST routes it uses (not against supabase.com). The table layout is yours, so it carries no
format version; a failed request raises :class:`MemoryStoreError` with the
status and the server's message.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote

from .._store import MemoryStoreError
from ._entry import KnowledgeEntry

__all__ = ["SupabaseKnowledgeStore"]


def _iso(when: datetime) -> str:
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class SupabaseKnowledgeStore:
    """Knowledge in a Supabase project: ``url`` (``https://<ref>.supabase.co``) and an API ``key``."""

    def __init__(
        self,
        url: str,
        key: str,
        *,
        table: str = "selectools_knowledge",
        facts_table: str = "selectools_knowledge_facts",
        timeout: float = 30.0,
    ) -> None:
        if not url or not key:
            raise ValueError("SupabaseKnowledgeStore needs the project url and an API key")
        self.url = url.rstrip("/")
        self.table = table
        self.facts_table = facts_table
        self.timeout = timeout
        self._key = key

    def __repr__(self) -> str:  # never the key
        return f"SupabaseKnowledgeStore(url={self.url!r}, table={self.table!r})"

    def _request(
        self,
        method: str,
        table: str,
        query: str = "",
        body: Any = None,
        prefer: str = "return=minimal",
    ) -> Any:
        from urllib.error import HTTPError, URLError
        from urllib.request import Request, urlopen

        data = None if body is None else json.dumps(body).encode("utf-8")
        request = Request(
            f"{self.url}/rest/v1/{table}{'?' + query if query else ''}",
            data=data,
            method=method,
            headers={
                "apikey": self._key,
                "Authorization": f"Bearer {self._key}",
                "Content-Type": "application/json",
                "Accept": "application/json",
                "Prefer": prefer,
            },
        )
        try:
            with urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except HTTPError as exc:
            detail = exc.read().decode("utf-8", "replace")[:300]
            raise MemoryStoreError(
                f"Supabase {method} {table} failed with HTTP {exc.code}: {detail}"
            ) from None
        except URLError as exc:
            raise MemoryStoreError(f"Supabase at {self.url} is unreachable: {exc.reason}") from None
        return json.loads(raw) if raw.strip() else None

    def add(self, entry: KnowledgeEntry) -> None:
        row = entry.to_dict()
        row["timestamp"] = _iso(entry.timestamp)
        self._request("POST", self.table, body=row)
        if entry.persistent:
            self._request(
                "POST",
                self.facts_table,
                "on_conflict=category,content",
                {"category": entry.category, "content": entry.content},
                "resolution=ignore-duplicates,return=minimal",
            )

    def entries(self, since: datetime | None = None) -> list[KnowledgeEntry]:
        query = "select=*&order=timestamp.asc"
        if since is not None:
            query += f"&timestamp=gte.{quote(_iso(since))}"
        rows = self._request("GET", self.table, query, prefer="count=none") or []
        return [KnowledgeEntry.from_dict(row) for row in rows]

    def facts(self) -> dict[str, list[str]]:
        rows = self._request(
            "GET", self.facts_table, "select=category,content&order=seq.asc", prefer="count=none"
        )
        facts: dict[str, list[str]] = {}
        for row in rows or []:
            facts.setdefault(row["category"], []).append(row["content"])
        return facts

    def delete(self, ids: list[str]) -> int:
        if not ids:
            return 0
        wanted = ",".join(quote(f'"{i}"') for i in ids)
        gone = self._request(
            "DELETE", self.table, f"id=in.({wanted})", prefer="return=representation"
        )
        return len(gone or [])

    def prune(self, before: datetime) -> int:
        day = before.astimezone(timezone.utc).strftime("%Y-%m-%d")
        gone = self._request(
            "DELETE", self.table, f"timestamp=lt.{day}", prefer="return=representation"
        )
        return len(gone or [])

    def clear_logs(self) -> None:
        self._request("DELETE", self.table, "id=not.is.null")

    def clear(self) -> None:
        self.clear_logs()
        self._request("DELETE", self.facts_table, "seq=not.is.null")
