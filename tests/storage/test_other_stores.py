"""Trace stores, the triple store and vector stores: round trip, reopen in a fresh process, damage.

A damaged record is skipped by reads and named in ``store.unreadable`` (a
direct ``load`` of it names it in the error); every other record stays
readable. Traces and triples are also killed mid-write and written by two
processes at once in ``test_conformance.py``; FAISS, Chroma, Qdrant and
pgvector in ``test_vector_stores.py``.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from selectools import Agent
from selectools.embeddings import HashEmbedder
from selectools.knowledge_graph import SQLiteTripleStore, Triple
from selectools.observe import JSONLTraceStore, SQLiteTraceStore
from selectools.observe.trace_store import TraceStoreError
from selectools.rag import Document, DocumentLoadError
from selectools.rag.stores import InMemoryVectorStore, SQLiteVectorStore
from selectools.testing import ScriptedProvider
from tests.storage.conftest import ROOT, child_env


def _in_a_fresh_process(code: str) -> object:
    shown = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=child_env(),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr[-2000:]
    return json.loads(shown.stdout)


def _traces(count: int) -> list:
    agent = Agent(provider=ScriptedProvider(default="done"))
    return [agent.run(f"question {n}").trace for n in range(count)]


# -- trace stores --------------------------------------------------------------------
TRACE_STORES = {
    "jsonl": (JSONLTraceStore, "traces.jsonl"),
    "sqlite": (SQLiteTraceStore, "traces.db"),
}


@pytest.mark.parametrize("backend", sorted(TRACE_STORES))
def test_traces_round_trip_and_reopen_in_a_fresh_process(backend, tmp_path):
    kind, name = TRACE_STORES[backend]
    path = tmp_path / name
    store = kind(path)
    traces = _traces(3)
    for trace in traces:
        store.save(trace)
    assert [t.run_id for t in store.query()] == [t.run_id for t in traces]
    assert store.load(traces[1].run_id).to_dict() == traces[1].to_dict()
    code = (
        f"import json; from selectools.observe import {kind.__name__} as S; "
        f"print(json.dumps([t.to_dict() for t in S({str(path)!r}).query()], default=str))"
    )
    expected = json.loads(json.dumps([t.to_dict() for t in traces], default=str))
    assert _in_a_fresh_process(code) == expected


@pytest.mark.parametrize("backend", sorted(TRACE_STORES))
def test_a_damaged_trace_is_named_and_the_others_read(backend, tmp_path):
    kind, name = TRACE_STORES[backend]
    path = tmp_path / name
    store = kind(path)
    traces = _traces(3)
    for trace in traces:
        store.save(trace)
    damaged = traces[1].run_id
    if backend == "jsonl":
        lines = path.read_text().splitlines()
        lines[1] = lines[1][: len(lines[1]) // 2]
        path.write_text("\n".join(lines) + "\n")
    else:
        with sqlite3.connect(path) as db:
            db.execute("UPDATE traces SET body = '{\"run_id\": 1' WHERE run_id = ?", (damaged,))
    assert [t.run_id for t in store.query()] == [traces[0].run_id, traces[2].run_id]
    assert len(store.unreadable) == 1 and damaged in store.unreadable[0]
    with pytest.raises(TraceStoreError, match=damaged):
        store.load(damaged)


# -- triples -------------------------------------------------------------------------
def test_triples_round_trip_reopen_and_a_damaged_row(tmp_path):
    path = tmp_path / "kg.db"
    store = SQLiteTripleStore(db_path=path)
    triples = [Triple(s, "knows", o) for s, o in (("ann", "bob"), ("bob", "cy"), ("cy", "dee"))]
    store.add(triples)
    assert [t.key for t in store.all()] == [t.key for t in triples]
    code = (
        "import json; from selectools.knowledge_graph import SQLiteTripleStore as S; "
        f"print(json.dumps([list(t.key) for t in S(db_path={str(path)!r}).all()]))"
    )
    assert _in_a_fresh_process(code) == [list(t.key) for t in triples]
    with sqlite3.connect(path) as db:
        db.execute("UPDATE triples SET created_at = 'yesterday-ish' WHERE subject = 'bob'")
    assert [t.subject for t in store.all()] == ["ann", "cy"]
    assert len(store.unreadable) == 1 and "row 2" in store.unreadable[0]


# -- vector stores -------------------------------------------------------------------
DOCS = [Document(f"note number {n} about {topic}", {"n": n}) for n, topic in
        enumerate(["cats", "rust", "tea"])]  # fmt: skip


def test_sqlite_vectors_round_trip_reopen_and_a_damaged_row(tmp_path):
    path = tmp_path / "v.db"
    store = SQLiteVectorStore(embedder=HashEmbedder(dimension=32), db_path=path)
    ids = store.add_documents(DOCS)
    assert [r.document.text for r in store.search("note number 1 about rust", top_k=1)] == [
        DOCS[1].text
    ]
    store.close()
    code = (
        "import json; from selectools.rag.stores import SQLiteVectorStore as S; "
        "from selectools.embeddings import HashEmbedder as H; "
        f"s = S(embedder=H(dimension=32), db_path={str(path)!r}); "
        "print(json.dumps([r.document.text for r in s.search('note number 2 about tea', top_k=3)]))"
    )
    assert _in_a_fresh_process(code)[0] == DOCS[2].text
    with sqlite3.connect(path) as db:
        db.execute("UPDATE documents SET metadata = '{\"n\": ' WHERE id = ?", (ids[0],))
    again = SQLiteVectorStore(embedder=HashEmbedder(dimension=32), db_path=path)
    found = [r.document.text for r in again.search("note number 0 about cats", top_k=3)]
    assert sorted(found) == sorted([DOCS[1].text, DOCS[2].text])
    assert len(again.unreadable) == 1 and ids[0] in again.unreadable[0]


def test_saved_memory_vectors_reopen_and_a_damaged_file_is_named(tmp_path):
    store = InMemoryVectorStore(embedder=HashEmbedder(dimension=32))
    store.add_documents(DOCS)
    folder = tmp_path / "saved"
    store.save(folder)
    code = (
        "import json; from selectools.rag.stores import InMemoryVectorStore as S; "
        "from selectools.embeddings import HashEmbedder as H; "
        f"s = S.load({str(folder)!r}, embedder=H(dimension=32)); "
        "print(json.dumps([r.document.text for r in s.search('note number 1 about rust', top_k=1)]))"
    )
    assert _in_a_fresh_process(code) == [DOCS[1].text]
    documents = next(p for p in Path(folder).iterdir() if p.suffix == ".json")
    documents.write_text(documents.read_text()[:40])
    with pytest.raises(DocumentLoadError, match=str(documents)):
        InMemoryVectorStore.load(folder, embedder=HashEmbedder(dimension=32))


# -- newer formats -------------------------------------------------------------------
NEWER = {
    "traces": lambda path: SQLiteTraceStore(path),
    "triples": lambda path: SQLiteTripleStore(db_path=path),
    "vectors": lambda path: SQLiteVectorStore(embedder=HashEmbedder(dimension=32), db_path=path),
}


@pytest.mark.parametrize("kind", sorted(NEWER))
def test_a_sqlite_store_from_a_newer_format_is_refused_untouched(kind, tmp_path):
    path = tmp_path / f"{kind}.db"
    NEWER[kind](path).close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version=99")
    before = path.read_bytes()
    with pytest.raises(ValueError, match="newer selectools"):
        NEWER[kind](path)
    assert path.read_bytes() == before
