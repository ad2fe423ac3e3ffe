"""``ingest``: overlapped load/chunk/embed/store into a real SQLite store, resumed after an interruption."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from selectools.embeddings import HashEmbedder
from selectools.rag import (
    Document,
    DocumentLoader,
    DocumentLoadError,
    DocumentNotFoundError,
    NoEmbedderError,
    TextSplitter,
    VectorStore,
    ingest,
)
from selectools.rag._ingest import content_hash


class Interrupted(Exception):
    pass


class CountingEmbedder(HashEmbedder):
    """A real (hashing) embedder that counts what it embeds, and can fail after N calls."""

    def __init__(self, fail_after: int | None = None) -> None:
        super().__init__(dimension=32)
        self.fail_after = fail_after
        self.calls = 0
        self.texts: list[str] = []

    def embed_texts(self, texts: Sequence[str]) -> list[list[float]]:
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise Interrupted(f"stopped after {self.calls} batches")
        self.calls += 1
        self.texts.extend(texts)
        return super().embed_texts(texts)


def write_corpus(root: Path, files: int = 12, paragraphs: int = 30) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for f in range(files):
        text = "\n\n".join(
            f"File {f} paragraph {p}: the agent reads document {f} and answers question {p}."
            for p in range(paragraphs)
        )
        (root / f"doc{f:02d}.txt").write_text(text, encoding="utf-8")


def loader_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "selectools-ingest-loader"]


def test_an_interrupted_ingestion_resumes_embedding_only_what_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus, db = tmp_path / "corpus", tmp_path / "kb.db"
    write_corpus(corpus)
    monkeypatch.setattr(VectorStore, "EMBED_BATCH", 16)
    splitter = TextSplitter(chunk_size=200, chunk_overlap=0, separator="\n\n")

    first = CountingEmbedder(fail_after=5)
    store = VectorStore.create("sqlite", embedder=first, db_path=db)
    with pytest.raises(Interrupted):
        ingest(corpus, store, splitter=splitter, progress=False)
    assert first.calls == 5 and store.count() == 5 * 16  # every finished batch was kept
    assert loader_threads() == []  # the loader stopped with the embedder
    store.close()  # type: ignore[attr-defined]

    second = CountingEmbedder()
    store = VectorStore.create("sqlite", embedder=second, db_path=db)  # a new process would do this
    report = ingest(corpus, store, splitter=splitter, progress=False)
    total = report.chunks
    assert total > 5 * 16 + 16  # the interruption left work to do
    assert report.skipped == 5 * 16 and report.embedded == total - 5 * 16
    assert len(second.texts) == total - 5 * 16  # the embedder saw only what was missing
    assert not set(second.texts) & set(first.texts)
    assert store.count() == total
    hashes = [d.metadata["content_hash"] for _, d in store.documents()]
    assert len(set(hashes)) == total  # nothing stored twice

    third = CountingEmbedder()
    store.embedder = third
    again = ingest(corpus, store, splitter=splitter, progress=False)
    assert (again.embedded, again.skipped, third.calls) == (0, total, 0)
    hit = store.search("document 7 answers question 3", top_k=1)[0]
    assert hit.document.metadata["filename"] == "doc07.txt"


def test_a_killed_ingestion_process_resumes(tmp_path: Path) -> None:
    """kill -9 of a process ingesting into SQLite: the next run embeds only what is missing."""
    corpus, db, marker = tmp_path / "corpus", tmp_path / "kb.db", tmp_path / "calls"
    write_corpus(corpus, files=20, paragraphs=40)
    script = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from selectools.embeddings import HashEmbedder
        from selectools.rag import TextSplitter, VectorStore, ingest

        class Stalling(HashEmbedder):
            # records each call; from call N+1 on it hangs, to be killed there

            def embed_texts(self, texts):
                with open({str(marker)!r}, "a") as out:
                    out.write(f"{{len(texts)}}\\n")
                calls = len(open({str(marker)!r}).read().split())
                if 0 < int(sys.argv[1]) < calls:
                    time.sleep(600)
                return super().embed_texts(texts)

        VectorStore.EMBED_BATCH = 16
        store = VectorStore.create("sqlite", embedder=Stalling(32), db_path={str(db)!r})
        report = ingest({str(corpus)!r}, store, progress=False,
                        splitter=TextSplitter(200, 0, separator="\\n\\n"))
        print(report.chunks, report.embedded, report.skipped)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen(
        [sys.executable, "-c", script, "6"], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if marker.exists() and len(marker.read_text().split()) >= 7:
                break  # six batches embedded and stored, the seventh hangs
            time.sleep(0.05)
        else:
            pytest.fail("the ingesting process never reached its seventh batch")
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    stored = VectorStore.create("sqlite", db_path=db).count()
    total = len(
        TextSplitter(200, 0, separator="\n\n").split_documents(
            DocumentLoader.from_directory(corpus)
        )
    )
    assert stored == 6 * 16 < total  # the six stored batches survived the kill
    marker.unlink()

    done = subprocess.run(
        [sys.executable, "-c", script, "0"], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    chunks, embedded, skipped = map(int, done.stdout.split())
    assert (chunks, skipped, embedded) == (total, stored, total - stored)
    assert sum(int(n) for n in marker.read_text().split()) == total - stored  # embedder calls
    assert VectorStore.create("sqlite", db_path=db).count() == total


def test_documents_in_progress_and_report(tmp_path: Path) -> None:
    docs = [Document(f"Document {i}. " * 40, {"source": f"d{i}"}) for i in range(5)]
    seen: list[tuple[int, int]] = []
    store = VectorStore.create("memory", embedder=HashEmbedder())
    report = ingest(
        docs, store, splitter=TextSplitter(100, 0), progress=lambda d, t: seen.append((d, t))
    )
    assert report.sources == 5 and report.chunks == report.embedded == store.count() > 5
    assert report.chunks_per_second > 0
    assert seen[-1] == (5, 5) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    stored = [d for _, d in store.documents()]
    assert all(d.metadata["content_hash"] == content_hash(d) for d in stored)


def test_content_hash_covers_text_and_metadata() -> None:
    base = Document("same text", {"source": "a.md", "chunk": 0})
    assert content_hash(base) == content_hash(Document("same text", {"chunk": 0, "source": "a.md"}))
    assert content_hash(base) != content_hash(Document("same text", {"source": "b.md", "chunk": 0}))
    assert content_hash(base) != content_hash(
        Document("other text", {"source": "a.md", "chunk": 0})
    )


def test_errors_are_typed_and_stop_the_loader(tmp_path: Path) -> None:
    store = VectorStore.create("memory", embedder=HashEmbedder())
    with pytest.raises(DocumentNotFoundError):
        ingest(tmp_path / "missing", store)
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(DocumentLoadError, match="not a directory"):
        ingest(tmp_path / "file.txt", store)
    with pytest.raises(TypeError, match="item 0 is str"):
        ingest(["text"], store)  # type: ignore[list-item]
    with pytest.raises(NoEmbedderError):
        ingest([Document("x")], VectorStore.create("memory"))
    corpus = tmp_path / "corpus"
    write_corpus(corpus, files=3)
    (corpus / "doc01.txt").write_bytes(b"\xff\xfe not utf-8 \xff")
    with pytest.raises(DocumentLoadError, match=r"doc01\.txt"):
        ingest(corpus, store, progress=False)
    assert loader_threads() == []


def test_ingest_stays_the_function_whatever_else_is_imported():
    # a submodule named like the function would replace it on the package once anything
    # (the docs build, a plugin) imports it: `from selectools.rag import ingest` then gave a module
    code = (
        "import importlib, pkgutil, selectools.rag as rag\n"
        "for info in pkgutil.iter_modules(rag.__path__):\n"
        "    try:\n"
        "        importlib.import_module('selectools.rag.' + info.name)\n"
        "    except ImportError:\n"
        "        pass\n"
        "from selectools.rag import ingest\n"
        "print(callable(ingest), type(ingest).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "function"]
