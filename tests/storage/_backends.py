"""Every store backend by name, opened from a location string a child process can reuse.

A location is what the backend needs to find its data again: a folder or a
file for local backends, ``URL|PREFIX`` for Redis and ``DSN|TABLE`` for
PostgreSQL. The conformance suites and the child processes of
``tests/storage/_child.py`` open stores only through :func:`open_store`.
"""

from __future__ import annotations

from typing import Any

#: backends per store protocol (the conformance suites parametrise over these; vector stores:
#: tests/storage/_vectors.py)
BACKENDS: dict[str, tuple[str, ...]] = {
    "sessions": ("json", "sqlite", "redis"),
    "checkpoints": ("file", "sqlite", "postgres"),
    "knowledge": ("file", "sqlite", "redis"),
    "triples": ("sqlite",),
    "baselines": ("file",),
    "snapshots": ("file",),
    "audit": ("file",),
    "traces": ("jsonl", "sqlite"),
}


def open_store(protocol: str, backend: str, location: str) -> Any:
    if protocol == "sessions":
        from selectools.sessions import JsonFileSessionStore, RedisSessionStore, SQLiteSessionStore

        if backend == "json":
            return JsonFileSessionStore(location)
        if backend == "sqlite":
            return SQLiteSessionStore(location)
        url, prefix = location.split("|")
        return RedisSessionStore(url, prefix=prefix)
    if protocol == "checkpoints":
        from selectools.orchestration import (
            FileCheckpointStore,
            PostgresCheckpointStore,
            SQLiteCheckpointStore,
        )

        if backend == "file":
            return FileCheckpointStore(location)
        if backend == "sqlite":
            return SQLiteCheckpointStore(location)
        dsn, table = location.split("|")
        return PostgresCheckpointStore(dsn, table=table)
    if protocol == "knowledge":
        from selectools.knowledge import (
            FileKnowledgeStore,
            RedisKnowledgeStore,
            SQLiteKnowledgeStore,
        )

        if backend == "file":
            return FileKnowledgeStore(location)
        if backend == "sqlite":
            return SQLiteKnowledgeStore(location)
        url, prefix = location.split("|")
        return RedisKnowledgeStore(url, prefix=prefix)
    if protocol == "triples":
        from selectools.knowledge_graph import SQLiteTripleStore

        return SQLiteTripleStore(db_path=location)
    if protocol == "baselines":
        from selectools.evals import BaselineStore

        return BaselineStore(location)
    if protocol == "snapshots":
        from selectools.evals import SnapshotStore

        return SnapshotStore(location)
    if protocol == "audit":
        from selectools.audit import AuditLogger

        return AuditLogger(location, daily_rotation=False)
    if protocol == "traces":
        from selectools.observe import JSONLTraceStore, SQLiteTraceStore

        return JSONLTraceStore(location) if backend == "jsonl" else SQLiteTraceStore(location)
    raise ValueError(f"unknown store {protocol}/{backend}")
