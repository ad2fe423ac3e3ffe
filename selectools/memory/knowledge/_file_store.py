"""``FileKnowledgeStore``: ``MEMORY.md`` plus daily ``logs/YYYY-MM-DD.jsonl`` in a folder.

Every write holds the folder's lock file (``.lock``), so
several processes sharing one folder never interleave or overwrite each
other. A log entry is one ``write`` of a whole JSON line, fsynced; MEMORY.md is
rewritten atomically (temp file + fsync + rename). A process killed mid-write
therefore leaves at worst a torn last log line, which readers skip (and count
in :attr:`FileKnowledgeStore.skipped_lines`, naming each in ``unreadable``) and the next writer starts after
on a fresh line. ``.selectools-knowledge.json`` records the format version: a
folder written by a newer selectools is refused with :class:`StoreVersionError`.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path

from ..._storage import append_record, atomic_write_text, file_lock
from .._store import FORMAT_VERSION, MemoryStoreError, check_version
from ._entry import KnowledgeEntry

__all__ = ["FileKnowledgeStore", "parse_memory_md", "render_memory_md"]

_LOG_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})\.jsonl$")
_MARKER = ".selectools-knowledge.json"
TITLE = "# Agent Memory"


def parse_memory_md(text: str) -> dict[str, list[str]]:
    """Facts by category from MEMORY.md (``## category`` headings, ``- fact`` bullets)."""
    facts: dict[str, list[str]] = {}
    current: str | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.startswith("## "):
            current = line[3:].strip() or "general"
            facts.setdefault(current, [])
        elif line.startswith("- ") and current is not None:
            facts[current].append(line[2:].strip())
    return facts


def render_memory_md(facts: dict[str, list[str]]) -> str:
    parts = [TITLE, ""]
    for category, items in facts.items():
        parts.append(f"## {category}")
        parts.extend(f"- {item}" for item in items)
        parts.append("")
    return "\n".join(parts)


class FileKnowledgeStore:
    """Knowledge in ``storage_dir``: ``MEMORY.md`` (long-term) and ``logs/`` (daily JSONL)."""

    def __init__(self, storage_dir: str | os.PathLike[str] = "./agent_memory") -> None:
        self.storage_dir = Path(storage_dir)
        self.memory_file = self.storage_dir / "MEMORY.md"
        self.logs_dir = self.storage_dir / "logs"
        self._lock_path = self.storage_dir / ".lock"
        #: unreadable log lines met by the last read (a line torn by a killed writer)
        self.skipped_lines = 0
        #: where each skipped line is (file and line number) and why
        self.unreadable: list[str] = []
        marker = self.storage_dir / _MARKER
        if marker.exists():
            try:
                found = json.loads(marker.read_text(encoding="utf-8")).get("format")
            except (ValueError, AttributeError) as exc:
                raise MemoryStoreError(f"{marker} cannot be read: {exc}") from None
            check_version(found, f"knowledge folder {self.storage_dir}")

    def __repr__(self) -> str:
        return f"FileKnowledgeStore({str(self.storage_dir)!r})"

    def _mark(self) -> None:
        marker = self.storage_dir / _MARKER
        if not marker.exists():
            atomic_write_text(marker, json.dumps({"format": FORMAT_VERSION}))

    # -- writing ---------------------------------------------------------------
    def add(self, entry: KnowledgeEntry) -> None:
        day = entry.timestamp.astimezone(timezone.utc).strftime("%Y-%m-%d")
        line = (json.dumps(entry.to_dict(), ensure_ascii=False) + "\n").encode("utf-8")
        with file_lock(self._lock_path):
            self._mark()
            self.logs_dir.mkdir(parents=True, exist_ok=True)
            path = self.logs_dir / f"{day}.jsonl"
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                append_record(fd, line, fsync=True)
            finally:
                os.close(fd)
            if entry.persistent:
                facts = self._read_facts()
                items = facts.setdefault(entry.category, [])
                if entry.content not in items:
                    items.append(entry.content)
                    atomic_write_text(self.memory_file, render_memory_md(facts))

    def delete(self, ids: list[str]) -> int:
        wanted = set(ids)
        removed = 0
        with file_lock(self._lock_path):
            for path in self._log_files():
                kept, dropped = [], 0
                for raw in path.read_text(encoding="utf-8").splitlines():
                    try:
                        doomed = json.loads(raw).get("id") in wanted
                    except (ValueError, AttributeError):
                        doomed = False
                    if doomed:
                        dropped += 1
                    else:
                        kept.append(raw)
                if dropped:
                    atomic_write_text(path, "".join(f"{k}\n" for k in kept))
                    removed += dropped
        return removed

    def prune(self, before: datetime) -> int:
        """Delete daily log files dated before ``before``'s day; returns how many."""
        cutoff = before.astimezone(timezone.utc).strftime("%Y-%m-%d")
        deleted = 0
        with file_lock(self._lock_path):
            for path in self._log_files():
                if path.stem < cutoff:
                    path.unlink(missing_ok=True)
                    deleted += 1
        return deleted

    def clear_logs(self) -> None:
        with file_lock(self._lock_path):
            for path in self._log_files():
                path.unlink(missing_ok=True)

    def clear(self) -> None:
        with file_lock(self._lock_path):
            for path in self._log_files():
                path.unlink(missing_ok=True)
            self.memory_file.unlink(missing_ok=True)

    # -- reading ---------------------------------------------------------------
    def _log_files(self) -> list[Path]:
        if not self.logs_dir.is_dir():
            return []
        return sorted(p for p in self.logs_dir.iterdir() if _LOG_NAME.match(p.name))

    def entries(self, since: datetime | None = None) -> list[KnowledgeEntry]:
        first_day = since.astimezone(timezone.utc).strftime("%Y-%m-%d") if since else ""
        found: list[KnowledgeEntry] = []
        unreadable: list[str] = []
        for path in self._log_files():
            if path.stem < first_day:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for number, raw in enumerate(text.splitlines(), 1):
                if not raw.strip():
                    continue
                try:
                    entry = KnowledgeEntry.from_dict(json.loads(raw))
                except (ValueError, KeyError, TypeError, AttributeError) as exc:
                    unreadable.append(f"line {number} of {path} is not a knowledge entry: {exc}")
                    continue
                if since is None or entry.timestamp >= since:
                    found.append(entry)
        self.skipped_lines = len(unreadable)
        self.unreadable = unreadable
        found.sort(key=lambda e: e.timestamp)
        return found

    def _read_facts(self) -> dict[str, list[str]]:
        try:
            return parse_memory_md(self.memory_file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}

    def facts(self) -> dict[str, list[str]]:
        return self._read_facts()
