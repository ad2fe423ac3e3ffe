"""Notebook views of RAG: ranked search results with the query's words highlighted, and a store summary."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._display import Renderers
from .._install import install_hint
from ._html import badge, box, esc, muted, plural, table

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from ..rag.document import SearchResult, SearchResults
    from ..rag.vector_store import VectorStore

__all__ = ["RENDERERS", "highlight", "search_results_html", "store_html"]

_WORD = re.compile(r"[A-Za-z0-9]+")
_MARK = '<mark style="background: rgba(255, 200, 0, 0.45); padding: 0 1px;">'
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
        "for",
        "from",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "the",
        "to",
        "was",
        "with",
    ]
)
_MAX_TEXT = 600

#: what a result's score is, by ``SearchResults.scored_by``: (column name, explanation)
SCORES = {
    "cosine": ("cosine", "cosine similarity of the query's and the chunk's embeddings (≤ 1)"),
    "bm25": ("BM25", "BM25 keyword relevance (unbounded: compare within one search only)"),
    "rrf": (
        "RRF",
        "reciprocal rank fusion: the sum of 1/(k + rank) over the vector and keyword "
        "rankings; it ranks, it does not measure similarity",
    ),
    "weighted": ("fused", "weighted sum of the vector and keyword scores, each scaled to 0–1"),
    "rerank": ("rerank", "the reranker's relevance score"),
}


def highlight(text: str, query: str | None, limit: int = _MAX_TEXT) -> str:
    """``text`` (HTML-escaped, cut to ``limit`` characters) with the query's words in ``<mark>``."""
    shown = text if len(text) <= limit else text[:limit] + "…"
    words = {w.lower() for w in _WORD.findall(query or "")} - _STOP
    if not words:
        return esc(shown)
    out = []
    last = 0
    for match in _WORD.finditer(shown):
        if match.group().lower() in words:
            out.append(esc(shown[last : match.start()]))
            out.append(f"{_MARK}{esc(match.group())}</mark>")
            last = match.end()
    out.append(esc(shown[last:]))
    return "".join(out)


def search_results_html(
    results: Sequence[SearchResult], query: str | None, scored_by: str | None = None
) -> str:
    """Rank, score (named for its kind, explained), source (with page/chunk) and the text with matches highlighted."""
    title = f"<b>{plural(len(results), 'result')}</b>"
    if query:
        title += f" for {badge(query, 'info')}"
    column, meaning = SCORES.get(scored_by or "", ("score", ""))
    if meaning:
        title += f"<div>{muted(f'{column}: {meaning}')}</div>"
    if not results:
        return box(f"{title}<div>{muted('nothing matched')}</div>", "rag-results")
    rows = [
        (
            str(rank),
            f"{hit.score:.4f}",
            esc(hit.citation),
            f'<div style="white-space: pre-wrap; max-width: 70ch;">{highlight(hit.document.text, query)}</div>',
        )
        for rank, hit in enumerate(results, 1)
    ]
    return box(
        f"<div>{title}</div>" + table(["rank", column, "source", "text"], rows, numeric=(0, 1)),
        "rag-results",
    )


def store_html(store: VectorStore, sample: int = 3) -> str:
    """The store's kind, size, dimension, embedder and its first few documents."""
    count = store.count()
    head = (
        f"<b>{esc(type(store).__name__)}</b> · {plural(count, 'document')} · "
        f"dimension {esc(store.dimension if store.dimension is not None else '—')} · "
        f"embedder {esc(repr(store.embedder) if store.embedder is not None else 'none')}"
    )
    if not count:
        return box(f"<div>{head}</div><div>{muted('empty')}</div>", "rag-store")
    docs = []
    for _, doc in store.documents():
        docs.append(doc)
        if len(docs) == sample:
            break
    from ..rag.document import citation

    rows = [(esc(citation(d.metadata)), highlight(d.text, None, 160)) for d in docs]
    return box(f"<div>{head}</div>" + table(["source", "sample text"], rows), "rag-store")


def search_results_dataframe(results: SearchResults) -> pandas.DataFrame:
    """One row a hit: rank, score, what scored it, source, citation, text, id and the metadata."""
    try:
        import pandas
    except ImportError as exc:
        raise ModuleNotFoundError(
            f"to_dataframe() needs pandas: {install_hint('notebook')}"
        ) from exc

    rows = []
    for rank, result in enumerate(results, 1):
        meta = result.document.metadata
        row: dict[str, Any] = {
            "rank": rank,
            "score": result.score,
            "scored_by": results.scored_by,
            "source": meta.get("source"),
            "citation": result.citation,
            "text": result.document.text,
            "id": result.id,
        }
        for key, value in meta.items():
            row.setdefault(key, value)
        rows.append(row)
    if not rows:
        return pandas.DataFrame(
            columns=["rank", "score", "scored_by", "source", "citation", "text", "id"]
        )
    return pandas.DataFrame(rows)


def _search_results_html(results: SearchResults) -> str:
    return search_results_html(results, results.query, results.scored_by)


RENDERERS: dict[str, Renderers] = {
    "selectools.rag.document.SearchResults": {
        "text": repr,
        "html": _search_results_html,
        "dataframe": search_results_dataframe,
    },
    "selectools.rag.vector_store.VectorStore": {"text": repr, "html": store_html},
}
