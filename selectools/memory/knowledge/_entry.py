"""``KnowledgeEntry`` (one remembered item), the ``KnowledgeStore`` protocol, sanitizing."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Protocol, runtime_checkable

__all__ = ["KnowledgeEntry", "KnowledgeStore", "clean_category", "clean_content"]

#: longest content kept (longer text is cut with an ellipsis)
MAX_CONTENT = 2000
MAX_CATEGORY = 50

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_SPACE = re.compile(r"\s+")


def clean_content(content: object) -> str:
    """What is stored for ``content``: one line, no control characters, at most 2000 chars.

    One line because MEMORY.md keeps a fact per ``- `` bullet and the prompt
    shows one per line: a newline in a fact must not start a new heading or
    fake another section of the system prompt.
    """
    if not isinstance(content, str):
        raise TypeError(f"remember: content must be a string, got {type(content).__name__}")
    text = _SPACE.sub(" ", _CONTROL.sub(" ", content)).strip()
    if not text:
        raise ValueError("remember: content is empty; pass the fact to remember")
    if len(text) > MAX_CONTENT:
        text = text[: MAX_CONTENT - 1] + "…"
    return text


def clean_category(category: object) -> str:
    """A category usable as a MEMORY.md heading: one line, no ``#``, at most 50 chars."""
    if category is None:
        return "general"
    if not isinstance(category, str):
        raise TypeError(f"remember: category must be a string, got {type(category).__name__}")
    text = _SPACE.sub(" ", _CONTROL.sub(" ", category).replace("#", " ")).strip()
    return text[:MAX_CATEGORY].strip() or "general"


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _new_id() -> str:
    return os.urandom(8).hex()


@dataclass
class KnowledgeEntry:
    """One remembered item: what, under which category, how important, for how long."""

    content: str
    category: str = "general"
    persistent: bool = False
    importance: float = 0.5
    ttl_days: float | None = None
    timestamp: datetime = field(default_factory=_utc_now)
    id: str = field(default_factory=_new_id)

    def __post_init__(self) -> None:
        if isinstance(self.importance, bool) or not isinstance(self.importance, (int, float)):
            raise TypeError(f"importance must be a number, got {self.importance!r}")
        if not 0.0 <= self.importance <= 1.0:
            raise ValueError(f"importance must be between 0.0 and 1.0, got {self.importance}")
        if self.ttl_days is not None and (
            isinstance(self.ttl_days, bool)
            or not isinstance(self.ttl_days, (int, float))
            or self.ttl_days <= 0
        ):
            raise ValueError(f"ttl_days must be a positive number or None, got {self.ttl_days!r}")

    @property
    def expires_at(self) -> datetime | None:
        return None if self.ttl_days is None else self.timestamp + timedelta(days=self.ttl_days)

    def expired(self, at: datetime | None = None) -> bool:
        expires = self.expires_at
        return expires is not None and (at or _utc_now()) >= expires

    def to_dict(self) -> dict[str, Any]:
        """The JSONL line of a daily log (the documented keys first)."""
        return {
            "timestamp": self.timestamp.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "category": self.category,
            "content": self.content,
            "persistent": self.persistent,
            "importance": self.importance,
            "ttl_days": self.ttl_days,
            "id": self.id,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KnowledgeEntry:
        stamp = str(data["timestamp"]).replace("Z", "+00:00")
        when = datetime.fromisoformat(stamp)
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        return cls(
            content=str(data["content"]),
            category=str(data.get("category") or "general"),
            persistent=bool(data.get("persistent", False)),
            importance=float(data.get("importance", 0.5)),
            ttl_days=data.get("ttl_days"),
            timestamp=when,
            id=str(data.get("id") or _new_id()),
        )


@runtime_checkable
class KnowledgeStore(Protocol):
    """Where :class:`~selectools.knowledge.KnowledgeMemory` keeps entries and long-term facts.

    ``entries`` are the log (oldest first); ``facts`` the persistent ones by
    category (MEMORY.md for the file store), which log pruning never touches.
    """

    def add(self, entry: KnowledgeEntry) -> None: ...

    def entries(self, since: datetime | None = None) -> list[KnowledgeEntry]: ...

    def facts(self) -> dict[str, list[str]]: ...

    def delete(self, ids: list[str]) -> int: ...

    def prune(self, before: datetime) -> int: ...

    def clear_logs(self) -> None: ...

    def clear(self) -> None: ...
