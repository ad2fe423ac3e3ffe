"""FAISS, Chroma, Qdrant (local mode) and pgvector: kill -9 mid-write, two writers, damage.

The same promises as the other stores (``test_conformance.py``): a writer
killed at a random moment leaves a store that opens and holds only whole
records (and every record the writer had finished); two processes adding at
once lose nothing; a damaged file is a typed error that says what is wrong
and what to do, never a wrong search result. Writers are real child
processes (``tests/storage/_vectors.py``) over the real engines.
"""

from __future__ import annotations

import json
import os
import random
import select
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from tests.storage import _vectors as vectors
from tests.storage.conftest import ROOT, child_env

#: kills per backend (at least 30 for every store whose data lives in local files)
KILLS = 30


@pytest.fixture
def location(request, tmp_path) -> str:
    backend = request.node.callspec.params["backend"]
    if backend == "pgvector":
        return f"{request.getfixturevalue('postgres_uri')}|v{uuid.uuid4().hex[:10]}"
    return str(tmp_path / f"{backend}-{uuid.uuid4().hex[:8]}")


def _prepare(backend: str, location: str) -> None:
    """Create the store once, as an application would before its workers start."""
    store = vectors.open_store(backend, location)
    if backend in vectors.SAVED:
        store.save(location)
    vectors.close(store)


class _Writer:
    """A writer child process; its report lines read straight from the pipe (no buffering)."""

    def __init__(
        self, backend: str, location: str, first: int, last: int, pause: float = 0.0
    ) -> None:
        self._errors = tempfile.TemporaryFile()  # noqa: SIM115 - open while the child runs
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.storage._vectors", "write", backend, location,
             str(first), str(last), str(pause)],
            cwd=ROOT, env=child_env(), stdout=subprocess.PIPE, stderr=self._errors,
        )  # fmt: skip
        self._buffer = b""

    def errors(self) -> str:
        self._errors.seek(0)
        return self._errors.read().decode(errors="replace")[-2000:]

    def line(self, wait: float) -> str | None:
        """The next whole line (None: the pipe closed or ``wait`` seconds passed)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        give_up = time.monotonic() + wait
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([fd], [], [], max(give_up - time.monotonic(), 0))
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()

    def found(self) -> list[int]:
        """What the writer found when it opened the store (it checked every record first)."""
        line = self.line(180)
        if line is None or not line.startswith("found "):
            self.kill()
            raise AssertionError(f"the writer failed to open the store: {self.errors()}")
        return list(json.loads(line[len("found ") :]))

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()

    def reported(self) -> list[int]:
        """Every version the (finished or killed) writer reported stored."""
        versions = []
        while (line := self.line(60)) is not None:
            versions.append(int(line))
        return versions


def _check(found: list[int], done: set[int], in_flight: set[int], kills: int) -> None:
    missing = done - set(found)
    assert not missing, f"finished writes lost after kill {kills}: {sorted(missing)[:5]}"
    assert set(found) - done <= in_flight, (set(found) - done, in_flight)


@pytest.mark.timeout(900)
@pytest.mark.parametrize("backend", vectors.BACKENDS)
def test_kill_9_mid_write_leaves_only_whole_records(backend, location, report):
    """Each writer first opens and checks the store the previous one was killed writing."""
    _prepare(backend, location)
    rng = random.Random(backend)
    done: set[int] = set()  # versions a writer reported stored
    in_flight: set[int] = set()  # the write each kill interrupted (it may have landed)
    kills = 0
    started = time.monotonic()
    for cycle in range(1, KILLS + 1):
        first = cycle * 1_000_000
        writer = _Writer(backend, location, first, first + 999_999)
        try:
            _check(writer.found(), done, in_flight, kills)
            written = writer.line(120)
            assert written is not None, f"no first write within 120 s: {writer.errors()}"
            time.sleep(rng.uniform(0, 0.05))
        finally:
            writer.kill()
        kills += 1
        reported = [int(written), *writer.reported()]
        done.update(reported)
        in_flight.add(max(reported) + 1)
    store = vectors.open_store(backend, location)  # and once more in this process
    try:
        _check(sorted(vectors.read_all(store)), done, in_flight, kills)
    finally:
        vectors.close(store)
    report(
        f"\nkill -9 vectors/{backend}: {kills} kills, {len(done)} finished writes, every record "
        f"whole, {time.monotonic() - started:.1f}s"
    )


@pytest.mark.parametrize("backend", vectors.BACKENDS)
def test_two_processes_adding_at_once_lose_nothing(backend, location):
    _prepare(backend, location)
    per_writer = 15
    writers = [  # a pause between writes, so the two writers' lifetimes overlap
        _Writer(backend, location, first, first + per_writer - 1, pause=0.1) for first in (1, 1001)
    ]
    reported = []
    for writer in writers:
        writer.found()
        reported.append(writer.reported())
        assert writer.proc.wait(timeout=300) == 0, writer.errors()
    assert [len(r) for r in reported] == [per_writer, per_writer]
    store = vectors.open_store(backend, location)
    try:
        found = vectors.read_all(store)
    finally:
        vectors.close(store)
    assert sorted(found) == sorted(reported[0] + reported[1])


# -- damaged files and rows ---------------------------------------------------------
def _filled(backend: str, location: str) -> None:
    store = vectors.open_store(backend, location)
    for version in (1, 2, 3):
        vectors.write(store, backend, location, vectors.KEYS[version % 3], version)
    vectors.close(store)


def _old_faiss_folder(folder: Path, stored: int, listed: int) -> None:
    """A folder as FAISS stores saved it before the index file was named and checksummed."""
    import faiss
    import numpy

    from selectools.rag import Document
    from selectools.rag.stores._files import dump_documents

    index = faiss.IndexIDMap2(faiss.IndexFlatIP(vectors.DIMENSION))
    rows = numpy.asarray([vectors.vector(v) for v in range(1, stored + 1)], dtype=numpy.float32)
    rows /= numpy.linalg.norm(rows, axis=1, keepdims=True)
    index.add_with_ids(rows, numpy.arange(stored, dtype=numpy.int64))
    folder.mkdir()
    (folder / "index.faiss").write_bytes(faiss.serialize_index(index).tobytes())
    docs = [Document(vectors.text_of("k0", v), {}) for v in range(1, listed + 1)]
    extra = {"kind": "faiss", "dimension": vectors.DIMENSION, "labels": list(range(listed)),
             "next": stored, "index_factory": "Flat"}  # fmt: skip
    ids = [f"id{v}" for v in range(1, listed + 1)]
    (folder / "documents.json").write_bytes(dump_documents(ids, docs, extra))


def test_a_faiss_folder_from_before_checksums_still_loads(tmp_path):
    from selectools.rag.stores import FAISSVectorStore

    _old_faiss_folder(tmp_path / "old", stored=3, listed=3)
    store = FAISSVectorStore.load(tmp_path / "old")
    assert store.search(vectors.vector(2), top_k=1)[0].id == "id2"
    store.save(tmp_path / "old")  # saved again in the new layout, still the same answers
    again = FAISSVectorStore.load(tmp_path / "old")
    assert again.search(vectors.vector(3), top_k=1)[0].id == "id3"
    assert not (tmp_path / "old" / "index.faiss").exists()


def test_a_faiss_index_that_does_not_match_its_documents_is_a_clear_error(tmp_path):
    """A save torn between its two files (before the commit point): never a wrong answer."""
    from selectools.rag import DocumentLoadError
    from selectools.rag.stores import FAISSVectorStore

    _old_faiss_folder(tmp_path / "torn", stored=3, listed=2)
    with pytest.raises(DocumentLoadError, match=r"3 vectors .* 2 documents") as caught:
        FAISSVectorStore.load(tmp_path / "torn")
    assert str(tmp_path / "torn" / "index.faiss") in str(caught.value)
    assert "restore the folder from a backup" in str(caught.value)


@pytest.mark.parametrize("backend", vectors.SAVED)
@pytest.mark.parametrize("damage", ["vectors", "documents"])
def test_a_damaged_saved_file_is_named(backend, damage, tmp_path):
    from selectools.rag import DocumentLoadError

    folder = tmp_path / "saved"
    _filled(backend, str(folder))
    if damage == "vectors":
        (path,) = folder.glob("index-*.faiss" if backend == "faiss" else "vectors-*.npy")
        data = bytearray(path.read_bytes())
        data[-40:-8] = bytes(32)  # same size, some vector bytes zeroed
        path.write_bytes(bytes(data))
        expected = "damaged"
    else:
        path = folder / "documents.json"
        path.write_text(path.read_text()[:60])
        expected = "not a saved store"
    with pytest.raises(DocumentLoadError, match=expected) as caught:
        vectors.open_store(backend, str(folder))
    assert str(path) in str(caught.value)


def test_a_memory_folder_from_before_checksums_still_loads(tmp_path):
    import numpy

    from selectools.rag import Document, InMemoryVectorStore

    store = InMemoryVectorStore(dimension=vectors.DIMENSION)
    store.add_documents(
        [Document("a"), Document("b")], embeddings=[vectors.vector(1), vectors.vector(2)]
    )
    store.save(tmp_path / "new")
    old = tmp_path / "old"  # the layout saves had before: vectors.npy, no generation or checksum
    old.mkdir()
    (vectors_file,) = (tmp_path / "new").glob("vectors-*.npy")
    numpy.save(old / "vectors.npy", numpy.load(vectors_file))
    payload = json.loads((tmp_path / "new" / "documents.json").read_text())
    for key in ("generation", "vectors_file", "vectors_sha256"):
        payload.pop(key, None)
    (old / "documents.json").write_text(json.dumps(payload))
    loaded = InMemoryVectorStore.load(old)
    assert [hit.document.text for hit in loaded.search(vectors.vector(2), top_k=1)] == ["b"]


@pytest.mark.parametrize("backend", ["chroma", "qdrant"])
def test_a_damaged_database_file_is_named(backend, tmp_path):
    from selectools.rag import DocumentLoadError

    folder = tmp_path / backend
    _filled(backend, str(folder))
    name = "chroma.sqlite3" if backend == "chroma" else "collection/*/storage.sqlite"
    (path,) = folder.glob(name)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(DocumentLoadError, match="backup") as caught:
        vectors.open_store(backend, str(folder))
    assert str(folder) in str(caught.value)
    # the folder is free again after the failed open
    path.unlink()
    vectors.close(vectors.open_store(backend, str(folder)))


def test_a_damaged_qdrant_point_is_a_clear_error(tmp_path):
    import sqlite3

    from selectools.rag import DocumentLoadError

    folder = tmp_path / "qdrant"
    _filled("qdrant", str(folder))
    (path,) = folder.glob("collection/*/storage.sqlite")
    with sqlite3.connect(path) as db:
        db.execute("update points set point = substr(point, 1, 40) where rowid = 2")
    with pytest.raises(DocumentLoadError, match="cannot read this folder"):
        vectors.open_store("qdrant", str(folder))


def test_a_damaged_chroma_record_is_named_and_the_others_read(tmp_path):
    import sqlite3

    folder = tmp_path / "chroma"
    _filled("chroma", str(folder))
    with sqlite3.connect(folder / "chroma.sqlite3") as db:
        db.execute(
            "update embedding_metadata set string_value = '{\"key\": ' "
            "where key = '_selectools_metadata' and string_value like '%\"v\": 2,%'"
        )
    store = vectors.open_store("chroma", str(folder))
    try:
        assert sorted(v for _, d in store.documents() for v in [d.metadata["v"]]) == [1, 3]
        assert len(store.unreadable) == 1 and "damaged" in store.unreadable[0]
        hits = store.search(vectors.vector(2), top_k=3)
        assert sorted(h.document.metadata["v"] for h in hits) == [1, 3]
        assert len(store.unreadable) == 1
    finally:
        vectors.close(store)


def test_a_damaged_pgvector_row_is_named_and_the_others_read(postgres_uri):
    import psycopg

    table = f"v{uuid.uuid4().hex[:10]}"
    location = f"{postgres_uri}|{table}"
    _filled("pgvector", location)
    with psycopg.connect(postgres_uri, autocommit=True) as conn:
        conn.execute(f"update {table} set metadata = '\"oops\"'::jsonb where text like 'k2:2:%'")
    store = vectors.open_store("pgvector", location)
    try:
        assert sorted(d.metadata["v"] for _, d in store.documents()) == [1, 3]
        assert len(store.unreadable) == 1 and "not a JSON object" in store.unreadable[0]
        hits = store.search(vectors.vector(2), top_k=3)
        assert sorted(h.document.metadata["v"] for h in hits) == [1, 3]
    finally:
        vectors.close(store)


# -- one folder, several processes ---------------------------------------------------
HOLD = """
import sys, time
from tests.storage import _vectors as v
store = v.open_store(sys.argv[1], sys.argv[2])
print("held", flush=True)
time.sleep(120)
"""


@pytest.mark.parametrize("backend", ["chroma", "qdrant"])
def test_a_folder_open_in_another_process_waits_then_is_a_clear_error(backend, tmp_path):
    from selectools.rag import VectorStoreInUseError
    from selectools.rag.stores import ChromaVectorStore, QdrantVectorStore

    def opener(folder: Path) -> object:
        if backend == "chroma":
            return ChromaVectorStore(persist_directory=folder, lock_timeout=1)
        return QdrantVectorStore(path=str(folder), lock_timeout=1)

    folder = tmp_path / backend
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, backend, str(folder)],
        cwd=ROOT, env=child_env(), stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        with pytest.raises(VectorStoreInUseError, match="open in another process") as caught:
            opener(folder)
        assert 1 <= time.monotonic() - started < 20
        assert str(folder) in str(caught.value) and "server" in str(caught.value)
    finally:
        holder.kill()
        holder.wait()
    vectors.close(vectors.open_store(backend, str(folder)))  # free once the holder is gone


def test_two_pgvector_stores_creating_one_table_at_once_both_open(postgres_uri):
    """Concurrent CREATE TABLE IF NOT EXISTS collides in PostgreSQL's catalog without a lock."""
    import threading

    from selectools.rag.stores import PgVectorStore

    errors: list[BaseException] = []
    for _round in range(8):
        table = f"v{uuid.uuid4().hex[:10]}"
        barrier = threading.Barrier(6)

        def open_one(table: str = table, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            try:
                PgVectorStore(
                    connection_string=postgres_uri, table_name=table, dimensions=8
                ).close()
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=open_one) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    assert errors == []
