"""Agent integration: ``RAGTool`` / ``HybridSearchTool`` (a ``search_knowledge_base`` tool) and ``RAGAgent``.

The tool's output cites each chunk's source (and page) with its relevance::

    [Source 1: README.md, Relevance: 0.89]
    <chunk text>

``last_results`` keeps the hits of the latest call (each with ``citation``:
source, page and chunk), so an answer can be traced back to its chunks.
``RAGAgent.from_*`` load, chunk, embed and store documents and return an
``Agent`` whose only tool is the knowledge-base search; embedding tokens and
costs (indexing and each query) are added to ``agent.usage``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..stability import stable
from .chunking import TextSplitter
from .document import Document, SearchResult, SearchResults
from .loaders import DocumentLoader
from .vector_store import VectorStore

if TYPE_CHECKING:  # pragma: no cover
    from ..agent.config import AgentConfig
    from ..agent.core import Agent
    from ..providers.base import AnyProvider
    from ..tools import Tool
    from .hybrid import HybridSearcher

__all__ = ["HybridSearchTool", "RAGAgent", "RAGTool", "SemanticSearchTool", "format_results"]

NO_RESULTS = "No relevant documents found in the knowledge base."


def _source(metadata: Mapping[str, Any]) -> str:
    source = str(metadata.get("source") or metadata.get("filename") or "unknown")
    if metadata.get("page") is not None:
        source += f" (page {metadata['page']})"
    return source


def format_results(results: Sequence[SearchResult], include_scores: bool, digits: int) -> str:
    """The tool's text: one ``[Source n: ..., Relevance: ...]`` block a hit."""
    if not results:
        return NO_RESULTS
    blocks = []
    for number, hit in enumerate(results, 1):
        header = f"[Source {number}: {_source(hit.document.metadata)}"
        if include_scores:
            header += f", Relevance: {hit.score:.{digits}f}"
        blocks.append(f"{header}]\n{hit.document.text}")
    return "\n\n".join(blocks)


class _KnowledgeTool:
    _digits = 2

    def __init__(self, top_k: int, score_threshold: float, include_scores: bool) -> None:
        if top_k < 1:
            raise ValueError(f"top_k must be >= 1, got {top_k}")
        self.top_k = top_k
        self.score_threshold = score_threshold
        self.include_scores = include_scores
        self.last_results: SearchResults = SearchResults()
        self.usage_sink: Any = None  # an Agent whose usage receives query-embedding costs
        self._tool: Tool | None = None

    def _retrieve(
        self, query: str, filter: Mapping[str, Any] | None
    ) -> SearchResults:  # pragma: no cover
        raise NotImplementedError

    def _embedder(self) -> Any:  # pragma: no cover
        raise NotImplementedError

    def search(self, query: str, filter: Mapping[str, Any] | None = None) -> SearchResults:
        """Hits at or above ``score_threshold``, best first (what the tool formats)."""
        embedder = self._embedder()
        before = getattr(embedder, "last_usage", None)
        hits = self._retrieve(query, filter)
        after = getattr(embedder, "last_usage", None)
        if self.usage_sink is not None and after is not None and after is not before:
            self.usage_sink.usage.add_usage(after)
        kept = SearchResults(
            [h for h in hits if h.score >= self.score_threshold],
            query=query,
            scored_by=getattr(hits, "scored_by", None),
        )
        self.last_results = kept
        return kept

    @property
    def search_knowledge_base(self) -> Tool:
        """The ``search_knowledge_base(query)`` tool to give an ``Agent``."""
        if self._tool is None:
            from ..tools import tool

            def search_knowledge_base(query: str) -> str:
                """Search the knowledge base for passages relevant to the query.

                Args:
                    query: What to look for, in natural language or keywords.
                """
                return format_results(self.search(query), self.include_scores, self._digits)

            self._tool = tool(search_knowledge_base)
        return self._tool


class RAGTool(_KnowledgeTool):
    """Vector search over a ``VectorStore`` as an agent tool."""

    def __init__(
        self,
        vector_store: VectorStore,
        top_k: int = 3,
        score_threshold: float = 0.5,
        include_scores: bool = True,
    ) -> None:
        if not isinstance(vector_store, VectorStore):
            raise TypeError(
                f"vector_store must be a VectorStore, got {type(vector_store).__name__}"
            )
        super().__init__(top_k, score_threshold, include_scores)
        self.vector_store = vector_store

    def _embedder(self) -> Any:
        return self.vector_store.embedder

    def _retrieve(self, query: str, filter: Mapping[str, Any] | None) -> SearchResults:
        return self.vector_store.search(query, top_k=self.top_k, filter=filter)


SemanticSearchTool = RAGTool
"""Another name for ``RAGTool`` (vector-only semantic search) used in older docs."""


class HybridSearchTool(_KnowledgeTool):
    """Hybrid (vector + BM25) search as an agent tool: a drop-in for ``RAGTool``."""

    _digits = 4

    def __init__(
        self,
        searcher: HybridSearcher,
        top_k: int = 5,
        score_threshold: float = 0.0,
        include_scores: bool = True,
    ) -> None:
        super().__init__(top_k, score_threshold, include_scores)
        self.searcher = searcher

    def _embedder(self) -> Any:
        return self.searcher.vector_store.embedder

    def _retrieve(self, query: str, filter: Mapping[str, Any] | None) -> SearchResults:
        return self.searcher.search(query, top_k=self.top_k, filter=filter)


@stable
class RAGAgent:
    """Build an ``Agent`` that answers from your documents (see the module docstring)."""

    @classmethod
    def from_documents(
        cls,
        documents: Sequence[Document],
        provider: AnyProvider,
        vector_store: VectorStore,
        *,
        chunk_size: int = 1000,
        chunk_overlap: int = 200,
        top_k: int = 3,
        score_threshold: float = 0.5,
        config: AgentConfig | None = None,
        system_prompt: str | None = None,
        progress: bool = True,
    ) -> Agent:
        """An agent whose ``search_knowledge_base`` tool searches ``documents``, chunked and
        embedded into ``vector_store`` now (with a progress bar for large sets;
        ``progress=False`` hides it).

        Chunks go in through :func:`~selectools.rag.ingest`: a chunk the store already
        holds (same text and metadata) is not embedded or stored again, so building
        the agent again over a saved store, e.g. re-running a notebook cell, adds
        only what is new.
        """
        from ..agent.core import Agent
        from ._ingest import ingest

        splitter = TextSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap)
        embedder = vector_store.embedder
        before = _usage_snapshot(embedder)
        docs = list(documents)
        large = len(docs) > vector_store.EMBED_BATCH  # a bar for large sets, as add_documents
        ingest(docs, vector_store, splitter=splitter, progress=progress and large)
        rag_tool = RAGTool(vector_store, top_k=top_k, score_threshold=score_threshold)
        agent = Agent(
            tools=[rag_tool.search_knowledge_base],
            provider=provider,
            config=config,
            system_prompt=system_prompt,
        )
        for stats in _usage_since(embedder, before):
            agent.usage.add_usage(stats)
        rag_tool.usage_sink = agent
        agent.rag_tool = rag_tool  # type: ignore[attr-defined]
        return agent

    @classmethod
    def from_directory(
        cls,
        directory: str | Path,
        provider: AnyProvider,
        vector_store: VectorStore,
        glob_pattern: str = "**/*.md",
        **kwargs: Any,
    ) -> Agent:
        docs = DocumentLoader.from_directory(directory, glob_pattern=glob_pattern)
        return cls.from_documents(docs, provider, vector_store, **kwargs)

    @classmethod
    def from_files(
        cls,
        file_paths: Sequence[str | Path],
        provider: AnyProvider,
        vector_store: VectorStore,
        **kwargs: Any,
    ) -> Agent:
        return cls.from_documents(
            DocumentLoader.from_files(file_paths), provider, vector_store, **kwargs
        )


def _usage_snapshot(embedder: Any) -> int:
    usage = getattr(embedder, "usage", None)
    return len(getattr(usage, "iterations", None) or []) if usage is not None else 0


def _usage_since(embedder: Any, start: int) -> list[Any]:
    usage = getattr(embedder, "usage", None)
    history = getattr(usage, "iterations", None)
    if history is None:
        last = getattr(embedder, "last_usage", None)
        return [last] if last is not None else []
    return list(history[start:])
