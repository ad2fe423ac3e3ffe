"""How every selectools store writes: one place for atomic files, file locks, SQLite and Redis.

Sessions, checkpoints, knowledge, triples, entity memory, the audit log, eval
baselines, traces and vector stores all persist through these helpers, so a
durability fix lands once:

- :func:`atomic_write_bytes` / :func:`atomic_write_text`: a temporary file in
  the same folder, fsynced, renamed over the target, the folder fsynced. A
  process killed at any moment leaves the old file or the new one.
- :func:`file_lock`: an exclusive lock across processes and threads, on POSIX
  and Windows, that gives up after ``timeout`` seconds with :class:`LockTimeout`
  (the kept ``filelock`` package; a lock dies with its process).
- :func:`append_record`: one whole line appended under that lock, after ending
  a line a killed writer left torn.
- :func:`open_sqlite`: the one way a store opens SQLite (WAL journal, a 30 s
  busy timeout, autocommit with explicit ``BEGIN IMMEDIATE`` transactions via
  :func:`transaction`), creating its schema and checking its format version
  under one write lock. One knob: ``durable=True`` (``synchronous=FULL``, a
  commit survives power loss) for what a user wrote; ``durable=False``
  (``synchronous=NORMAL``, no fsync per commit) for records written at every
  step (checkpoints, traces). Both keep every commit through a killed process.
- :func:`redis_client`: redis-py, imported when a Redis store is built.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filelock import FileLock, Timeout

from ._install import install_hint
from .exceptions import SelectoolsError

if TYPE_CHECKING:
    import sqlite3

__all__ = [
    "LockTimeout",
    "NewerFormatError",
    "append_record",
    "atomic_write_bytes",
    "atomic_write_text",
    "file_lock",
    "fsync_directory",
    "glob_escape",
    "holding",
    "new_file_lock",
    "open_sqlite",
    "redis_client",
    "remove_orphans",
    "transaction",
    "try_acquire",
]

#: how long a store waits for another process's lock or SQLite write by default
DEFAULT_TIMEOUT = 30.0


class LockTimeout(SelectoolsError, TimeoutError):
    """Another process (or thread) held a store's lock for longer than the timeout."""


class NewerFormatError(SelectoolsError, ValueError):
    """A record was written in a newer format than this selectools reads; it was left as is."""

    def __init__(self, where: str, found: object, supported: int) -> None:
        self.where = where
        self.found = found
        super().__init__(
            f"{where} was written in format {found!r} by a newer selectools; this version reads "
            f"format {supported} and earlier. Upgrade selectools (a newer selectools-jupyter) to "
            "read it; it was left untouched."
        )


# -- files -------------------------------------------------------------------
def fsync_directory(directory: str | os.PathLike[str]) -> None:
    """Make a rename in ``directory`` durable (POSIX); a no-op where folders cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some filesystems refuse
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Replace ``path`` with ``data`` all at once; returns the path written."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_directory(target.parent)
    return target


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Replace ``path`` with ``text`` (UTF-8) all at once; returns the path written."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def remove_orphans(directory: str | os.PathLike[str], suffix: str) -> None:
    """Delete temporary files of writers killed mid-write (``.<name><suffix>.*.tmp``).

    Call it only while holding the folder's lock, so no live writer's file goes.
    """
    for orphan in Path(directory).glob(f".*{suffix}.*.tmp"):
        orphan.unlink(missing_ok=True)


def new_file_lock(path: str | os.PathLike[str], timeout: float = DEFAULT_TIMEOUT) -> Any:
    """A ``filelock.FileLock`` on ``path`` that may be released by another thread."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return FileLock(os.fspath(path), timeout=timeout, thread_local=False)


def try_acquire(lock: Any, wait: float) -> bool:
    """Acquire a :func:`new_file_lock` within ``wait`` seconds; False when it stayed held."""
    try:
        lock.acquire(timeout=wait)
    except Timeout:
        return False
    return True


def file_lock(path: str | os.PathLike[str], timeout: float = DEFAULT_TIMEOUT) -> Any:
    """Hold an exclusive lock on ``path`` (created if missing) for a ``with`` block.

    Raises :class:`LockTimeout` after ``timeout`` seconds (0: try once).
    """
    return holding(new_file_lock(path, timeout))


@contextlib.contextmanager
def holding(lock: Any) -> Iterator[None]:
    """Hold a :func:`new_file_lock` (kept by a writer that locks often) for the block."""
    try:
        lock.acquire()
    except Timeout:
        raise LockTimeout(
            f"could not lock {lock.lock_file} within {lock.timeout:g}s: another process holds it"
        ) from None
    try:
        yield
    finally:
        lock.release()


def append_record(fd: int, data: bytes, *, fsync: bool = False) -> None:
    """Append ``data`` (one whole line) to the file open on ``fd`` (``O_APPEND``).

    The caller holds the file's lock. A last line torn by a killed writer is
    ended first, so this record starts on a line of its own.
    """
    size = os.fstat(fd).st_size
    if size:
        os.lseek(fd, size - 1, os.SEEK_SET)  # O_APPEND still writes at the end
        if os.read(fd, 1) != b"\n":
            data = b"\n" + data
    written = os.write(fd, data)
    while written < len(data):  # a regular file takes it all; be safe anyway
        written += os.write(fd, data[written:])
    if fsync:
        os.fsync(fd)


# -- SQLite ------------------------------------------------------------------
def _connect(path: str, durable: bool) -> sqlite3.Connection:
    import sqlite3

    conn = sqlite3.connect(
        path, timeout=DEFAULT_TIMEOUT, check_same_thread=False, isolation_level=None
    )
    conn.execute(f"PRAGMA busy_timeout={int(DEFAULT_TIMEOUT * 1000)}")
    if path != ":memory:":
        conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
    return conn


def open_sqlite(
    path: str | os.PathLike[str],
    schema: str = "",
    *,
    what: str = "store",
    format_version: int = 1,
    error: type[Exception] = SelectoolsError,
    durable: bool = True,
) -> sqlite3.Connection:
    """A connection to the SQLite store at ``path``, its ``schema`` created, its format checked.

    Set-up runs in one ``BEGIN IMMEDIATE`` transaction (two processes creating
    one file at once wait for each other). ``PRAGMA user_version`` holds the
    format: a newer one raises :class:`NewerFormatError`, a file that is not a
    database raises ``error`` naming it. The connection is in autocommit mode
    and may be shared by threads (guard it with a lock); write with
    :func:`transaction`.
    """
    import sqlite3

    name = os.fspath(path)
    if name != ":memory:":
        Path(name).parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + DEFAULT_TIMEOUT
    while True:
        conn: sqlite3.Connection | None = None
        try:
            conn = _connect(name, durable)
            with transaction(conn):
                found = conn.execute("PRAGMA user_version").fetchone()[0]
                if found > format_version:
                    raise NewerFormatError(f"{what} {name}", found, format_version)
                for statement in schema.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                if not found:
                    conn.execute(f"PRAGMA user_version={int(format_version)}")
            return conn
        except sqlite3.OperationalError as exc:
            if conn is not None:
                conn.close()
            if "locked" in str(exc) and time.monotonic() < deadline:
                time.sleep(0.05)
                continue
            raise error(f"{name} cannot be opened as a {what}: {exc}") from None
        except sqlite3.DatabaseError as exc:
            if conn is not None:
                conn.close()
            raise error(f"{name} is not a {what} (not a SQLite database: {exc})") from None
        except BaseException:
            if conn is not None:
                conn.close()
            raise


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``; rolled back on error)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


# -- Redis -------------------------------------------------------------------
def redis_client(url: str, feature: str, extra: str = "redis") -> Any:
    """A ``redis.Redis`` for ``url``; redis-py is imported here, not with selectools."""
    try:
        import redis
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise ImportError(f"{feature} needs the redis package: {install_hint(extra)}") from None
    return redis.Redis.from_url(url)


def glob_escape(text: str) -> str:
    """Escape Redis MATCH wildcards so a key prefix matches literally."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)
