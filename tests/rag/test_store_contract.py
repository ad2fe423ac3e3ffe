"""One contract every vector store keeps, run against each real engine.

numpy (in memory), SQLite, FAISS, Qdrant (the real client in local mode),
Chroma (the real chromadb PersistentClient in a folder),
pgvector on a real PostgreSQL (the session's ``postgres_uri``) and Pinecone
(over HTTP, against a local fake of its API: tests/rag/pinecone_fake.py). "Reopen" means
a new store object over the same persisted data: a saved folder, the same
SQLite file, the same Qdrant or Chroma path, the same Postgres table.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from selectools.embeddings import HashEmbedder
from selectools.rag import DimensionMismatchError, Document, NoEmbedderError, VectorStore
from selectools.rag.stores import (
    ChromaVectorStore,
    FAISSVectorStore,
    InMemoryVectorStore,
    PgVectorStore,
    PineconeVectorStore,
    QdrantVectorStore,
    SQLiteVectorStore,
)

from .pinecone_fake import API_KEY, fake_pinecone

_tables = itertools.count()


@dataclass
class Engine:
    """How to open a store of one kind in ``folder``, and reopen it after a close."""

    open: Callable[[Path, Any], Any]
    reopen: Callable[[Any, Path, Any], Any]


def _memory_reopen(store: Any, folder: Path, embedder: Any) -> Any:
    store.save(folder / "saved")
    return InMemoryVectorStore.load(folder / "saved", embedder=embedder)


def _faiss_reopen(store: Any, folder: Path, embedder: Any) -> Any:
    store.save(folder / "saved")
    return FAISSVectorStore.load(folder / "saved", embedder=embedder)


def _sqlite_reopen(store: Any, folder: Path, embedder: Any) -> Any:
    store.close()
    return SQLiteVectorStore(embedder=embedder, db_path=folder / "v.db")


def _qdrant_open(folder: Path, embedder: Any) -> Any:
    return QdrantVectorStore(embedder=embedder, collection_name="docs", path=str(folder / "qdrant"))


def _qdrant_reopen(store: Any, folder: Path, embedder: Any) -> Any:
    store.close()
    return _qdrant_open(folder, embedder)


def _chroma_open(folder: Path, embedder: Any) -> Any:
    return VectorStore.create("chroma", embedder, persist_directory=folder / "chroma")


def _chroma_reopen(store: Any, folder: Path, embedder: Any) -> Any:
    store.close()
    return ChromaVectorStore(embedder=embedder, persist_directory=folder / "chroma")


ENGINES = {
    "memory": Engine(lambda f, e: VectorStore.create("memory", e), _memory_reopen),
    "sqlite": Engine(
        lambda f, e: VectorStore.create("sqlite", e, db_path=f / "v.db"), _sqlite_reopen
    ),
    "faiss": Engine(lambda f, e: VectorStore.create("faiss", e), _faiss_reopen),
    "qdrant": Engine(_qdrant_open, _qdrant_reopen),
    "chroma": Engine(_chroma_open, _chroma_reopen),
    "pgvector": Engine(None, None),  # type: ignore[arg-type]  # filled by the fixture (needs the server)
    "pinecone": Engine(None, None),  # type: ignore[arg-type]  # filled by the fixture (needs the fake)
}


@pytest.fixture(params=sorted(ENGINES))
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    if request.param == "pinecone":
        with fake_pinecone(dimension=64) as fake:

            def open_pc(folder: Path, embedder: Any) -> Any:
                return VectorStore.create(
                    "pinecone",
                    embedder,
                    index_name="docs",
                    api_key=API_KEY,
                    control_url=fake.url,
                    namespace="contract",
                )

            def reopen_pc(store: Any, folder: Path, embedder: Any) -> Any:
                store.close()
                return PineconeVectorStore(
                    embedder=embedder,
                    index_name="docs",
                    api_key=API_KEY,
                    host=fake.url,
                    namespace="contract",
                )

            yield Engine(open_pc, reopen_pc)
        return
    if request.param != "pgvector":
        yield ENGINES[request.param]
        return
    uri = request.getfixturevalue("postgres_uri")
    table = f"contract_{next(_tables)}"

    def open_pg(folder: Path, embedder: Any) -> Any:
        return VectorStore.create("pgvector", embedder, connection_string=uri, table_name=table)

    def reopen_pg(store: Any, folder: Path, embedder: Any) -> Any:
        store.close()
        return PgVectorStore(embedder=embedder, connection_string=uri, table_name=table)

    yield Engine(open_pg, reopen_pg)


DOCS = [
    Document(
        "python is a programming language for data work",
        {"source": "py.md", "lang": "python", "n": 1},
    ),
    Document(
        "java is a verbose programming language", {"source": "java.md", "lang": "java", "n": 2}
    ),
    Document(
        "cats sleep most of the day in the sun", {"source": "cats.md", "lang": "none", "n": 3}
    ),
    Document(
        "rust gives memory safety without a garbage collector",
        {"source": "rust.md", "lang": "rust", "n": 4},
    ),
]


@pytest.fixture
def embedder() -> HashEmbedder:
    return HashEmbedder(dimension=64)


@pytest.fixture
def store(engine: Engine, tmp_path: Path, embedder: HashEmbedder) -> Any:
    return engine.open(tmp_path, embedder)


def texts(results: Any) -> list[str]:
    return [r.document.text for r in results]


def test_add_returns_one_id_per_document_and_counts(store: Any) -> None:
    ids = store.add_documents(DOCS)
    assert len(ids) == len(set(ids)) == 4
    assert store.count() == len(store) == 4
    assert sorted(d.text for _, d in store.documents()) == sorted(d.text for d in DOCS)


def test_search_by_text_finds_the_closest_document_first(store: Any) -> None:
    store.add_documents(DOCS)
    results = store.search("cats sleep in the sun", top_k=2)
    assert len(results) == 2
    assert results[0].document.text == DOCS[2].text
    assert results[0].document.metadata == DOCS[2].metadata
    assert results[0].score == pytest.approx(max(r.score for r in results))
    assert results[0].score > results[1].score


def test_search_by_vector_matches_search_by_text(store: Any, embedder: HashEmbedder) -> None:
    store.add_documents(DOCS)
    by_text = store.search("memory safety in rust", top_k=3)
    by_vector = store.search(embedder.embed_query("memory safety in rust"), top_k=3)
    assert texts(by_text) == texts(by_vector)
    assert [r.score for r in by_text] == pytest.approx([r.score for r in by_vector], abs=1e-5)
    assert by_text[0].id is not None


def test_scores_are_cosine_similarities(store: Any, embedder: HashEmbedder) -> None:
    store.add_documents(DOCS[:1])
    (hit,) = store.search(DOCS[0].text, top_k=1)
    assert hit.score == pytest.approx(1.0, abs=1e-4)


def test_top_k_caps_the_results(store: Any) -> None:
    store.add_documents(DOCS)
    assert len(store.search("language", top_k=1)) == 1
    assert len(store.search("language", top_k=10)) == 4


def test_metadata_filter_equal_value_and_any_of(store: Any) -> None:
    store.add_documents(DOCS)
    only_java = store.search("programming language", top_k=4, filter={"lang": "java"})
    assert texts(only_java) == [DOCS[1].text]
    either = store.search("programming language", top_k=4, filter={"lang": ["rust", "none"]})
    assert sorted(texts(either)) == sorted([DOCS[2].text, DOCS[3].text])
    both_keys = store.search("language", top_k=4, filter={"lang": "python", "n": 1})
    assert texts(both_keys) == [DOCS[0].text]
    assert list(store.search("language", filter={"lang": "cobol"})) == []


def test_delete_removes_by_id(store: Any) -> None:
    ids = store.add_documents(DOCS)
    store.delete([ids[2], "no-such-id"])
    assert store.count() == 3
    assert DOCS[2].text not in texts(store.search("cats sleep in the sun", top_k=4))


def test_clear_empties_the_store_and_it_stays_usable(store: Any) -> None:
    store.add_documents(DOCS)
    store.clear()
    assert store.count() == 0
    assert list(store.search("language")) == []
    store.add_documents(DOCS[:2])
    assert store.count() == 2


def test_given_embeddings_are_used_as_is(store: Any, embedder: HashEmbedder) -> None:
    vectors = embedder.embed_texts(["zebra", "yak"])
    store.add_documents([Document("one"), Document("two")], embeddings=vectors)
    assert texts(store.search("zebra", top_k=1)) == ["one"]


def test_wrong_dimension_is_refused_on_add_and_search(store: Any) -> None:
    store.add_documents(DOCS[:1])
    with pytest.raises(DimensionMismatchError, match="3 dimensions but the store holds 64"):
        store.add_documents([Document("x")], embeddings=[[1.0, 0.0, 0.0]])
    with pytest.raises(DimensionMismatchError, match="3 dimensions"):
        store.search([0.1, 0.2, 0.3])
    assert store.count() == 1


def test_reopened_store_returns_the_same_results(
    engine: Engine, store: Any, tmp_path: Path, embedder: HashEmbedder
) -> None:
    ids = store.add_documents(DOCS)
    store.delete([ids[1]])
    before = store.search(
        "programming language", top_k=3, filter={"lang": ["python", "java", "rust"]}
    )
    again = engine.reopen(store, tmp_path, embedder)
    after = again.search(
        "programming language", top_k=3, filter={"lang": ["python", "java", "rust"]}
    )
    assert texts(after) == texts(before)
    assert [r.id for r in after] == [r.id for r in before]
    assert [r.score for r in after] == pytest.approx([r.score for r in before], abs=1e-5)
    assert again.count() == 3 and again.dimension == 64
    again.add_documents([Document("elephants never forget", {"lang": "none"})])
    assert texts(again.search("elephants never forget", top_k=1)) == ["elephants never forget"]


def test_a_query_string_needs_an_embedder(
    engine: Engine, tmp_path: Path, embedder: HashEmbedder
) -> None:
    store = engine.open(tmp_path, None)
    store.add_documents(DOCS[:2], embeddings=embedder.embed_texts([d.text for d in DOCS[:2]]))
    with pytest.raises(NoEmbedderError, match="does not have an embedding provider"):
        store.search("python")
    assert texts(store.search(embedder.embed_query(DOCS[1].text), top_k=1)) == [DOCS[1].text]


def test_search_takes_the_documented_query_embedding_keyword(
    store: Any, embedder: HashEmbedder
) -> None:
    """The RAG page's interface: ``search(query_embedding: List[float], top_k, filter)``."""
    store.add_documents(DOCS)
    vector = embedder.embed_query("memory safety in rust")
    by_keyword = store.search(query_embedding=vector, top_k=2, filter={"lang": ["rust", "java"]})
    assert texts(by_keyword) == texts(
        store.search(vector, top_k=2, filter={"lang": ["rust", "java"]})
    )
    assert texts(by_keyword)[0] == DOCS[3].text
    # text stays the ``query`` argument (DECISIONS); the embedding keyword takes vectors only
    assert texts(store.search(query="memory safety in rust", top_k=1)) == [DOCS[3].text]
    with pytest.raises(TypeError, match="query_embedding takes a vector"):
        store.search(query_embedding="memory safety in rust")
    with pytest.raises(TypeError, match="not both"):
        store.search("rust", query_embedding=vector)
    with pytest.raises(TypeError, match="query text or a query_embedding"):
        store.search(top_k=2)
