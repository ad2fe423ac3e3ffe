"""``Document`` (text + metadata) and ``SearchResult`` (a document and its score).

``SearchResults`` is the list every search returns: a plain ``list`` of
``SearchResult`` that also renders as a ranked table in a notebook and turns
into a pandas DataFrame on request (pandas is imported only then).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._display import RichDisplay, render

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["Document", "SearchResult", "SearchResults", "citation"]


@dataclass
class Document:
    """A piece of text and where it came from (``metadata``: source, page, chunk...)."""

    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    embedding: list[float] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"Document.text must be a str, got {type(self.text).__name__}")
        if self.metadata is None:
            self.metadata = {}
        elif not isinstance(self.metadata, dict):
            raise TypeError(f"Document.metadata must be a dict, got {type(self.metadata).__name__}")


def citation(metadata: dict[str, Any]) -> str:
    """``"guide.md (page 2, chunk 3)"``: the source and where in it, for answers and displays."""
    source = str(metadata.get("source") or metadata.get("filename") or "unknown")
    parts = []
    if metadata.get("page") is not None:
        parts.append(f"page {metadata['page']}")
    if metadata.get("chunk") is not None:
        parts.append(f"chunk {metadata['chunk']}")
    return f"{source} ({', '.join(parts)})" if parts else source


@dataclass
class SearchResult:
    """One hit: the ``document``, its ``score`` (higher is better) and its store ``id``."""

    document: Document
    score: float
    id: str | None = None

    @property
    def citation(self) -> str:
        return citation(self.document.metadata)


class SearchResults(list[SearchResult], RichDisplay):
    """The ranked hits of one search (a list), with a notebook view and ``to_dataframe()``.

    ``scored_by`` says what the scores are, since they are not comparable across
    searches of different kinds: ``"cosine"`` (a vector store), ``"bm25"``,
    ``"rrf"`` or ``"weighted"`` (a hybrid search's fusion), ``"rerank"``; None if unknown.
    """

    def __init__(
        self, results: Any = (), query: str | None = None, scored_by: str | None = None
    ) -> None:
        super().__init__(results)
        self.query = query
        self.scored_by = scored_by

    def to_dataframe(self) -> pandas.DataFrame:
        """One row a hit: rank, score, source, citation, text, id and the metadata columns."""
        return render(self, "dataframe")

    def __repr__(self) -> str:
        head = f"SearchResults: {len(self)} hit{'s' if len(self) != 1 else ''}"
        if self.query is not None:
            head += f" for {self.query!r}"
        lines = [
            f"  {rank}. {hit.score:.4f}  {hit.citation}  {hit.document.text[:60]!r}"
            for rank, hit in enumerate(self, 1)
        ]
        return "\n".join([head, *lines])
