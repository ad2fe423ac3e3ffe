"""Child process for the durability tests: write or read one memory store.

``python -m tests.memory._writer write KIND TARGET TAG COUNT`` writes
COUNT records tagged TAG (COUNT 0: forever), printing each finished count;
``... write-die KIND TARGET TAG COUNT replace|write N`` kills itself at the Nth
``os.replace`` (a file written, not yet renamed) or half-way through the Nth
``os.write``; ``... read KIND TARGET`` prints the stored record names as a JSON list.
KIND: entity, triples, knowledge-file, knowledge-sqlite, knowledge-redis,
knowledge-supabase (TARGET is a path, ``URL|PREFIX`` for Redis, ``URL|KEY`` for
the fake Supabase).
"""

from __future__ import annotations

import itertools
import json
import sys
from typing import Any


def _open(kind: str, target: str) -> Any:
    if kind == "triples":
        from selectools.knowledge_graph import SQLiteTripleStore

        return SQLiteTripleStore(db_path=target)
    if kind.startswith("knowledge-"):
        from selectools.knowledge import KnowledgeMemory

        backend = kind.split("-", 1)[1]
        if backend == "redis":
            url, prefix = target.split("|")
            return KnowledgeMemory(backend="redis", redis_url=url, redis_prefix=prefix)
        if backend == "supabase":
            url, key = target.split("|")
            return KnowledgeMemory(backend="supabase", supabase_url=url, supabase_key=key)
        return KnowledgeMemory(storage_dir=target, backend=backend)
    raise SystemExit(f"unknown kind {kind}")


def write(kind: str, target: str, tag: str, count: int) -> None:
    numbers = itertools.count() if count == 0 else range(count)
    if kind == "entity":
        from selectools.entity_memory import Entity, EntityMemory

        memory = EntityMemory(max_entities=100_000)
        for i in numbers:
            memory.update(
                [Entity(name=f"{tag}-{i}", entity_type="person", attributes={"i": str(i)})]
            )
            memory.save(target)
            print(i + 1, flush=True)
        return
    store = _open(kind, target)
    for i in numbers:
        if kind == "triples":
            from selectools.knowledge_graph import Triple

            store.add([Triple(subject=f"{tag}-{i}", relation="r", object="o")])
        else:
            store.remember(f"{tag}-{i}", category=tag, persistent=i % 2 == 0)
        print(i + 1, flush=True)


def read(kind: str, target: str) -> None:
    if kind == "entity":
        from selectools.entity_memory import EntityMemory

        names = [e.name for e in EntityMemory.load(target).get_all_entities()]
        print(json.dumps({"records": names}))
        return
    store = _open(kind, target)
    if kind == "triples":
        print(json.dumps({"records": [t.subject for t in store.all()]}))
        return
    facts = store.get_persistent_facts()
    print(
        json.dumps(
            {
                "records": [e.content for e in store.entries()],
                "facts": [f for items in facts.values() for f in items],
            }
        )
    )


def die_at(point: str, call: int) -> None:
    """SIGKILL this process at the ``call``-th ``os.replace`` or half-way through an ``os.write``."""
    import os
    import signal

    calls = {"n": 0}
    real_replace, real_write = os.replace, os.write

    def replace(src: Any, dst: Any) -> None:
        calls["n"] += 1
        if calls["n"] == call:
            os.kill(os.getpid(), signal.SIGKILL)  # the new file is written, not yet renamed
        real_replace(src, dst)

    def write(fd: int, data: bytes) -> int:
        calls["n"] += 1
        if calls["n"] == call:
            real_write(fd, data[: len(data) // 2])
            os.kill(os.getpid(), signal.SIGKILL)  # half a line on disk
        return real_write(fd, data)

    if point == "replace":
        os.replace = replace  # type: ignore[assignment]
    else:
        os.write = write  # type: ignore[assignment]


if __name__ == "__main__":
    if sys.argv[1] == "write-die":
        die_at(sys.argv[6], int(sys.argv[7]))
        write(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        read(sys.argv[2], sys.argv[3])
