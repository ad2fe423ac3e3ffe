"""Progress where users wait: Agent.batch/abatch and large ingestions show a bar (tqdm when
installed), ``progress=False`` hides it, and the bar ends at the true count."""

from __future__ import annotations

import asyncio
import sys

import pytest

from selectools import Agent
from selectools.embeddings.hashing import HashEmbedder
from selectools.rag import Document, VectorStore
from selectools.testing import ScriptedProvider


def _agent(replies: int) -> Agent:
    return Agent(tools=[], provider=ScriptedProvider([f"answer {i}" for i in range(replies)]))


def test_batch_shows_a_tqdm_bar_that_ends_at_the_total(capfd):
    results = _agent(7).batch([f"q{i}" for i in range(7)], max_concurrency=3)
    assert len(results) == 7
    err = capfd.readouterr().err
    assert "batch" in err and "7/7" in err


def test_progress_false_hides_the_bar_and_keeps_on_progress(capfd):
    seen: list[tuple[int, int]] = []
    _agent(4).batch(
        ["a", "b", "c", "d"], on_progress=lambda d, t: seen.append((d, t)), progress=False
    )
    assert capfd.readouterr().err == ""
    assert sorted(seen) == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_abatch_shows_the_bar_too(capfd):
    results = asyncio.run(_agent(5).abatch([f"q{i}" for i in range(5)]))
    assert len(results) == 5
    assert "5/5" in capfd.readouterr().err


def test_large_ingestion_is_embedded_in_batches_with_a_bar(capfd):
    embedder = HashEmbedder()
    store = VectorStore.create("memory", embedder=embedder)
    total = store.EMBED_BATCH * 2 + 5
    docs = [Document(text=f"document number {i} about topic {i % 7}") for i in range(total)]
    ids = store.add_documents(docs)
    assert len(ids) == total
    err = capfd.readouterr().err
    assert "embedding" in err and f"{total}/{total}" in err
    # batches give the same vectors as one call: the nearest document to its own text is itself
    hits = store.search(docs[total - 1].text, top_k=1)
    assert hits[0].document.text == docs[total - 1].text
    store.add_documents(docs[:10], progress=False)
    assert capfd.readouterr().err == ""


def test_without_tqdm_the_notebook_bar_is_used(monkeypatch):
    from IPython.core.displaypub import CapturingDisplayPublisher
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.setitem(sys.modules, "tqdm.auto", None)  # import fails: tqdm "not installed"
    ip = InteractiveShell.instance()
    publisher = CapturingDisplayPublisher()
    monkeypatch.setattr(ip, "display_pub", publisher)
    ip.extension_manager.load_extension("selectools")
    try:
        _agent(6).batch([f"q{i}" for i in range(6)], max_concurrency=2)
    finally:
        ip.extension_manager.unload_extension("selectools")
    shown = [out["data"] for out in publisher.outputs]
    assert shown, "the notebook bar displayed nothing"
    final = shown[-1]
    assert final["text/plain"] == "batch 6/6 (100%)"
    assert '<progress value="6" max="6"' in final["text/html"]


def test_without_tqdm_or_a_notebook_a_log_gets_no_bar(monkeypatch, capfd):
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    _agent(3).batch(["a", "b", "c"])
    assert capfd.readouterr().err == ""  # stderr is not a terminal here


@pytest.mark.parametrize("progress", [True, False])
def test_rag_agent_passes_progress_to_ingestion(progress, capfd):
    from selectools.rag import RAGAgent

    store = VectorStore.create("memory", embedder=HashEmbedder())
    docs = [Document(text=f"chunk {i} " * 20) for i in range(store.EMBED_BATCH + 1)]
    RAGAgent.from_documents(
        docs, ScriptedProvider(["ok"]), store, chunk_size=200, chunk_overlap=0, progress=progress
    )
    assert ("ingesting" in capfd.readouterr().err) is progress  # through ingest, over the docs
    RAGAgent.from_documents(docs[:3], ScriptedProvider(["ok"]), store, progress=progress)
    assert "ingesting" not in capfd.readouterr().err  # a small set shows no bar
