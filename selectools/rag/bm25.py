"""``BM25``: Okapi BM25 keyword search over an inverted index held in numpy arrays.

Tokens are lowercase runs of ``[a-z0-9]`` (English stop words dropped unless
``remove_stopwords=False``). The index is a compressed posting list per term;
each posting's length-normalised term weight is precomputed, so a query is one
vectorised add per query term plus a partial sort. It is several times faster
per query than ``rank-bm25`` (see ``benchmarks/bench_rag.py``). IDF is
``ln(1 + (N - n + 0.5) / (n + 0.5))`` (never negative). Searches may run while
another thread re-indexes: each reads one published, unchanging index.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .document import Document, SearchResult, SearchResults
from .vector_store import matches_filter

if TYPE_CHECKING:  # pragma: no cover
    import numpy

__all__ = ["BM25", "STOP_WORDS", "BM25Index"]

_TOKEN = re.compile(r"[a-z0-9]+")

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "has",
        "have",
        "he",
        "her",
        "his",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "over",
        "she",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
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
        "will",
        "with",
        "you",
        "your",
    ]
)


class _Index:
    """One published, never-changed state of a BM25 index (what a search reads).

    ``vocab`` is the writer's append-only term table: a term added after this
    index was built has an id ``>= terms`` and is not in it. ``clear()`` starts
    a new table, so an older index keeps the one it was built over.
    """

    __slots__ = ("docs", "idf", "indptr", "postings", "terms", "vocab", "weights")

    def __init__(
        self,
        docs: tuple[Document, ...],
        vocab: dict[str, int],
        terms: int,
        arrays: tuple[Any, Any, Any, Any],
    ) -> None:
        self.docs = docs
        self.vocab = vocab
        self.terms = terms
        self.indptr, self.postings, self.weights, self.idf = arrays

    def scores(self, tokens: set[str]) -> numpy.ndarray:
        import numpy

        scores = numpy.zeros(len(self.docs), dtype=numpy.float32)
        for term in tokens:
            term_id = self.vocab.get(term)
            if term_id is None or term_id >= self.terms:
                continue
            start, end = self.indptr[term_id], self.indptr[term_id + 1]
            scores[self.postings[start:end]] += self.idf[term_id] * self.weights[start:end]
        return scores


class BM25:
    """Keyword search: ``index_documents`` / ``add_documents``, then ``search(query, top_k, filter)``.

    Thread-safe: writers (``add_documents``, ``index_documents``, ``clear``)
    take a lock; a search reads one published :class:`_Index` and never the
    lists being written, so it sees the index as it was before or after a
    write, never half of one (``index_documents`` replaces it in one step).
    """

    def __init__(self, k1: float = 1.5, b: float = 0.75, remove_stopwords: bool = True) -> None:
        if k1 < 0:
            raise ValueError(f"k1 must be >= 0, got {k1}")
        if not 0 <= b <= 1:
            raise ValueError(f"b must be between 0 and 1, got {b}")
        self.k1 = k1
        self.b = b
        self.remove_stopwords = remove_stopwords
        self._lock = threading.Lock()
        self._index: _Index | None = None
        self._reset()

    def _reset(self) -> None:
        """Empty the writer's lists (the caller holds the lock, or no reader exists yet).

        The published index stays until the write ends (``_append`` drops it),
        so searches during ``index_documents`` answer from the old index.
        """
        self._docs: list[Document] = []
        self._vocab: dict[str, int] = {}
        self._term_ids: list[int] = []
        self._doc_ids: list[int] = []
        self._tfs: list[int] = []
        self._lengths: list[int] = []

    def clear(self) -> None:
        with self._lock:
            self._reset()
            self._index = None

    def tokenize(self, text: str) -> list[str]:
        tokens = _TOKEN.findall(text.lower())
        if self.remove_stopwords:
            return [t for t in tokens if t not in STOP_WORDS]
        return tokens

    @property
    def document_count(self) -> int:
        return len(self._docs)

    def index_documents(self, documents: Sequence[Document]) -> None:
        """Replace the index with ``documents`` (searches meanwhile see the old index)."""
        docs = _checked(documents)
        with self._lock:
            self._reset()
            self._append(docs)

    def add_documents(self, documents: Sequence[Document]) -> None:
        """Add ``documents`` to the index (the arrays are rebuilt on the next search)."""
        docs = _checked(documents)
        with self._lock:
            self._append(docs)

    def _append(self, documents: list[Document]) -> None:
        vocab = self._vocab
        for doc in documents:
            number = len(self._docs)
            self._docs.append(doc)
            tokens = self.tokenize(doc.text)
            self._lengths.append(len(tokens))
            for term, tf in Counter(tokens).items():
                term_id = vocab.get(term)
                if term_id is None:
                    term_id = vocab[term] = len(vocab)
                self._term_ids.append(term_id)
                self._doc_ids.append(number)
                self._tfs.append(tf)
        self._index = None

    def _build(self) -> _Index:
        """The published index, built from the writer's lists when a write made it stale."""
        index = self._index
        if index is not None:
            return index
        with self._lock:
            if self._index is None:
                self._index = self._arrays()
            return self._index

    def _arrays(self) -> _Index:
        import numpy

        terms = numpy.asarray(self._term_ids, dtype=numpy.int64)
        order = numpy.argsort(terms, kind="stable")
        docs = numpy.asarray(self._doc_ids, dtype=numpy.int64)[order]
        tfs = numpy.asarray(self._tfs, dtype=numpy.float32)[order]
        lengths = numpy.asarray(self._lengths, dtype=numpy.float32)
        avg = float(lengths.mean()) if len(lengths) and lengths.mean() > 0 else 1.0
        norm = self.k1 * (1.0 - self.b + self.b * lengths / avg)
        weights = (tfs * (self.k1 + 1.0) / (tfs + norm[docs])).astype(numpy.float32)
        n_terms = len(self._vocab)
        counts = numpy.bincount(terms, minlength=n_terms)
        indptr = numpy.concatenate([[0], numpy.cumsum(counts)])
        n = len(self._docs)
        idf = numpy.log1p((n - counts + 0.5) / (counts + 0.5)).astype(numpy.float32)
        arrays = (indptr, docs.astype(numpy.int32), weights, idf)
        return _Index(tuple(self._docs), self._vocab, n_terms, arrays)

    def get_scores(self, query: str) -> numpy.ndarray:
        """The BM25 score of every indexed document for ``query`` (in index order)."""
        return self._build().scores(set(self.tokenize(query)))

    def search(
        self, query: str, top_k: int = 5, filter: Mapping[str, Any] | None = None
    ) -> SearchResults:
        """The ``top_k`` best-scoring documents (score > 0) for ``query``, best first."""
        import numpy

        if top_k < 1:
            raise ValueError(f"top_k must be >= 1, got {top_k}")
        index = self._build()
        docs = index.docs
        if not docs:
            return SearchResults([], query=query, scored_by="bm25")
        scores = index.scores(set(self.tokenize(query)))
        if filter:
            keep = numpy.fromiter(
                (matches_filter(d.metadata, filter) for d in docs), dtype=bool, count=len(docs)
            )
            scores = numpy.where(keep, scores, 0.0)
        positive = numpy.flatnonzero(scores > 0)
        if not len(positive):
            return SearchResults([], query=query, scored_by="bm25")
        k = min(top_k, len(positive))
        picked = (
            positive[numpy.argpartition(-scores[positive], k - 1)[:k]]
            if k < len(positive)
            else positive
        )
        order = picked[numpy.lexsort((picked, -scores[picked]))]
        return SearchResults(
            [SearchResult(document=docs[i], score=float(scores[i])) for i in order],
            query=query,
            scored_by="bm25",
        )

    def __repr__(self) -> str:
        return (
            f"BM25(k1={self.k1}, b={self.b}, documents={len(self._docs)}, terms={len(self._vocab)})"
        )


def _checked(documents: Sequence[Document]) -> list[Document]:
    """The documents as a list, all checked before any is indexed (no half-added batch)."""
    docs = list(documents)
    for doc in docs:
        if not isinstance(doc, Document):
            raise TypeError(f"BM25 indexes Document objects, got {type(doc).__name__}")
    return docs


class BM25Index(BM25):
    """A ``BM25`` indexed at construction: ``BM25Index(chunks)`` (the MIGRATION guide's spelling)."""

    def __init__(
        self,
        documents: Sequence[Document] = (),
        k1: float = 1.5,
        b: float = 0.75,
        remove_stopwords: bool = True,
    ) -> None:
        super().__init__(k1=k1, b=b, remove_stopwords=remove_stopwords)
        self.add_documents(documents)
