"""Checkpoint stores: where a graph run's state is saved after every node.

Every backend stores the same JSON document (``GraphState`` plus the answers
an interrupted generator node has been given), so a run checkpointed by one
process can be resumed by another. Writes are all-or-nothing (through
:mod:`selectools._storage`): the file store replaces files atomically; the SQL
stores write in one transaction. Every checkpoint records its format version:
one written by a newer selectools is refused (:class:`CheckpointStoreError`),
never misread. A damaged checkpoint raises that error on ``load``, naming it;
``list`` skips it, lists it in ``store.unreadable`` and warns, so the other
checkpoints stay reachable.
"""

from __future__ import annotations

import copy
import json
import os
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from .._install import install_hint
from .._storage import atomic_write_text, file_lock, open_sqlite, remove_orphans, transaction
from ..exceptions import SelectoolsError
from .state import GraphState

__all__ = [
    "CheckpointMetadata",
    "CheckpointStore",
    "CheckpointStoreError",
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


#: the checkpoint format this version writes (and the newest it reads)
FORMAT_VERSION = 1
_FORMAT_KEY = "selectools_checkpoint_format"


class CheckpointStoreError(SelectoolsError, ValueError):
    """A stored checkpoint cannot be read (damaged, or from a newer selectools); it was left as is."""


def _new_id() -> str:
    return os.urandom(12).hex()


def _encode_state(state: dict[str, Any]) -> str:
    return json.dumps({**state, _FORMAT_KEY: FORMAT_VERSION}, default=str)


def _decode_state(raw: Any, where: str) -> GraphState:
    """The stored state (JSON text or a decoded dict) as a GraphState; a clear error if unreadable."""
    try:
        data = json.loads(raw) if isinstance(raw, (str, bytes)) else raw
        if not isinstance(data, dict):
            raise ValueError("the state is not a JSON object")
        found = data.pop(_FORMAT_KEY, None)
        if found is not None and (not isinstance(found, int) or found > FORMAT_VERSION):
            raise CheckpointStoreError(
                f"{where} was written in checkpoint format {found!r} by a newer selectools; this "
                f"version reads format {FORMAT_VERSION}. Upgrade selectools to resume it; it was "
                "left untouched."
            )
        return GraphState._from_checkpoint(data)
    except CheckpointStoreError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CheckpointStoreError(
            f"{where} cannot be read ({exc}); it was left untouched: delete it, or resume "
            "from another checkpoint"
        ) from None


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
    """One JSON file per checkpoint in ``directory``, written atomically.

    Writers hold the folder's lock file; opening the store removes the
    temporary files of writers killed mid-save.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._lock_path = self.directory / ".checkpoints.lock"
        with file_lock(self._lock_path):
            remove_orphans(self.directory, ".json")
        #: checkpoint files the last ``list`` skipped because they could not be read
        self.unreadable: list[str] = []

    def _path(self, checkpoint_id: str) -> Path:
        if not checkpoint_id or not all(c in "0123456789abcdef" for c in checkpoint_id):
            raise _missing(checkpoint_id)
        return self.directory / f"{checkpoint_id}.json"

    def save(self, graph_id: str, state: GraphState, step: int) -> str:
        checkpoint_id = _new_id()
        doc = _document(graph_id, checkpoint_id, state, step)
        doc[_FORMAT_KEY] = FORMAT_VERSION
        text = json.dumps(doc, default=str)
        with file_lock(self._lock_path):
            atomic_write_text(self._path(checkpoint_id), text)
        return checkpoint_id

    def _read(self, path: Path) -> tuple[dict[str, Any], CheckpointMetadata]:
        """The checkpoint document and its metadata; :class:`CheckpointStoreError` naming the file."""
        where = f"checkpoint file {path}"
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(doc, dict):
                raise ValueError("not a JSON object")
            found = doc.get(_FORMAT_KEY)
            if found is not None and (not isinstance(found, int) or found > FORMAT_VERSION):
                _decode_state({_FORMAT_KEY: found}, where)  # raises the newer-format error
            return doc, _meta(doc)
        except CheckpointStoreError:
            raise
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
            raise CheckpointStoreError(
                f"{where} cannot be read ({exc}); it was left untouched: delete it, or resume "
                "from another checkpoint"
            ) from None

    def load(self, checkpoint_id: str) -> tuple[GraphState, int]:
        path = self._path(checkpoint_id)
        if not path.exists():
            raise _missing(checkpoint_id)
        doc, meta = self._read(path)
        return _decode_state(doc.get("state"), f"checkpoint file {path}"), meta.step

    def list(self, graph_id: str) -> list[CheckpointMetadata]:
        """The readable checkpoints of ``graph_id``, oldest first (see ``unreadable``)."""
        metas, unreadable = [], []
        for path in self.directory.glob("*.json"):
            try:
                _doc, meta = self._read(path)
            except CheckpointStoreError as exc:
                unreadable.append(str(exc))
                continue
            except FileNotFoundError:  # deleted while we listed
                continue
            if meta.graph_id == graph_id:
                metas.append(meta)
        self.unreadable = unreadable
        for problem in unreadable:
            warnings.warn(f"skipped: {problem}", RuntimeWarning, stacklevel=2)
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
        self.db_path = str(db_path)
        self._lock = threading.Lock()
        self._conn = open_sqlite(
            self.db_path,
            "CREATE TABLE IF NOT EXISTS graph_checkpoints (checkpoint_id TEXT PRIMARY KEY, "
            "graph_id TEXT NOT NULL, step INTEGER NOT NULL, node_name TEXT NOT NULL, "
            "interrupted INTEGER NOT NULL, created_at REAL NOT NULL, state TEXT NOT NULL);"
            "CREATE INDEX IF NOT EXISTS graph_checkpoints_graph ON graph_checkpoints(graph_id)",
            what="checkpoint store",
            error=CheckpointStoreError,
            durable=False,  # saved after every node: no fsync per commit, still kill-safe
        )

    def save(self, graph_id: str, state: GraphState, step: int) -> str:
        checkpoint_id = _new_id()
        doc = _document(graph_id, checkpoint_id, state, step)
        with self._lock, transaction(self._conn):
            self._conn.execute(
                f"INSERT INTO graph_checkpoints ({_SQL_COLUMNS}, state) VALUES (?,?,?,?,?,?,?)",
                (
                    checkpoint_id,
                    graph_id,
                    step,
                    doc["node_name"],
                    int(doc["interrupted"]),
                    doc["created_at"],
                    _encode_state(doc["state"]),
                ),
            )
        return checkpoint_id

    def load(self, checkpoint_id: str) -> tuple[GraphState, int]:
        with self._lock:
            row = self._conn.execute(
                "SELECT state, step FROM graph_checkpoints WHERE checkpoint_id = ?",
                (checkpoint_id,),
            ).fetchone()
        if row is None:
            raise _missing(checkpoint_id)
        where = f"checkpoint {checkpoint_id!r} in {self.db_path}"
        return _decode_state(row[0], where), int(row[1])

    def list(self, graph_id: str) -> list[CheckpointMetadata]:
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {_SQL_COLUMNS} FROM graph_checkpoints WHERE graph_id = ? "
                "ORDER BY created_at, step",
                (graph_id,),
            ).fetchall()
        return [CheckpointMetadata(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in rows]

    def delete(self, checkpoint_id: str) -> bool:
        with self._lock, transaction(self._conn):
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
                f"PostgresCheckpointStore needs psycopg: {install_hint('postgres')}"
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
                    _encode_state(doc["state"]),
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
        where = f"checkpoint {checkpoint_id!r} in PostgreSQL table {self.table}"
        return _decode_state(row[0], where), int(row[1])

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
