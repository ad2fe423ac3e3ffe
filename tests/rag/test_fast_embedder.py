"""The fast offline tier (WordLlama static vectors) through the public embedder protocol."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from benchmarks.retrieval_set import QUESTIONS, corpus, ranked_sections, score
from selectools.embeddings import EmbeddingProvider, StaticEmbeddingProvider
from selectools.rag import Document, MissingDependencyError, RAGAgent, TextSplitter, VectorStore
from selectools.testing import ScriptedProvider, tool_call

#: recall@5 on every other question of benchmarks/retrieval_set.py measured 0.74 (the
#: full set: 0.79); a regression of the embedder, the chunking or the store falls below.
RECALL_FLOOR = 0.65


@pytest.fixture(scope="module")
def fast() -> StaticEmbeddingProvider:
    return StaticEmbeddingProvider()


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_it_is_an_embedding_provider_with_unit_vectors(fast: StaticEmbeddingProvider) -> None:
    assert isinstance(fast, EmbeddingProvider)
    assert fast.dimension == 256
    vector = fast.embed_query("hello world")
    assert len(vector) == 256
    assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, rel_tol=1e-5)
    assert fast.embed_texts([]) == []
    assert fast.embed_texts([""]) == [[0.0] * 256]  # no tokens: a zero vector, not NaN


def test_it_is_deterministic_and_batch_independent(fast: StaticEmbeddingProvider) -> None:
    texts = ["The cat sleeps on the sofa.", "Stock markets fell sharply today.", "x" * 5000]
    together = fast.embed_texts(texts)
    assert together == [fast.embed_texts([t])[0] for t in texts]
    assert together == StaticEmbeddingProvider(batch_size=1).embed_texts(texts)
    assert fast.embed_query(texts[0]) == together[0]


def test_similar_texts_are_closer_than_unrelated_ones(fast: StaticEmbeddingProvider) -> None:
    query = fast.embed_query("how do I install the package?")
    near, far = fast.embed_texts(
        ["Installation: run pip install selectools.", "Bananas are a yellow tropical fruit."]
    )
    assert cosine(query, near) > cosine(query, far) + 0.2


def test_it_counts_tokens_at_no_cost(fast: StaticEmbeddingProvider) -> None:
    before = fast.total_tokens
    fast.embed_texts(["one two three"])
    assert fast.total_tokens > before and fast.total_cost_usd == 0.0


def test_bad_input_is_a_type_error(fast: StaticEmbeddingProvider) -> None:
    with pytest.raises(TypeError, match="got one string"):
        fast.embed_texts("not a list")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="item 1 is int"):
        fast.embed_texts(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        StaticEmbeddingProvider(batch_size=0)


def test_a_missing_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "wordllama" else real(name, *a),
    )
    with pytest.raises(MissingDependencyError, match=r"the 'rag-fast' extra of selectools-jupyter"):
        StaticEmbeddingProvider()


def test_it_works_in_a_sqlite_store_and_a_rag_agent_offline(
    fast: StaticEmbeddingProvider, tmp_path: Path
) -> None:
    store = VectorStore.create("sqlite", embedder=fast, db_path=tmp_path / "kb.db")
    docs = [
        Document("Returns are accepted within 30 days of purchase.", {"source": "returns.txt"}),
        Document(
            "Parcels arrive three to five working days after dispatch.", {"source": "ship.txt"}
        ),
        Document("Members get a discount on every order.", {"source": "members.txt"}),
    ]
    agent = RAGAgent.from_documents(
        docs,
        ScriptedProvider([tool_call("search_knowledge_base", query="delivery time"), "3-5 days."]),
        store,
        top_k=1,
        score_threshold=0.0,
    )
    assert agent.ask("How long does shipping take?").content == "3-5 days."
    assert agent.rag_tool.last_results[0].document.metadata["source"] == "ship.txt"  # type: ignore[attr-defined]
    assert store.dimension == 256 and store.count() == 3


def test_recall_on_the_labelled_set_holds_a_floor(fast: StaticEmbeddingProvider) -> None:
    questions = QUESTIONS[::2]
    assert len(questions) >= 35
    store = VectorStore.create("memory", embedder=fast)
    store.add_documents(TextSplitter(1000, 200).split_documents(corpus()), progress=False)
    recall, mrr = score(ranked_sections(store, questions), questions)
    assert recall >= RECALL_FLOOR, (recall, mrr)


def test_every_labelled_answer_is_a_section_of_the_corpus() -> None:
    """A module moved or a README heading renamed would silently cap recall below 1."""
    sections = {doc.metadata["section"] for doc in corpus()}
    assert [answer for _, answer in QUESTIONS if answer not in sections] == []
