"""``HybridSearcher``: vector search and BM25 keyword search, fused, optionally reranked.

Both retrievers fetch candidates (``vector_top_k`` / ``keyword_top_k``, default
``2 * top_k``) with the same metadata filter. Candidates with equal text are one
candidate. Fusion:

* ``rrf`` (default): ``w_v / (k + rank_v) + w_k / (k + rank_k)``, ranks from 1;
  a list a candidate is missing from adds nothing.
* ``weighted``: each list's scores min-max normalised to [0, 1] (a list of one
  score normalises to 1), then ``w_v * v + w_k * k``.

A ``reranker`` then re-scores the fused list and keeps ``top_k``.
``bm25_index=`` and ``alpha=`` (the vector share: ``vector_weight=alpha``,
``keyword_weight=1-alpha``) are the MIGRATION guide's spellings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any

from .bm25 import BM25
from .document import Document, SearchResult, SearchResults
from .vector_store import NoEmbedderError, VectorStore

if TYPE_CHECKING:  # pragma: no cover
    from .reranker import Reranker

__all__ = ["FusionMethod", "HybridSearcher"]


class FusionMethod(str, Enum):
    """How ``HybridSearcher`` merges the vector and keyword rankings: reciprocal rank or weighted scores."""

    RRF = "rrf"
    WEIGHTED = "weighted"


class HybridSearcher:
    """Semantic + keyword retrieval with reciprocal-rank or weighted fusion."""

    def __init__(
        self,
        vector_store: VectorStore,
        bm25: BM25 | None = None,
        vector_weight: float = 0.5,
        keyword_weight: float = 0.5,
        fusion: FusionMethod | str = "rrf",
        rrf_k: int = 60,
        reranker: Reranker | None = None,
        *,
        bm25_index: BM25 | None = None,
        alpha: float | None = None,
    ) -> None:
        # the MIGRATION guide's spelling: bm25_index= for bm25=, alpha = the vector share
        if bm25_index is not None:
            if bm25 is not None:
                raise ValueError("pass bm25= or bm25_index=, not both")
            bm25 = bm25_index
        if alpha is not None:
            if not 0 <= alpha <= 1:
                raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
            vector_weight, keyword_weight = alpha, 1.0 - alpha
        if not isinstance(vector_store, VectorStore):
            raise TypeError(
                f"vector_store must be a VectorStore, got {type(vector_store).__name__}"
            )
        try:
            self.fusion = FusionMethod(fusion)
        except ValueError:
            raise ValueError(f"fusion must be 'rrf' or 'weighted', got {fusion!r}") from None
        if vector_weight < 0 or keyword_weight < 0 or vector_weight + keyword_weight == 0:
            raise ValueError("vector_weight and keyword_weight must be >= 0 and not both 0")
        if rrf_k < 1:
            raise ValueError(f"rrf_k must be >= 1, got {rrf_k}")
        self.vector_store = vector_store
        self.bm25 = bm25 if bm25 is not None else BM25()
        self.vector_weight = vector_weight
        self.keyword_weight = keyword_weight
        self.rrf_k = rrf_k
        self.reranker = reranker

    def add_documents(
        self,
        documents: Sequence[Document],
        embeddings: Sequence[Sequence[float]] | None = None,
        *,
        progress: bool = True,
    ) -> list[str]:
        """Add to the vector store and the BM25 index; return the store's ids."""
        ids = self.vector_store.add_documents(documents, embeddings=embeddings, progress=progress)
        self.bm25.add_documents(list(documents))
        return ids

    def index_existing_documents(self, documents: Sequence[Document] | None = None) -> None:
        """Build the BM25 index from ``documents`` (default: everything already in the store)."""
        docs = (
            list(documents)
            if documents is not None
            else [d for _, d in self.vector_store.documents()]
        )
        self.bm25.index_documents(docs)

    def search(
        self,
        query: str,
        top_k: int = 5,
        filter: Mapping[str, Any] | None = None,
        vector_top_k: int | None = None,
        keyword_top_k: int | None = None,
    ) -> SearchResults:
        if top_k < 1:
            raise ValueError(f"top_k must be >= 1, got {top_k}")
        if self.vector_store.embedder is None:
            raise NoEmbedderError()
        vector_hits = self.vector_store.search(
            query, top_k=vector_top_k or top_k * 2, filter=filter
        )
        keyword_hits = self.bm25.search(query, top_k=keyword_top_k or top_k * 2, filter=filter)
        fused = self._fuse(list(vector_hits), list(keyword_hits))
        if self.reranker is not None:
            return SearchResults(
                self.reranker.rerank(query, fused, top_k=top_k), query=query, scored_by="rerank"
            )
        return SearchResults(fused[:top_k], query=query, scored_by=self.fusion.value)

    def _fuse(
        self, vector_hits: list[SearchResult], keyword_hits: list[SearchResult]
    ) -> list[SearchResult]:
        scores: dict[str, float] = {}
        first: dict[str, SearchResult] = {}
        for hits, weight in (
            (vector_hits, self.vector_weight),
            (keyword_hits, self.keyword_weight),
        ):
            contributions = self._contributions(hits)
            seen: set[str] = set()
            for hit, value in zip(hits, contributions, strict=True):
                key = hit.document.text
                if key in seen:  # the same text twice in one list counts once
                    continue
                seen.add(key)
                first.setdefault(key, hit)
                scores[key] = scores.get(key, 0.0) + weight * value
        ordered = sorted(scores, key=lambda key: -scores[key])
        return [
            SearchResult(document=first[k].document, score=scores[k], id=first[k].id)
            for k in ordered
        ]

    def _contributions(self, hits: list[SearchResult]) -> list[float]:
        if self.fusion is FusionMethod.RRF:
            return [1.0 / (self.rrf_k + rank) for rank in range(1, len(hits) + 1)]
        if not hits:
            return []
        values = [h.score for h in hits]
        low, high = min(values), max(values)
        if high == low:
            return [1.0] * len(values)
        return [(v - low) / (high - low) for v in values]

    def __repr__(self) -> str:
        return (
            f"HybridSearcher(fusion={self.fusion.value!r}, vector_weight={self.vector_weight}, "
            f"keyword_weight={self.keyword_weight}, store={type(self.vector_store).__name__}, "
            f"bm25_documents={self.bm25.document_count})"
        )
