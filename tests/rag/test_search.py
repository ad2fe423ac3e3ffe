"""BM25, hybrid fusion, rerankers (against loopback fakes of their HTTP APIs)."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from selectools.embeddings import HashEmbedder
from selectools.exceptions import ProviderConfigurationError
from selectools.rag import (
    BM25,
    CohereReranker,
    Document,
    FusionMethod,
    HybridSearcher,
    JinaReranker,
    NoEmbedderError,
    RerankerError,
    SearchResult,
    VectorStore,
)

from .conftest import Loopback, rerank_reply

CORPUS = [
    Document("Python programming language", {"source": "py.md"}),
    Document("Java programming language", {"source": "java.md"}),
    Document("Machine learning with Python and more Python", {"source": "ml.md"}),
    Document("Rust systems programming", {"source": "rust.md"}),
    Document("Cooking pasta at home", {"source": "food.md"}),
]


def reference_bm25(
    docs: list[list[str]], query: list[str], k1: float = 1.5, b: float = 0.75
) -> list[float]:
    """The Okapi formula written out term by term (the index must agree with it)."""
    n = len(docs)
    avg = sum(len(d) for d in docs) / n
    scores = []
    for doc in docs:
        tf = Counter(doc)
        score = 0.0
        for term in set(query):
            df = sum(1 for d in docs if term in d)
            if not df or term not in tf:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            score += idf * tf[term] * (k1 + 1) / (tf[term] + k1 * (1 - b + b * len(doc) / avg))
        scores.append(score)
    return scores


def test_bm25_tokenizes_as_documented() -> None:
    assert BM25().tokenize("The quick brown fox jumps over the lazy dog") == [
        "quick",
        "brown",
        "fox",
        "jumps",
        "lazy",
        "dog",
    ]
    assert BM25(remove_stopwords=False).tokenize("The quick brown fox") == [
        "the",
        "quick",
        "brown",
        "fox",
    ]


@pytest.mark.parametrize("params", [{}, {"k1": 1.2, "b": 0.5}, {"k1": 2.0, "b": 0.0}])
def test_bm25_scores_match_the_okapi_formula(params: dict[str, float]) -> None:
    bm25 = BM25(**params)
    bm25.index_documents(CORPUS[:3])
    bm25.add_documents(CORPUS[3:])  # incremental add re-weights every document
    tokens = [bm25.tokenize(d.text) for d in CORPUS]
    for query in ["python programming", "rust", "pasta python language", "nothing here"]:
        expected = reference_bm25(tokens, bm25.tokenize(query), **params)
        assert bm25.get_scores(query).tolist() == pytest.approx(expected, rel=1e-5)


def test_bm25_search_orders_filters_and_drops_non_matches() -> None:
    bm25 = BM25()
    bm25.index_documents(CORPUS)
    assert bm25.document_count == 5
    results = bm25.search("Python programming", top_k=2)
    assert [r.document.metadata["source"] for r in results] == ["py.md", "ml.md"]
    assert results[0].score > results[1].score > 0
    assert [
        r.document.metadata["source"]
        for r in bm25.search("programming", filter={"source": "rust.md"})
    ] == ["rust.md"]
    assert bm25.search("a the is") == []
    assert bm25.search("zzz") == []
    bm25.index_documents(CORPUS[:1])  # replaces
    assert bm25.document_count == 1


def test_rrf_fusion_is_the_documented_formula() -> None:
    store = VectorStore.create("memory", embedder=HashEmbedder())
    searcher = HybridSearcher(
        store, vector_weight=0.6, keyword_weight=0.4, fusion=FusionMethod.RRF, rrf_k=60
    )
    searcher.add_documents(CORPUS)
    vec = [r.document.text for r in store.search("python language", top_k=6)]
    kw = [r.document.text for r in searcher.bm25.search("python language", top_k=6)]
    expected = {}
    for text in set(vec) | set(kw):
        expected[text] = (0.6 / (60 + vec.index(text) + 1) if text in vec else 0.0) + (
            0.4 / (60 + kw.index(text) + 1) if text in kw else 0.0
        )
    results = searcher.search("python language", top_k=3)
    best = sorted(expected, key=lambda t: -expected[t])[:3]
    assert [r.document.text for r in results] == best
    assert [r.score for r in results] == pytest.approx([expected[t] for t in best])


def test_weighted_fusion_min_max_normalises_each_list() -> None:
    store = VectorStore.create("memory", embedder=HashEmbedder())
    searcher = HybridSearcher(store, vector_weight=0.5, keyword_weight=0.5, fusion="weighted")
    searcher.add_documents(CORPUS)
    vec = store.search("rust programming", top_k=4)
    kw = searcher.bm25.search("rust programming", top_k=4)

    def norm(hits: list[SearchResult]) -> dict[str, float]:
        lo, hi = min(h.score for h in hits), max(h.score for h in hits)
        return {h.document.text: (h.score - lo) / (hi - lo) for h in hits}

    v, k = norm(list(vec)), norm(list(kw))
    expected = {t: 0.5 * v.get(t, 0.0) + 0.5 * k.get(t, 0.0) for t in set(v) | set(k)}
    results = searcher.search("rust programming", top_k=2)
    assert results[0].document.text == "Rust systems programming"
    assert results[0].score == pytest.approx(expected["Rust systems programming"])


def test_hybrid_dedups_by_text_and_shares_the_filter() -> None:
    store = VectorStore.create("memory", embedder=HashEmbedder())
    searcher = HybridSearcher(store)
    searcher.add_documents(CORPUS)
    results = searcher.search("python", top_k=10)
    texts = [r.document.text for r in results]
    assert len(texts) == len(set(texts))
    only = searcher.search("programming", top_k=5, filter={"source": "java.md"})
    assert [r.document.metadata["source"] for r in only] == ["java.md"]


def test_index_existing_documents_reads_the_store() -> None:
    store = VectorStore.create("memory", embedder=HashEmbedder())
    store.add_documents(CORPUS)
    searcher = HybridSearcher(vector_store=store)
    searcher.index_existing_documents()
    assert searcher.bm25.document_count == 5
    assert searcher.search("pasta", top_k=1)[0].document.text == "Cooking pasta at home"


def test_hybrid_needs_an_embedder_and_valid_settings() -> None:
    store = VectorStore.create("memory")
    with pytest.raises(
        NoEmbedderError, match=r"Vector store does not have an embedding provider configured\."
    ):
        HybridSearcher(store).search("x")
    with pytest.raises(ValueError, match="fusion must be 'rrf' or 'weighted'"):
        HybridSearcher(store, fusion="max")


def candidates() -> list[SearchResult]:
    return [
        SearchResult(Document(t), score=0.1, id=str(i))
        for i, t in enumerate(["alpha", "beta", "gamma"])
    ]


@pytest.mark.parametrize(
    ("cls", "path", "vendor", "model"),
    [
        (CohereReranker, "/v2/rerank", "cohere", "rerank-v3.5"),
        (JinaReranker, "/v1/rerank", "jina", "jina-reranker-v2-base-multilingual"),
    ],
)
def test_rerankers_speak_their_wire_format(loopback: Loopback, cls, path, vendor, model) -> None:
    loopback.routes[path] = rerank_reply([0.2, 0.9, 0.5], vendor)
    reranker = cls(api_key="k-123", api_url=loopback.url(path))
    out = reranker.rerank("which letter", candidates(), top_k=2)
    assert [(r.document.text, r.score, r.id) for r in out] == [
        ("beta", 0.9, "1"),
        ("gamma", 0.5, "2"),
    ]
    sent = loopback.requests[0]
    assert sent.headers["authorization"] == "Bearer k-123"
    body = sent.json()
    assert (body["model"], body["query"], body["documents"], body["top_n"]) == (
        model,
        "which letter",
        ["alpha", "beta", "gamma"],
        2,
    )
    assert len(reranker.rerank("q", candidates())) == 3  # top_k=None: all, re-ordered


def test_reranker_after_fusion_decides_the_final_order(loopback: Loopback) -> None:
    loopback.routes["/v2/rerank"] = lambda seen: rerank_reply(
        [1.0 if "Cooking" in d else 0.1 for d in seen.json()["documents"]], "cohere"
    )(seen)
    store = VectorStore.create("memory", embedder=HashEmbedder())
    searcher = HybridSearcher(
        store, reranker=CohereReranker(api_key="k", api_url=loopback.url("/v2/rerank"))
    )
    searcher.add_documents(CORPUS)
    results = searcher.search("python pasta", top_k=2)
    assert results[0].document.text == "Cooking pasta at home" and results[0].score == 1.0
    assert len(results) == 2


def test_reranker_errors_are_explained(
    loopback: Loopback, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    loopback.routes["/v1/rerank"] = lambda seen: (
        401,
        "application/json",
        b'{"detail": "invalid api key"}',
    )
    with pytest.raises(RerankerError, match="Jina rerank HTTP 401: invalid api key"):
        JinaReranker(api_key="bad", api_url=loopback.url("/v1/rerank")).rerank("q", candidates())
    loopback.routes["/v2/rerank"] = lambda seen: (200, "application/json", b'{"nope": 1}')
    with pytest.raises(RerankerError, match="unexpected response"):
        CohereReranker(api_key="k", api_url=loopback.url("/v2/rerank")).rerank("q", candidates())
    monkeypatch.delenv("COHERE_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env to find a key in
    with pytest.raises(ProviderConfigurationError, match="COHERE_API_KEY"):
        CohereReranker()


def _corpus(tag: str, size: int) -> list[Document]:
    # each corpus has its own vocabulary besides the shared query words, so a mix of
    # two indexes (documents of one, term ids or statistics of the other) shows
    return [
        Document(
            f"shared query words {tag}{i % 97} {tag}word{i} " + f"{tag}filler{i % 13} " * (i % 7),
            {"corpus": tag},
        )
        for i in range(size)
    ]


def _view(results) -> list[tuple[str, float]]:
    return [(r.document.text, round(r.score, 4)) for r in results]


def test_bm25_readers_see_one_consistent_index_while_it_is_rebuilt() -> None:
    """``search`` concurrent with ``clear()`` + ``index_documents()``: no error, and each result
    is exactly what one of the indexes the writer published (or the empty one) answers."""
    import threading
    import time

    corpus_a, corpus_b = _corpus("alpha", 3000), _corpus("beta", 1500)
    queries = ["shared query alpha5 alphaword17", "beta3 betaword9 words", "alphafiller2 beta4"]
    expected: dict[str, list[list[tuple[str, float]]]] = {q: [[]] for q in queries}
    for corpus in (corpus_a, corpus_b):
        reference = BM25()
        reference.index_documents(corpus)
        for q in queries:
            expected[q].append(_view(reference.search(q, top_k=8)))
            expected[q].append(_view(reference.search(q, top_k=8, filter={"corpus": "alpha"})))
    bm25 = BM25()
    bm25.index_documents(corpus_a)
    stop = threading.Event()
    errors: list[BaseException] = []
    mixed: list[tuple[str, list[tuple[str, float]]]] = []
    searches = [0]
    rebuilds = [0]

    def read() -> None:
        while not stop.is_set():
            for q in queries:
                try:
                    got = _view(bm25.search(q, top_k=8))
                    filtered = _view(bm25.search(q, top_k=8, filter={"corpus": "alpha"}))
                    scores = bm25.get_scores(q)
                except BaseException as exc:
                    errors.append(exc)
                    return
                searches[0] += 2
                if got not in expected[q] or filtered not in expected[q]:
                    mixed.append((q, got))
                if len(scores) not in (0, len(corpus_a), len(corpus_b)):
                    mixed.append((q, [("get_scores length", float(len(scores)))]))

    def write() -> None:
        while not stop.is_set():
            for corpus in (corpus_b, corpus_a):
                try:
                    bm25.clear()
                    bm25.index_documents(corpus)
                except BaseException as exc:
                    errors.append(exc)
                    return
                rebuilds[0] += 1

    threads = [threading.Thread(target=read) for _ in range(3)] + [threading.Thread(target=write)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 3.0
    while time.monotonic() < deadline and not errors and len(mixed) < 5:
        time.sleep(0.05)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert mixed == []
    assert rebuilds[0] >= 2 and searches[0] >= 20  # both sides really ran
