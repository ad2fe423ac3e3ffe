"""Checkpoint stores: where a graph run's state is saved after every node.

Every backend stores the same JSON document (``GraphState`` plus the answers
an interrupted generator node has been given), so a run checkpointed by one
process can be resumed by another. Writes are all-or-nothing: the file store
writes a temporary file, fsyncs and renames it over the target; the SQL stores
write in one transaction.
"""

from __future__ import annotations

import copy
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from .state import GraphState

__all__ = [
    "CheckpointMetadata",
    "CheckpointStore",
    "FileCheckpointStore",
    "InMemoryCheckpointStore",
    "PostgresCheckpointStore",
    "SQLiteCheckpointStore",
]


@dataclass(frozen=True, slots=True)
class CheckpointMetadata:
    """What a checkpoint store lists about one saved checkpoint."""

    checkpoint_id: str
    graph_id: str
    step: int
    node_name: str
    interrupted: bool
    created_at: float


@runtime_checkable
class CheckpointStore(Protocol):
    """Where a graph saves its state between nodes, so a paused run can be resumed."""

    def save(self, graph_id: str, state: GraphState, step: int) -> str: ...

    def load(self, checkpoint_id: str) -> tuple[GraphState, int]: ...

    def list(self, graph_id: str) -> list[CheckpointMetadata]: ...

    def delete(self, checkpoint_id: str) -> bool: ...


def _new_id() -> str:
    return os.urandom(12).hex()


def _document(graph_id: str, checkpoint_id: str, state: GraphState, step: int) -> dict[str, Any]:
    return {
        "checkpoint_id": checkpoint_id,
        "graph_id": graph_id,
        "step": step,
        "node_name": state.current_node,
        "interrupted": state._pending_node is not None,
        "created_at": time.time(),
        "state": state._checkpoint_dict(),
    }


def _meta(doc: dict[str, Any]) -> CheckpointMetadata:
    return CheckpointMetadata(
        doc["checkpoint_id"],
        doc["graph_id"],
        int(doc["step"]),
        doc["node_name"],
        bool(doc["interrupted"]),
        float(doc["created_at"]),
    )


def _missing(checkpoint_id: str) -> ValueError:
    return ValueError(
        f"No checkpoint {checkpoint_id!r} in this store: pass the interrupt_id a run returned, "
        "and the same checkpoint_store it ran with."
    )


class InMemoryCheckpointStore:
    """Checkpoints in a dict (deep copies); lost when the process exits."""

    def __init__(self) -> None:
        self._docs: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def save(self, graph_id: str, state: GraphState, step: int) -> str:
        checkpoint_id = _new_id()
        doc = copy.deepcopy(_document(graph_id, checkpoint_id, state, step))
        with self._lock:
            self._docs[checkpoint_id] = doc
        return checkpoint_id

    def load(self, checkpoint_id: str) -> tuple[GraphState, int]:
        doc = self._docs.get(checkpoint_id)
        if doc is None:
            raise _missing(checkpoint_id)
        return GraphState._from_checkpoint(copy.deepcopy(doc["state"])), int(doc["step"])

    def list(self, graph_id: str) -> list[CheckpointMetadata]:
        with self._lock:
            docs = [d for d in self._docs.values() if d["graph_id"] == graph_id]
        return sorted((_meta(d) for d in docs), key=lambda m: (m.created_at, m.step))

    def delete(self, checkpoint_id: str) -> bool:
        with self._lock:
            return self._docs.pop(checkpoint_id, None) is not None


class FileCheckpointStore:
    """One JSON file per checkpoint in ``directory``, written atomically."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def _path(self, checkpoint_id: str) -> Path:
        if not checkpoint_id or not all(c in "0123456789abcdef" for c in checkpoint_id):
            raise _missing(checkpoint_id)
        return self.directory / f"{checkpoint_id}.json"

    def save(self, graph_id: str, state: GraphState, step: int) -> str:
        checkpoint_id = _new_id()
        text = json.dumps(_document(graph_id, checkpoint_id, state, step), default=str)
        target = self._path(checkpoint_id)
        tmp = target.with_name(f".{checkpoint_id}.tmp")
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
        return checkpoint_id

    def _read(self, path: Path) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data

    def load(self, checkpoint_id: str) -> tuple[GraphState, int]:
        path = self._path(checkpoint_id)
        if not path.exists():
            raise _missing(checkpoint_id)
        doc = self._read(path)
        return GraphState._from_checkpoint(doc["state"]), int(doc["step"])

    def list(self, graph_id: str) -> list[CheckpointMetadata]:
        metas = []
        for path in self.directory.glob("*.json"):
            doc = self._read(path)
            if doc.get("graph_id") == graph_id:
                metas.append(_meta(doc))
        return sorted(metas, key=lambda m: (m.created_at, m.step))

    def delete(self, checkpoint_id: str) -> bool:
        try:
            self._path(checkpoint_id).unlink()
        except (FileNotFoundError, ValueError):
            return False
        return True


_SQL_COLUMNS = "checkpoint_id, graph_id, step, node_name, interrupted, created_at"


class SQLiteCheckpointStore:
    """Checkpoints in one SQLite table (WAL mode; each save is one transaction)."""

    def __init__(self, db_path: str | os.PathLike[str]) -> None:
        import sqlite3

        self.db_path = str(db_path)
        self._conn = sqlite3.connect(self.db_path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL: a killed process never loses or tears a committed checkpoint
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS graph_checkpoints (checkpoint_id TEXT PRIMARY KEY, "
                "graph_id TEXT NOT NULL, step INTEGER NOT NULL, node_name TEXT NOT NULL, "
                "interrupted INTEGER NOT NULL, created_at REAL NOT NULL, state TEXT NOT NULL)"
            )
            self._conn.execute(
                "CREATE INDEX IF NOT EXISTS graph_checkpoints_graph ON graph_checkpoints(graph_id)"
            )

    def save(self, graph_id: str, state: GraphState, step: int) -> str:
        checkpoint_id = _new_id()
        doc = _document(graph_id, checkpoint_id, state, step)
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(
                    f"INSERT INTO graph_checkpoints ({_SQL_COLUMNS}, state) VALUES (?,?,?,?,?,?,?)",
                    (
                        checkpoint_id,
                        graph_id,
                        step,
                        doc["node_name"],
                        int(doc["interrupted"]),
                        doc["created_at"],
                        json.dumps(doc["state"], default=str),
                    ),
                )
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
        return checkpoint_id

    def load(self, checkpoint_id: str) -> tuple[GraphState, int]:
        with self._lock:
            row = self._conn.execute(
                "SELECT state, step FROM graph_checkpoints WHERE checkpoint_id = ?",
                (checkpoint_id,),
            ).fetchone()
        if row is None:
            raise _missing(checkpoint_id)
        return GraphState._from_checkpoint(json.loads(row[0])), int(row[1])

    def list(self, graph_id: str) -> list[CheckpointMetadata]:
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {_SQL_COLUMNS} FROM graph_checkpoints WHERE graph_id = ? "
                "ORDER BY created_at, step",
                (graph_id,),
            ).fetchall()
        return [CheckpointMetadata(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in rows]

    def delete(self, checkpoint_id: str) -> bool:
        with self._lock:
            cursor = self._conn.execute(
                "DELETE FROM graph_checkpoints WHERE checkpoint_id = ?", (checkpoint_id,)
            )
        return cursor.rowcount > 0

    def close(self) -> None:
        self._conn.close()


class PostgresCheckpointStore:
    """Checkpoints in a PostgreSQL table (``psycopg``; the state is JSONB, each save one transaction)."""

    def __init__(self, dsn: str, table: str = "selectools_graph_checkpoints") -> None:
        try:
            import psycopg
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                'PostgresCheckpointStore needs psycopg: pip install "selectools[postgres]"'
            ) from exc
        if not table.replace("_", "").isalnum():
            raise ValueError(f"table must be a plain identifier, got {table!r}")
        self.dsn = dsn
        self.table = table
        self._psycopg = psycopg
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {table} (checkpoint_id TEXT PRIMARY KEY, "
                "graph_id TEXT NOT NULL, step INTEGER NOT NULL, node_name TEXT NOT NULL, "
                "interrupted BOOLEAN NOT NULL, created_at DOUBLE PRECISION NOT NULL, "
                "state JSONB NOT NULL)"
            )
            conn.execute(f"CREATE INDEX IF NOT EXISTS {table}_graph ON {table}(graph_id)")

    def save(self, graph_id: str, state: GraphState, step: int) -> str:
        checkpoint_id = _new_id()
        doc = _document(graph_id, checkpoint_id, state, step)
        with self._psycopg.connect(self.dsn) as conn:  # commits on success, rolls back on error
            conn.execute(
                f"INSERT INTO {self.table} ({_SQL_COLUMNS}, state) VALUES "
                "(%s,%s,%s,%s,%s,%s,%s::jsonb)",
                (
                    checkpoint_id,
                    graph_id,
                    step,
                    doc["node_name"],
                    doc["interrupted"],
                    doc["created_at"],
                    json.dumps(doc["state"], default=str),
                ),
            )
        return checkpoint_id

    def load(self, checkpoint_id: str) -> tuple[GraphState, int]:
        with self._psycopg.connect(self.dsn) as conn:
            row = conn.execute(
                f"SELECT state, step FROM {self.table} WHERE checkpoint_id = %s", (checkpoint_id,)
            ).fetchone()
        if row is None:
            raise _missing(checkpoint_id)
        state = row[0] if isinstance(row[0], dict) else json.loads(row[0])
        return GraphState._from_checkpoint(state), int(row[1])

    def list(self, graph_id: str) -> list[CheckpointMetadata]:
        with self._psycopg.connect(self.dsn) as conn:
            rows = conn.execute(
                f"SELECT {_SQL_COLUMNS} FROM {self.table} WHERE graph_id = %s "
                "ORDER BY created_at, step",
                (graph_id,),
            ).fetchall()
        return [CheckpointMetadata(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in rows]

    def delete(self, checkpoint_id: str) -> bool:
        with self._psycopg.connect(self.dsn) as conn:
            cursor = conn.execute(
                f"DELETE FROM {self.table} WHERE checkpoint_id = %s", (checkpoint_id,)
            )
            return cursor.rowcount > 0
