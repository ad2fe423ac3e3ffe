"""Chroma specifics beyond the shared contract: in-memory isolation, metadata round-trip, reopen checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from selectools.embeddings import HashEmbedder
from selectools.rag import DimensionMismatchError, Document, VectorStore
from selectools.rag.stores import ChromaVectorStore


def test_in_memory_stores_do_not_share_documents() -> None:
    embedder = HashEmbedder(dimension=32)
    first = VectorStore.create("chroma", embedder)
    second = VectorStore.create("chroma", embedder)
    first.add_documents([Document("only in the first store")])
    assert first.count() == 1
    assert second.count() == 0
    assert second.search("only in the first store") == []
    assert [h.document.text for h in first.search("only in the first store")] == [
        "only in the first store"
    ]


def test_nested_metadata_comes_back_unchanged_and_scalars_filter(tmp_path: Path) -> None:
    store = ChromaVectorStore(HashEmbedder(dimension=32), persist_directory=tmp_path / "c")
    meta = {"source": "a.md", "page": 3, "tags": ["x", "y"], "extra": {"k": 1}}
    store.add_documents([Document("nested metadata", meta), Document("other", {"page": 4})])
    hits = list(store.search("nested metadata", top_k=2, filter={"page": 3}))
    assert [h.document.metadata for h in hits] == [meta]
    assert [doc.text for _, doc in store.documents()] == ["nested metadata", "other"]


def test_reopening_with_another_dimension_is_refused(tmp_path: Path) -> None:
    store = ChromaVectorStore(HashEmbedder(dimension=32), persist_directory=tmp_path / "c")
    store.add_documents([Document("thirty-two")])
    store.close()
    with pytest.raises(DimensionMismatchError, match="32-dimensional"):
        ChromaVectorStore(persist_directory=tmp_path / "c", dimension=16)
    again = ChromaVectorStore(persist_directory=tmp_path / "c")
    assert again.dimension == 32 and again.count() == 1
