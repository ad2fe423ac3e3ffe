"""What the three memory kinds (entity, knowledge graph, knowledge) share.

Errors with one base (:class:`MemoryStoreError`), the model call and JSON
reading of the extractors, and the durability helpers every file-backed store
uses: atomic replacement (temp file + fsync + ``os.replace``, so a killed
process leaves the old file or the new one, never half of one), an
inter-process lock file (``fcntl.flock``) around read-modify-write cycles so two
processes writing one store do not lose each other's records, and the format
version written into every store, so a file from a newer selectools is refused
with a clear message instead of being misread or overwritten.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .exceptions import SelectoolsError

if TYPE_CHECKING:
    import sqlite3

    from .providers.base import LLMRequest

__all__ = [
    "FORMAT_VERSION",
    "ExtractionError",
    "MemoryStoreError",
    "StoreVersionError",
    "UnknownBackendError",
    "atomic_write_text",
    "check_version",
    "file_lock",
    "parse_json_array",
    "run_extraction",
]

#: The on-disk format every memory store writes (bumped on incompatible changes).
FORMAT_VERSION = 1


class MemoryStoreError(SelectoolsError):
    """A memory store (entities, triples, knowledge) could not be read or written."""


class UnknownBackendError(MemoryStoreError, ValueError):
    """A backend name that selectools does not provide."""

    def __init__(self, feature: str, name: object, known: tuple[str, ...]) -> None:
        self.name = name
        self.known = known
        super().__init__(
            f"{feature}: unknown backend {name!r}; choose one of {', '.join(map(repr, known))} "
            "or pass a store object"
        )


class StoreVersionError(MemoryStoreError):
    """The store was written by a newer selectools (format version above ours)."""

    def __init__(self, where: str, found: object) -> None:
        self.where = where
        self.found = found
        super().__init__(
            f"{where} was written in store format {found!r} by a newer selectools; this version "
            f"reads format {FORMAT_VERSION} and earlier. Upgrade selectools "
            "(pip install -U selectools) to open it; the store was left untouched."
        )


class ExtractionError(MemoryStoreError, ValueError):
    """The extraction model's reply was not the JSON array the prompt asked for."""

    def __init__(self, what: str, reply: str, problem: str) -> None:
        self.reply = reply
        self.problem = problem
        shown = reply if len(reply) <= 200 else reply[:199] + "…"
        super().__init__(f"{what} extraction: {problem}; the model replied {shown!r}")


def check_version(found: object, where: str) -> None:
    """Refuse a store whose format is newer than :data:`FORMAT_VERSION` (or not a version)."""
    if found is None:
        return
    if isinstance(found, bool) or not isinstance(found, int) or found < 1:
        raise MemoryStoreError(f"{where} has an unreadable format version {found!r}")
    if found > FORMAT_VERSION:
        raise StoreVersionError(where, found)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Replace ``path`` with ``text`` all at once (temp file in the same folder, fsync, rename)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(target.parent)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def file_lock(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold an exclusive inter-process lock on ``path`` (created if missing) for the block."""
    import fcntl

    lock = Path(path)
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_json_array(what: str, text: str) -> list[dict[str, Any]]:
    """The JSON array of objects in a model reply (a fenced block or the first ``[...]``)."""
    body = text.strip()
    fenced = _FENCE.search(body)
    if fenced:
        body = fenced.group(1).strip()
    elif not body.startswith("["):
        start, end = body.find("["), body.rfind("]")
        if start != -1 and end > start:
            body = body[start : end + 1]
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ExtractionError(what, text, f"the reply is not JSON ({exc.msg})") from None
    if isinstance(data, dict):
        # some models wrap the array: {"entities": [...]}
        lists = [v for v in data.values() if isinstance(v, list)]
        if len(lists) == 1:
            data = lists[0]
    if not isinstance(data, list):
        raise ExtractionError(what, text, f"expected a JSON array, got {type(data).__name__}")
    bad = [item for item in data if not isinstance(item, dict)]
    if bad:
        raise ExtractionError(what, text, f"expected objects in the array, got {bad[0]!r}")
    return data


def run_extraction(provider: Any, request: LLMRequest) -> str:
    """Call ``provider`` once (blocking) and return the reply text."""
    from .providers._adapt import complete

    message, _usage = complete(provider, request)
    return message.text


def open_sqlite(path: str, schema: str, what: str) -> sqlite3.Connection:
    """A SQLite connection to a store of ``schema``, created (or checked) safely across processes.

    Set-up runs in one ``BEGIN IMMEDIATE`` transaction (the version read and the
    tables created under the same write lock, so two processes opening a new
    file at once do not deadlock); later writes also begin IMMEDIATE. The
    journal is WAL and waits up to 30 s for another writer.
    """
    import sqlite3
    import time

    if path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + 30.0
    while True:
        conn = sqlite3.connect(path, timeout=30.0, check_same_thread=False, isolation_level=None)
        try:
            conn.execute("PRAGMA busy_timeout=30000")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("BEGIN IMMEDIATE")
            try:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                check_version(version or None, f"{what} {path}")
                for statement in schema.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                if not version:
                    conn.execute(f"PRAGMA user_version={FORMAT_VERSION}")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except sqlite3.OperationalError as exc:
            conn.close()
            if "locked" in str(exc) and time.monotonic() < deadline:
                time.sleep(0.05)
                continue
            raise MemoryStoreError(f"{path} cannot be opened as a {what}: {exc}") from None
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise MemoryStoreError(f"{path} is not a {what}: {exc}") from None
        except BaseException:
            conn.close()
            raise
        conn.isolation_level = "IMMEDIATE"
        return conn
