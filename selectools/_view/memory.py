"""Notebook views of entity, knowledge-graph and knowledge memory (HTML and DataFrames).

Plain string building; pandas is imported inside the ``*_dataframe`` functions
only (the notebook extra). The graph picture is :mod:`.graph_svg`.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from .._display import Renderers
from .._install import install_hint
from ._html import badge, box, details, esc, muted, table
from .graph_svg import triples_svg

if TYPE_CHECKING:
    import pandas

    from ..memory.entity import Entity, EntityMemory
    from ..memory.knowledge import KnowledgeEntry, KnowledgeMemory
    from ..memory.knowledge_graph import KnowledgeGraphMemory, Triple

__all__ = [
    "RENDERERS",
    "entities_dataframe",
    "entities_html",
    "knowledge_dataframe",
    "knowledge_graph_html",
    "knowledge_html",
    "triples_dataframe",
]


def _pandas() -> Any:
    try:
        return importlib.import_module("pandas")
    except ImportError as exc:
        raise ModuleNotFoundError(
            f"to_dataframe() needs pandas: {install_hint('notebook')}"
        ) from exc


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def _when(value: datetime | None) -> str:
    if value is None:
        return ""
    return value.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M")


def entities_dataframe(entities: Sequence[Entity]) -> pandas.DataFrame:
    pd = _pandas()
    columns = [
        "name",
        "entity_type",
        "mentions",
        "attributes",
        "aliases",
        "first_seen",
        "last_seen",
    ]
    rows = [
        [
            e.name,
            e.entity_type,
            e.mentions,
            dict(e.attributes),
            list(e.aliases),
            e.first_seen,
            e.last_seen,
        ]
        for e in entities
    ]
    return pd.DataFrame(rows, columns=columns)


def entities_html(entities: Sequence[Entity], capacity: int) -> str:
    head = f"<b>EntityMemory</b> {badge(_count(len(entities), 'entity', 'entities'))} {muted(f'of {capacity}')}"
    if not entities:
        return box(f"{head} {muted('nothing tracked yet')}", "entity-memory")
    rows = [
        [
            esc(e.name),
            badge(e.entity_type, "info"),
            esc(", ".join(f"{k}={v}" for k, v in e.attributes.items())),
            str(e.mentions),
            esc(", ".join(e.aliases)),
            esc(_when(e.last_seen)),
        ]
        for e in entities
    ]
    body = table(
        ["name", "type", "attributes", "mentions", "aliases", "last seen"], rows, numeric=(3,)
    )
    return box(f"{head}{body}", "entity-memory")


def triples_dataframe(triples: Sequence[Triple]) -> pandas.DataFrame:
    pd = _pandas()
    columns = ["subject", "relation", "object", "confidence", "source_turn", "created_at"]
    rows = [
        [t.subject, t.relation, t.object, t.confidence, t.source_turn, t.created_at]
        for t in triples
    ]
    return pd.DataFrame(rows, columns=columns)


def knowledge_graph_html(triples: Sequence[Triple], min_confidence: float) -> str:
    head = f"<b>KnowledgeGraphMemory</b> {badge(_count(len(triples), 'triple', 'triples'))}"
    if not triples:
        return box(f"{head} {muted('no relationships yet')}", "knowledge-graph")
    rows = [
        [
            esc(t.subject),
            badge(t.relation, "info"),
            esc(t.object),
            f"{t.confidence:.2f}"
            if t.confidence >= min_confidence
            else muted(f"{t.confidence:.2f}"),
        ]
        for t in triples
    ]
    listing = table(["subject", "relation", "object", "confidence"], rows, numeric=(3,))
    return box(
        f"{head}<div>{triples_svg(triples[-60:])}</div>{details('triples', listing)}",
        "knowledge-graph",
    )


def knowledge_dataframe(
    entries: Sequence[KnowledgeEntry], facts: dict[str, list[str]]
) -> pandas.DataFrame:
    pd = _pandas()
    columns = ["timestamp", "category", "content", "persistent", "importance", "ttl_days", "source"]
    rows: list[list[Any]] = [
        [e.timestamp, e.category, e.content, e.persistent, e.importance, e.ttl_days, "log"]
        for e in entries
    ]
    logged = {(e.category, e.content) for e in entries}
    for category, items in facts.items():
        for item in items:
            if (category, item) not in logged:
                rows.append([None, category, item, True, 1.0, None, "MEMORY.md"])
    return pd.DataFrame(rows, columns=columns)


def knowledge_html(entries: Sequence[KnowledgeEntry], facts: dict[str, list[str]]) -> str:
    count = sum(len(v) for v in facts.values())
    head = (
        f"<b>KnowledgeMemory</b> {badge(_count(count, 'long-term fact', 'long-term facts'))} "
        f"{badge(_count(len(entries), 'log entry', 'log entries'))}"
    )
    parts = [head]
    if facts:
        rows = [[esc(cat), esc(item)] for cat, items in facts.items() for item in items]
        parts.append(table(["category", "fact"], rows))
    if entries:
        rows = [
            [esc(_when(e.timestamp)), esc(e.category), esc(e.content), f"{e.importance:.2f}"]
            for e in entries[-50:]
        ]
        parts.append(
            details(
                "recent log",
                table(["when", "category", "content", "importance"], rows, numeric=(3,)),
            )
        )
    if len(parts) == 1:
        parts.append(muted(" nothing remembered yet"))
    return box("".join(parts), "knowledge-memory")


def _entities_html(memory: EntityMemory) -> str:
    return entities_html(memory.get_all_entities(), memory.max_entities)


def _entities_frame(memory: EntityMemory) -> pandas.DataFrame:
    return entities_dataframe(memory.get_all_entities())


def _knowledge_html(memory: KnowledgeMemory) -> str:
    return knowledge_html(memory.entries(), memory.store.facts())


def _knowledge_frame(memory: KnowledgeMemory) -> pandas.DataFrame:
    return knowledge_dataframe(memory.entries(), memory.store.facts())


def _graph_html(memory: KnowledgeGraphMemory) -> str:
    return knowledge_graph_html(memory.store.all(), memory.min_confidence)


def _graph_frame(memory: KnowledgeGraphMemory) -> pandas.DataFrame:
    return triples_dataframe(memory.store.all())


def _graph_svg(memory: KnowledgeGraphMemory, *, max_triples: int = 60) -> str:
    return triples_svg(memory.store.all()[-max_triples:])


RENDERERS: dict[str, Renderers] = {
    "selectools.memory.entity.EntityMemory": {
        "text": repr,
        "html": _entities_html,
        "dataframe": _entities_frame,
    },
    "selectools.memory.knowledge._memory.KnowledgeMemory": {
        "text": repr,
        "html": _knowledge_html,
        "dataframe": _knowledge_frame,
    },
    "selectools.memory.knowledge_graph._memory.KnowledgeGraphMemory": {
        "text": repr,
        "html": _graph_html,
        "dataframe": _graph_frame,
        "svg": _graph_svg,
    },
}
