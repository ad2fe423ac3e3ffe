"""Vector stores over real engines, opened from a location a child process can reuse.

A record is one document per version: its text and metadata carry
``"<key>:<version>"`` and padding (a reader tells a whole record from a torn
one), and its vector is derived from the version alone, so a search with that
vector must find that record first (an index that does not match its
documents is a wrong answer, caught here).

``python -m tests.storage._vectors write BACKEND LOCATION FIRST LAST [PAUSE]`` opens
the store, prints what it holds (``found`` and a JSON list of versions, after
checking every record), then writes versions FIRST..LAST (one document each,
rotating keys) and prints each version once it is stored, pausing PAUSE
seconds (an optional sixth argument) between writes. It is the writer
the kill -9 and two-writer tests start (and kill); the next one proves the
store opens after the kill and holds only whole records.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy

SIZE = 200
DIMENSION = 32
KEYS = ("k0", "k1", "k2")
#: vector stores a child process can reopen: the in-memory one saved to a folder, and real engines
#: (SQLite: see test_other_stores)
BACKENDS = ("memory", "faiss", "chroma", "qdrant", "pgvector")
#: the stores whose folder holds what ``save`` wrote (each write saves)
SAVED = ("memory", "faiss")


def vector(version: int) -> list[float]:
    return numpy.random.default_rng(version).standard_normal(DIMENSION).tolist()


def text_of(key: str, version: int) -> str:
    return f"{key}:{version}:" + "x" * SIZE


def open_store(backend: str, location: str) -> Any:
    if backend == "memory":
        from selectools.rag import InMemoryVectorStore

        if (Path(location) / "documents.json").exists():
            return InMemoryVectorStore.load(location)
        return InMemoryVectorStore(dimension=DIMENSION)
    if backend == "faiss":
        from selectools.rag.stores import FAISSVectorStore

        if (Path(location) / "documents.json").exists():
            return FAISSVectorStore.load(location)
        return FAISSVectorStore(dimension=DIMENSION)
    if backend == "chroma":
        from selectools.rag.stores import ChromaVectorStore

        return ChromaVectorStore(persist_directory=location, dimension=DIMENSION)
    if backend == "qdrant":
        from selectools.rag.stores import QdrantVectorStore

        return QdrantVectorStore(path=location, dimension=DIMENSION)
    if backend == "pgvector":
        from selectools.rag.stores import PgVectorStore

        dsn, table = location.split("|")
        return PgVectorStore(connection_string=dsn, table_name=table, dimensions=DIMENSION)
    raise ValueError(f"unknown vector store {backend}")


def write(store: Any, backend: str, location: str, key: str, version: int) -> None:
    from selectools.rag import Document

    metadata = {"key": key, "v": version, "pad": f"{key}:{version}:" + "y" * SIZE}
    store.add_documents([Document(text_of(key, version), metadata)], embeddings=[vector(version)])
    if backend in SAVED:
        store.save(location)


def close(store: Any) -> None:
    getattr(store, "close", lambda: None)()


def read_all(store: Any) -> dict[int, str]:
    """Every stored version -> its key; raises AssertionError on a torn or misplaced record."""
    found: dict[int, str] = {}
    for id_, doc in store.documents():
        key, version, pad = doc.text.split(":")
        meta = doc.metadata
        assert pad == "x" * SIZE, f"record {id_} has a torn text"
        assert meta == {"key": key, "v": int(version), "pad": f"{key}:{version}:" + "y" * SIZE}, (
            f"record {id_} has torn metadata: {str(meta)[:80]}"
        )
        found[int(version)] = key
    for version in found:
        (hit,) = store.search(vector(version), top_k=1)
        assert hit.document.text.split(":")[1] == str(version) and hit.score > 0.999, (
            f"the vector of version {version} finds {hit.document.text[:20]} ({hit.score:.3f})"
        )
    return found


def main() -> None:
    import time

    command, backend, location, first, last = sys.argv[1:6]
    pause = float(sys.argv[6]) if len(sys.argv) > 6 else 0.0
    if command != "write":
        raise SystemExit(f"unknown command {command}")
    store = open_store(backend, location)
    print("found", json.dumps(sorted(read_all(store))), flush=True)
    for version in range(int(first), int(last) + 1):
        write(store, backend, location, KEYS[version % len(KEYS)], version)
        print(version, flush=True)
        time.sleep(pause)
    close(store)


if __name__ == "__main__":
    main()
