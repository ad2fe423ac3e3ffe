"""Embedding providers against the fake server: vectors, batching, usage and errors."""

from __future__ import annotations

import asyncio
import math

import pytest

from selectools import ProviderError
from selectools.embeddings import (
    EmbeddingProvider,
    GeminiEmbeddingProvider,
    OllamaEmbeddingProvider,
    OpenAIEmbeddingProvider,
)
from selectools.pricing import calculate_embedding_cost
from selectools.testing import Fault

from .conftest import KEY

pytestmark = pytest.mark.timeout(30)

EMBEDDERS = ["openai", "gemini", "ollama"]


def make_embedder(kind, server, **options):
    if kind == "openai":
        return OpenAIEmbeddingProvider(api_key=KEY, base_url=server.openai_base_url, **options)
    if kind == "gemini":
        return GeminiEmbeddingProvider(api_key=KEY, base_url=server.gemini_base_url, **options)
    return OllamaEmbeddingProvider(host=server.ollama_host, **options)


@pytest.fixture(params=EMBEDDERS)
def kind(request):
    return request.param


def test_is_an_embedding_provider(kind, server):
    assert isinstance(make_embedder(kind, server), EmbeddingProvider)


def test_embed_query_and_texts_are_consistent(kind, server):
    embedder = make_embedder(kind, server)
    query = embedder.embed_query("shipping time")
    vectors = embedder.embed_texts(["returns policy", "shipping time"])
    assert len(query) == server.embedding_dimensions
    assert len(vectors) == 2 and vectors[1] == pytest.approx(query, abs=1e-6)
    assert math.isclose(sum(v * v for v in query), 1.0, rel_tol=1e-4)


def test_async_variants(kind, server):
    embedder = make_embedder(kind, server)

    async def go():
        return await embedder.aembed_query("a"), await embedder.aembed_texts(["a", "b"])

    query, vectors = asyncio.run(go())
    assert vectors[0] == pytest.approx(query, abs=1e-6) and len(vectors) == 2


def test_batches_follow_batch_size(kind, server):
    embedder = make_embedder(kind, server, batch_size=2)
    vectors = embedder.embed_texts([f"text {i}" for i in range(5)])
    assert len(vectors) == 5
    assert len(server.requests) == 3
    assert embedder.embed_texts([]) == [] and len(server.requests) == 3


def test_usage_is_recorded_and_priced(kind, server):
    embedder = make_embedder(kind, server)
    embedder.embed_texts(["one two three four", "five six seven eight"])
    embedder.embed_query("nine")
    assert embedder.last_usage is not None and embedder.last_usage.provider == kind
    assert embedder.total_tokens > 0
    expected = calculate_embedding_cost(embedder.model, embedder.total_tokens)
    assert embedder.total_cost_usd == pytest.approx(expected)
    assert len(embedder.usage.iterations) == 2


def test_openai_cost_uses_the_reported_tokens(server):
    embedder = make_embedder("openai", server)
    embedder.embed_query("x" * 400)
    tokens = embedder.last_usage.embedding_tokens
    assert tokens == 100
    assert embedder.last_usage.embedding_cost_usd == pytest.approx(tokens * 0.02 / 1_000_000)


def test_wire_details(server):
    make_embedder("openai", server, dimensions=4).embed_texts(["a"])
    assert server.last_request.path == "/v1/embeddings"
    assert server.last_request.json["dimensions"] == 4
    gemini = make_embedder("gemini", server)
    gemini.embed_query("q")
    assert server.last_request.path == "/v1beta/models/text-embedding-004:embedContent"
    assert server.last_request.json["taskType"] == "RETRIEVAL_QUERY"
    assert server.last_request.header("x-goog-api-key") == KEY
    gemini.embed_texts(["d"])
    assert server.last_request.path.endswith(":batchEmbedContents")
    assert server.last_request.json["requests"][0]["taskType"] == "RETRIEVAL_DOCUMENT"
    make_embedder("ollama", server).embed_texts(["x"])
    assert server.last_request.json == {"model": "nomic-embed-text", "input": ["x"]}


def test_scripted_vectors_are_returned(kind, server):
    server.add_embeddings([[1.0, 0.0], [0.0, 1.0]])
    assert make_embedder(kind, server).embed_texts(["a", "b"]) == [[1.0, 0.0], [0.0, 1.0]]


def test_errors_are_provider_errors(kind, server):
    embedder = make_embedder(kind, server)
    server.add_embeddings(Fault.rate_limit(retry_after=3), Fault.status_code(400, "bad input"))
    with pytest.raises(ProviderError) as caught:
        embedder.embed_query("x")
    assert caught.value.status_code == 429 and caught.value.retry_after == 3
    assert caught.value.retryable
    with pytest.raises(ProviderError) as caught:
        embedder.embed_query("x")
    assert caught.value.status_code == 400 and not caught.value.retryable


def test_wrong_vector_count_is_an_error(kind, server):
    server.add_embeddings([[1.0]])
    with pytest.raises(ProviderError, match="asked for 2 vectors"):
        make_embedder(kind, server).embed_texts(["a", "b"])


def test_bad_input_is_a_type_error(kind, server):
    embedder = make_embedder(kind, server)
    with pytest.raises(TypeError, match="use embed_query"):
        embedder.embed_texts("one string")
    with pytest.raises(TypeError, match="item 1 is int"):
        embedder.embed_texts(["ok", 3])
    with pytest.raises(TypeError, match="takes a str"):
        embedder.embed_query(None)
    with pytest.raises(ValueError, match="batch_size"):
        make_embedder(kind, server, batch_size=0)
