"""RAG: load documents, chunk them, embed and store them, search by meaning and keywords.

``DocumentLoader -> TextSplitter -> embedder -> VectorStore -> RAGTool -> Agent``
(``ingest`` runs the first four overlapped and resumable);
``BM25`` and ``HybridSearcher`` add keyword search and fusion, ``CohereReranker``
and ``JinaReranker`` re-score the fused candidates. Names load lazily: importing
this package loads no engine (numpy, FAISS, Qdrant, psycopg) until it is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

__all__ = [
    "BM25",
    "BM25Index",
    "CohereReranker",
    "DimensionMismatchError",
    "Document",
    "DocumentLoadError",
    "DocumentLoader",
    "DocumentNotFoundError",
    "FusionMethod",
    "HybridSearchTool",
    "HybridSearcher",
    "InMemoryVectorStore",
    "IngestReport",
    "JinaReranker",
    "MissingDependencyError",
    "NoEmbedderError",
    "RAGAgent",
    "RAGError",
    "RAGTool",
    "RecursiveTextSplitter",
    "Reranker",
    "RerankerError",
    "SearchResult",
    "SearchResults",
    "SemanticChunker",
    "SemanticSearchTool",
    "TextSplitter",
    "UnknownVectorStoreError",
    "VectorStore",
    "VectorStoreInUseError",
    "ingest",
]

_LAZY = {
    "Document": ".document",
    "SearchResult": ".document",
    "SearchResults": ".document",
    "DocumentLoader": ".loaders",
    "TextSplitter": ".chunking",
    "RecursiveTextSplitter": ".chunking",
    "SemanticChunker": ".chunking",
    "VectorStore": ".vector_store",
    "NoEmbedderError": ".vector_store",
    "RAGError": ".errors",
    "DimensionMismatchError": ".errors",
    "DocumentLoadError": ".errors",
    "DocumentNotFoundError": ".errors",
    "MissingDependencyError": ".errors",
    "UnknownVectorStoreError": ".errors",
    "VectorStoreInUseError": ".errors",
    "BM25": ".bm25",
    "BM25Index": ".bm25",
    "InMemoryVectorStore": ".stores.memory",
    "SemanticSearchTool": ".tools",
    "HybridSearcher": ".hybrid",
    "FusionMethod": ".hybrid",
    "Reranker": ".reranker",
    "RerankerError": ".reranker",
    "CohereReranker": ".reranker",
    "JinaReranker": ".reranker",
    "RAGTool": ".tools",
    "HybridSearchTool": ".tools",
    "RAGAgent": ".tools",
    "ingest": "._ingest",
    "IngestReport": "._ingest",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

if TYPE_CHECKING:  # pragma: no cover
    from ._ingest import IngestReport, ingest
    from .bm25 import BM25, BM25Index
    from .chunking import RecursiveTextSplitter, SemanticChunker, TextSplitter
    from .document import Document, SearchResult, SearchResults
    from .errors import (
        DimensionMismatchError,
        DocumentLoadError,
        DocumentNotFoundError,
        MissingDependencyError,
        RAGError,
        UnknownVectorStoreError,
        VectorStoreInUseError,
    )
    from .hybrid import FusionMethod, HybridSearcher
    from .loaders import DocumentLoader
    from .reranker import CohereReranker, JinaReranker, Reranker, RerankerError
    from .stores.memory import InMemoryVectorStore
    from .tools import HybridSearchTool, RAGAgent, RAGTool, SemanticSearchTool
    from .vector_store import NoEmbedderError, VectorStore
