"""``KnowledgeGraphMemory``: a triple store plus LLM extraction and prompt context."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..._display import RichDisplay, render
from .._store import (
    FORMAT_VERSION,
    UnknownBackendError,
    check_version,
    parse_json_array,
)
from ._stores import InMemoryTripleStore, SQLiteTripleStore
from ._triple import Triple, TripleStore

if TYPE_CHECKING:
    import pandas

    from ...providers.base import AnyProvider, LLMRequest

__all__ = ["CONTEXT_HEADER", "KnowledgeGraphMemory", "keywords_of"]

CONTEXT_HEADER = "[Known Relationships]"

#: ``storage=`` names (QUICKSTART's spelling) and the store each builds.
STORAGE_KINDS = ("memory", "sqlite")

_SYSTEM = "You extract relationships from text and reply with JSON only."

_PROMPT = """Extract all relationships from the following text as subject-relation-object triples.

For each triple, provide:
- subject: the source entity
- relation: the relationship (use snake_case, e.g., "works_at", "located_in", "manages")
- object: the target entity
- confidence: how confident you are (0.0 to 1.0)

Respond as a JSON array.

Text:
\"\"\"
{text}
\"\"\""""

_WORD = re.compile(r"[\w'-]+", re.UNICODE)
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "she",
        "he",
        "so",
        "that",
        "the",
        "their",
        "them",
        "there",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
        "about",
        "know",
        "tell",
    ]
)


def keywords_of(text: str) -> list[str]:
    """The words of ``text`` worth searching the graph for (no stop words, possessives cut)."""
    words = []
    for raw in _WORD.findall(text):
        word = raw.strip("'-")
        if word.lower().endswith("'s"):
            word = word[:-2]
        if len(word) > 1 and word.lower() not in _STOP and word not in words:
            words.append(word)
    return words


def _snake(relation: str) -> str:
    return re.sub(r"[^\w]+", "_", relation.strip().lower()).strip("_") or relation.strip()


def _triple_from_reply(item: dict[str, Any], turn: int | None) -> Triple | None:
    parts = [item.get(k) for k in ("subject", "relation", "object")]
    if not all(isinstance(p, str) and p.strip() for p in parts):
        return None
    subject, relation, obj = (str(p).strip() for p in parts)
    confidence = item.get("confidence", 1.0)
    try:
        value = min(1.0, max(0.0, float(confidence)))
    except (TypeError, ValueError):
        value = 1.0
    return Triple(subject, _snake(relation), obj, value, turn)


class KnowledgeGraphMemory(RichDisplay):
    """Relationships extracted from conversation, kept in a :class:`TripleStore`.

    ``store`` is any triple store; QUICKSTART's ``storage="memory"`` /
    ``storage="sqlite"`` (with ``db_path``, default ``knowledge_graph.db``) is
    accepted as a shortcut. Triples below ``min_confidence`` never reach the
    prompt or :meth:`query`.
    """

    def __init__(
        self,
        store: TripleStore | None = None,
        provider: AnyProvider | None = None,
        extraction_model: str | None = None,
        max_context_triples: int = 30,
        min_confidence: float = 0.5,
        *,
        storage: str | None = None,
        db_path: str | Path = "knowledge_graph.db",
    ) -> None:
        if store is None:
            store = self._store_for(storage or "memory", db_path)
        elif storage is not None:
            raise ValueError("KnowledgeGraphMemory: pass store= or storage=, not both")
        if not isinstance(store, TripleStore):
            raise TypeError(
                "KnowledgeGraphMemory: store must implement TripleStore (add, query, search, "
                f"delete, all, clear, count), got {type(store).__name__}"
            )
        if isinstance(max_context_triples, bool) or not isinstance(max_context_triples, int):
            raise TypeError("KnowledgeGraphMemory: max_context_triples must be an int")
        if max_context_triples < 1:
            raise ValueError("KnowledgeGraphMemory: max_context_triples must be >= 1")
        if not 0.0 <= float(min_confidence) <= 1.0:
            raise ValueError("KnowledgeGraphMemory: min_confidence must be between 0.0 and 1.0")
        self.store = store
        self.provider = provider
        self.extraction_model = extraction_model
        self.max_context_triples = max_context_triples
        self.min_confidence = float(min_confidence)
        #: turns extracted so far (the ``source_turn`` of new triples)
        self.turns = 0

    @staticmethod
    def _store_for(storage: str, db_path: str | Path) -> TripleStore:
        if storage == "memory":
            return InMemoryTripleStore()
        if storage == "sqlite":
            return SQLiteTripleStore(db_path)
        raise UnknownBackendError("KnowledgeGraphMemory(storage=...)", storage, STORAGE_KINDS)

    # -- extraction ------------------------------------------------------------
    def extraction_request(self, text: str) -> LLMRequest:
        """The model call :meth:`extract_triples` makes (the agent sends the same one)."""
        from ..._side_call import side_request
        from ...types import Message, Role

        prompt = _PROMPT.format(text=text)
        return side_request(
            self.extraction_model or "", _SYSTEM, [Message(role=Role.USER, content=prompt)], 1000
        )

    def parse_extraction(self, reply: str) -> list[Triple]:
        """Triples from a model reply; :class:`ExtractionError` when it is not a JSON array."""
        items = parse_json_array("knowledge graph", reply)
        turn = self.turns + 1
        return [t for t in (_triple_from_reply(i, turn) for i in items) if t is not None]

    def extract_triples(self, text: str) -> list[Triple]:
        """Ask the provider for the relationships in ``text`` (``[]`` without a provider)."""
        if self.provider is None:
            return []
        from ..._side_call import ask

        message, _usage = ask(self.provider, self.extraction_request(text))
        return self.parse_extraction(message.text)

    # -- storing and reading ---------------------------------------------------
    def update(self, triples: list[Triple]) -> None:
        """Add ``triples`` to the store (duplicates ignored)."""
        for triple in triples:
            if not isinstance(triple, Triple):
                raise TypeError(
                    f"KnowledgeGraphMemory.update takes Triple objects, got {type(triple).__name__}"
                )
        self.turns += 1
        self.store.add(list(triples))

    def query(self, keywords: list[str], top_k: int = 20) -> list[Triple]:
        """Triples mentioning any keyword, at or above ``min_confidence``, best first."""
        if isinstance(keywords, str):
            keywords = [keywords]
        found = self.store.search(keywords, top_k=max(top_k * 4, top_k))
        return [t for t in found if t.confidence >= self.min_confidence][:top_k]

    def neighbours(self, entity: str, depth: int = 1) -> list[Triple]:
        """The triples within ``depth`` hops of ``entity`` (as subject or object), nearest first."""
        seen: dict[tuple[str, str, str], Triple] = {}
        visited = {entity}
        frontier = [entity]
        for _ in range(max(1, depth)):
            reached: list[str] = []
            for name in frontier:
                for triple in [*self.store.query(subject=name), *self.store.query(object=name)]:
                    if triple.key in seen or triple.confidence < self.min_confidence:
                        continue
                    seen[triple.key] = triple
                    for other in (triple.subject, triple.object):
                        if other not in visited:
                            visited.add(other)
                            reached.append(other)
            frontier = reached
        return list(seen.values())

    def build_context(self, keywords: list[str] | None = None) -> str:
        """The ``[Known Relationships]`` block: triples matching ``keywords``, else the latest."""
        if keywords:
            triples = self.query(keywords, top_k=self.max_context_triples)
        else:
            kept = [t for t in self.store.all() if t.confidence >= self.min_confidence]
            triples = kept[-self.max_context_triples :]
        if not triples:
            return ""
        return "\n".join([CONTEXT_HEADER, *(t.context_line() for t in triples)])

    def clear(self) -> None:
        self.store.clear()
        self.turns = 0

    def __len__(self) -> int:
        return self.store.count()

    def __repr__(self) -> str:
        return f"KnowledgeGraphMemory(store={self.store!r}, min_confidence={self.min_confidence})"

    # -- persistence -----------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "extraction_model": self.extraction_model,
            "max_context_triples": self.max_context_triples,
            "min_confidence": self.min_confidence,
            "turns": self.turns,
            "triples": [t.to_dict() for t in self.store.all()],
        }

    @classmethod
    def from_dict(
        cls, data: dict[str, Any], store: TripleStore, provider: AnyProvider | None = None
    ) -> KnowledgeGraphMemory:
        """Restore into ``store`` (triples it already holds stay; duplicates are ignored)."""
        check_version(data.get("format"), "this knowledge graph snapshot")
        memory = cls(
            store=store,
            provider=provider,
            extraction_model=data.get("extraction_model"),
            max_context_triples=int(data.get("max_context_triples", 30)),
            min_confidence=float(data.get("min_confidence", 0.5)),
        )
        store.add([Triple.from_dict(t) for t in data.get("triples", [])])
        memory.turns = int(data.get("turns", 0))
        return memory

    # -- notebook --------------------------------------------------------------
    def to_dataframe(self) -> pandas.DataFrame:
        return render(self, "dataframe")

    def to_svg(self, *, max_triples: int = 60) -> str:
        """The graph drawn as a static SVG (laid out in Python, no JavaScript, offline)."""
        svg: str = render(self, "svg", max_triples=max_triples)
        return svg
