"""KnowledgeGraphMemory and its stores (in memory and SQLite, the same contract)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from selectools.knowledge_graph import (
    ExtractionError,
    InMemoryTripleStore,
    KnowledgeGraphMemory,
    SQLiteTripleStore,
    StoreVersionError,
    Triple,
    TripleStore,
    UnknownBackendError,
    keywords_of,
)
from selectools.testing import ScriptedProvider


@pytest.fixture(params=["memory", "sqlite"])
def store(request, tmp_path):
    if request.param == "memory":
        return InMemoryTripleStore()
    return SQLiteTripleStore(db_path=tmp_path / "kg.db")


def _seed(store):
    store.add(
        [
            Triple(subject="Alice", relation="works_at", object="Acme Corp", confidence=0.95),
            Triple(subject="Acme Corp", relation="located_in", object="Seattle", confidence=0.9),
            Triple(subject="Alice", relation="manages", object="Project Atlas", confidence=0.85),
            Triple(subject="Bob", relation="reports_to", object="Alice", confidence=0.3),
        ]
    )


def test_store_contract(store):
    assert isinstance(store, TripleStore)
    _seed(store)
    store.add([Triple(subject="Alice", relation="works_at", object="Acme Corp", confidence=0.1)])
    assert store.count() == 4  # the duplicate is ignored, the first kept
    assert store.query(subject="Alice", object="Acme Corp")[0].confidence == 0.95
    assert [t.object for t in store.query(subject="Alice")] == ["Acme Corp", "Project Atlas"]
    assert [t.subject for t in store.query(object="Alice")] == ["Bob"]
    assert [t.object for t in store.query(relation="manages")] == ["Project Atlas"]
    found = store.search(["alice", "seattle"], top_k=10)
    assert {(t.subject, t.object) for t in found} == {
        ("Alice", "Acme Corp"),
        ("Acme Corp", "Seattle"),
        ("Alice", "Project Atlas"),
        ("Bob", "Alice"),
    }
    assert len(store.search(["alice"], top_k=2)) == 2
    assert store.search([], top_k=5) == []
    assert all(t.created_at is not None for t in store.all())
    assert store.delete(subject="Bob") == 1
    assert store.count() == 3
    store.clear()
    assert store.count() == 0 and store.all() == []


def test_memory_query_filters_by_confidence_and_context_format(store):
    _seed(store)
    kg = KnowledgeGraphMemory(store=store, min_confidence=0.5, max_context_triples=2)
    assert [t.subject for t in kg.query(["Bob"])] == []
    assert kg.build_context() == (
        "[Known Relationships]\n"
        "- Acme Corp located_in Seattle (0.90)\n"
        "- Alice manages Project Atlas (0.85)"
    )
    context = kg.build_context(["Seattle"])
    assert context == "[Known Relationships]\n- Acme Corp located_in Seattle (0.90)"
    assert KnowledgeGraphMemory(store=InMemoryTripleStore()).build_context() == ""


def test_neighbourhood(store):
    _seed(store)
    kg = KnowledgeGraphMemory(store=store, min_confidence=0.5)
    assert {t.object for t in kg.neighbours("Alice")} == {"Acme Corp", "Project Atlas"}
    two_hops = kg.neighbours("Alice", depth=2)
    assert ("Acme Corp", "located_in", "Seattle") in {t.key for t in two_hops}


def test_extraction_prompt_and_parsing():
    reply = json.dumps(
        [
            {"subject": "Alice", "relation": "Works At", "object": "Acme", "confidence": 0.9},
            {"subject": "Acme", "relation": "based_in", "object": "Seattle", "confidence": "high"},
            {"subject": "", "relation": "x", "object": "y"},
        ]
    )
    provider = ScriptedProvider([reply])
    kg = KnowledgeGraphMemory(provider=provider)
    triples = kg.extract_triples("Alice works at Acme, based in Seattle.")
    assert [(t.relation, t.confidence, t.source_turn) for t in triples] == [
        ("works_at", 0.9, 1),
        ("based_in", 1.0, 1),
    ]
    prompt = provider.requests[0].messages[-1].text
    assert prompt.startswith("Extract all relationships from the following text")
    assert "snake_case" in prompt and "confidence" in prompt
    with pytest.raises(ExtractionError, match="knowledge graph extraction"):
        KnowledgeGraphMemory(provider=ScriptedProvider(["no triples here"])).extract_triples("x")


def test_storage_shortcut_and_unknown_backend(tmp_path):
    assert isinstance(KnowledgeGraphMemory(storage="memory").store, InMemoryTripleStore)
    kg = KnowledgeGraphMemory(storage="sqlite", db_path=tmp_path / "g.db")
    assert isinstance(kg.store, SQLiteTripleStore)
    with pytest.raises(UnknownBackendError, match=r"unknown backend 'neo4j'.*'memory', 'sqlite'"):
        KnowledgeGraphMemory(storage="neo4j")
    with pytest.raises(TypeError, match="TripleStore"):
        KnowledgeGraphMemory(store={})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="confidence"):
        Triple(subject="a", relation="r", object="b", confidence=1.5)


def test_sqlite_schema_is_the_documented_one_and_newer_files_are_refused(tmp_path):
    path = tmp_path / "kg.db"
    SQLiteTripleStore(db_path=path).add([Triple(subject="a", relation="r", object="b")])
    with sqlite3.connect(path) as conn:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(triples)")]
        indexes = {row[1] for row in conn.execute("PRAGMA index_list(triples)")}
        conn.execute("PRAGMA user_version=99")
    assert columns == [
        "id",
        "subject",
        "relation",
        "object",
        "confidence",
        "source_turn",
        "created_at",
    ]
    assert {"idx_subject", "idx_object", "idx_relation"} <= indexes
    with pytest.raises(StoreVersionError, match="format 99 by a newer selectools"):
        SQLiteTripleStore(db_path=path)
    garbage = tmp_path / "junk.db"
    garbage.write_bytes(b"this is not a database" * 100)
    with pytest.raises(Exception, match="is not a triple store"):
        SQLiteTripleStore(db_path=garbage)


def test_round_trip_and_keywords():
    kg = KnowledgeGraphMemory(min_confidence=0.6, max_context_triples=9)
    kg.update([Triple(subject="Python", relation="is_a", object="programming language")])
    copy = KnowledgeGraphMemory.from_dict(
        json.loads(json.dumps(kg.to_dict())), store=InMemoryTripleStore()
    )
    assert (copy.min_confidence, copy.max_context_triples, copy.turns) == (0.6, 9, 1)
    assert copy.store.all()[0].key == ("Python", "is_a", "programming language")
    assert keywords_of("Where does Alice's company operate?") == ["Alice", "company", "operate"]


def test_svg_and_dataframe():
    kg = KnowledgeGraphMemory()
    kg.update(
        [
            Triple(subject="Alice", relation="works_at", object="Acme <Corp>"),
            Triple(subject="Acme <Corp>", relation="located_in", object="Seattle"),
        ]
    )
    svg = kg.to_svg()
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count("<circle") == 3 and svg.count("<line") == 2
    assert "Acme &lt;Corp&gt;" in svg and "<Corp>" not in svg
    assert svg == kg.to_svg()  # deterministic layout
    frame = kg.to_dataframe()
    assert list(frame.columns[:4]) == ["subject", "relation", "object", "confidence"]
    assert len(frame) == 2
    assert "<svg" in kg._repr_html_()
