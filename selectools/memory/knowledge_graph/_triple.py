"""``Triple`` and the ``TripleStore`` protocol every knowledge-graph backend implements."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

__all__ = ["Triple", "TripleStore", "matches_keywords"]


@dataclass
class Triple:
    """One relationship: ``subject --relation--> object``, with the extractor's confidence."""

    subject: str
    relation: str
    object: str
    confidence: float = 1.0
    source_turn: int | None = None
    created_at: datetime | None = None

    def __post_init__(self) -> None:
        for name in ("subject", "relation", "object"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"Triple {name} must be a non-empty string, got {value!r}")
        if isinstance(self.confidence, bool) or not isinstance(self.confidence, (int, float)):
            raise TypeError(f"Triple confidence must be a number, got {self.confidence!r}")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(
                f"Triple confidence must be between 0.0 and 1.0, got {self.confidence}"
            )

    @property
    def key(self) -> tuple[str, str, str]:
        """What makes two triples duplicates: the same subject, relation and object."""
        return (self.subject, self.relation, self.object)

    def to_dict(self) -> dict[str, Any]:
        return {
            "subject": self.subject,
            "relation": self.relation,
            "object": self.object,
            "confidence": self.confidence,
            "source_turn": self.source_turn,
            "created_at": self.created_at.isoformat() if self.created_at else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Triple:
        created = data.get("created_at")
        return cls(
            subject=data["subject"],
            relation=data["relation"],
            object=data["object"],
            confidence=float(data.get("confidence", 1.0)),
            source_turn=data.get("source_turn"),
            created_at=datetime.fromisoformat(created) if isinstance(created, str) else None,
        )

    def context_line(self) -> str:
        return f"- {self.subject} {self.relation} {self.object} ({self.confidence:.2f})"


def matches_keywords(triple: Triple, lowered: list[str]) -> int:
    """How many of the (lower-cased) keywords occur in the triple's subject, relation or object."""
    text = f"{triple.subject}\n{triple.relation}\n{triple.object}".lower()
    return sum(1 for word in lowered if word and word in text)


@runtime_checkable
class TripleStore(Protocol):
    """Where a knowledge graph keeps its triples; ``None`` filters are wildcards."""

    def add(self, triples: list[Triple]) -> None: ...

    def query(
        self,
        subject: str | None = None,
        relation: str | None = None,
        object: str | None = None,
    ) -> list[Triple]: ...

    def search(self, keywords: list[str], top_k: int = 20) -> list[Triple]: ...

    def delete(
        self,
        subject: str | None = None,
        relation: str | None = None,
        object: str | None = None,
    ) -> int: ...

    def all(self) -> list[Triple]: ...

    def clear(self) -> None: ...

    def count(self) -> int: ...
