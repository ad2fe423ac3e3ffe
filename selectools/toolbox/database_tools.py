"""``query_sqlite``: SQL against one SQLite database, read-only unless configured.

Not one of the five documented categories (opt in with :func:`make_database_tools`).
Read-only is enforced by SQLite itself, not by inspecting the SQL: the file is
opened with ``mode=ro`` and ``PRAGMA query_only``. An authorizer refuses, in
every mode, what reaches beyond the one database or can break it: ``ATTACH``
(and ``VACUUM INTO``, which attaches its target), ``load_extension()``, and
setting a PRAGMA other than the few harmless ones (``writable_schema``,
``journal_mode``, ``synchronous``, ``schema_version`` … are refused even when
writable). The error says which of these was refused.

Each call runs one statement; a writable database runs it in a transaction that
is committed only if it succeeds. The time limit holds within a small margin:
a progress handler stops long-running queries between VM steps, a timer
interrupts the connection at the deadline, and ``SQLITE_LIMIT_LENGTH`` caps
every string or blob (``max_value_bytes``) so no single step (``zeroblob``,
``hex``, ``replace`` of a huge value) can run long. Cells are shown cut to
``max_cell_chars``.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..tools import Tool, tool
from ._bind import bind
from ._errors import ReadOnlyError, ToolboxConfigError, ToolboxError

__all__ = ["SQLiteDatabase", "make_database_tools", "query_sqlite"]

#: PRAGMAs that only report (their argument names a table or index): allowed in every mode
_QUERY_PRAGMAS = frozenset(
    {
        "table_info",
        "table_xinfo",
        "table_list",
        "index_list",
        "index_info",
        "index_xinfo",
        "foreign_key_list",
        "foreign_key_check",
        "integrity_check",
        "quick_check",
    }
)
#: PRAGMAs a writable database may set: they change data or this connection, never the file format
_SETTABLE_PRAGMAS = frozenset(
    {
        "foreign_keys",
        "defer_foreign_keys",
        "recursive_triggers",
        "user_version",
        "application_id",
        "cache_size",
        "automatic_index",
    }
)
_SQLITE_LIMIT_LENGTH = 0
_MARGIN = 0.25  # seconds past the timeout before a stuck step is abandoned


@dataclass(frozen=True)
class SQLiteDatabase:
    """One SQLite file and how the tool may use it.

    ``writable`` allows INSERT/UPDATE/DDL; ``max_rows`` caps the rows shown;
    ``timeout`` (seconds) stops long queries; ``max_value_bytes`` is the
    largest string or blob a query may make or read; ``max_cell_chars`` cuts
    long cells in the result.
    """

    path: str | os.PathLike[str]
    writable: bool = False
    max_rows: int = 200
    timeout: float = 5.0
    max_value_bytes: int = 10_000_000
    max_cell_chars: int = 1_000

    def connect(self) -> tuple[sqlite3.Connection, _Guard]:
        path = Path(self.path)
        if not self.writable and not path.is_file():
            raise ToolboxConfigError(f"SQLite database {str(path)!r} does not exist")
        if self.writable:
            conn = sqlite3.connect(path, timeout=self.timeout, check_same_thread=False)
        else:
            conn = sqlite3.connect(
                f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False
            )
            conn.execute("PRAGMA query_only = ON")
        if hasattr(conn, "setlimit"):  # Python 3.11+
            conn.setlimit(_SQLITE_LIMIT_LENGTH, self.max_value_bytes)
        guard = _Guard(self.writable)
        conn.set_authorizer(guard)
        for arity in (1, 2):  # shadows the built-in, so the refusal can say what it was
            conn.create_function("load_extension", arity, guard.load_extension)
        deadline = time.monotonic() + self.timeout
        conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 1_000)
        return conn, guard


class _Guard:
    """The authorizer: refuses what reaches beyond the database, and remembers what it refused."""

    def __init__(self, writable: bool) -> None:
        self.writable = writable
        self.refused: str | None = None

    def __call__(self, action: int, arg1: str | None, arg2: str | None, *_: object) -> int:
        reason = self._reason(action, (arg1 or "").lower(), arg2)
        if reason is None:
            return sqlite3.SQLITE_OK
        self.refused = reason
        return sqlite3.SQLITE_DENY

    def load_extension(self, *_: object) -> None:
        self.refused = "load_extension() is refused: this tool never loads SQLite extensions"
        raise sqlite3.OperationalError(self.refused)

    def _reason(self, action: int, name: str, value: str | None) -> str | None:
        if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH):
            return (
                "ATTACH/DETACH (and VACUUM INTO, which attaches its target) are refused: "
                "query the configured database only"
            )
        if action == sqlite3.SQLITE_FUNCTION and name == "load_extension":
            return "load_extension() is refused: this tool never loads SQLite extensions"
        if action == sqlite3.SQLITE_PRAGMA and value is not None and name not in _QUERY_PRAGMAS:
            if not self.writable:
                return (
                    f"PRAGMA {name} = {value} is refused: the database is read-only for this "
                    "tool (reading a PRAGMA is fine)"
                )
            if name not in _SETTABLE_PRAGMAS:
                allowed = ", ".join(sorted(_SETTABLE_PRAGMAS))
                return (
                    f"PRAGMA {name} = {value} is refused: it can change or corrupt the file "
                    f"itself; a writable database may set only: {allowed}"
                )
        return None


def _cell(value: object, limit: int) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes):
        return f"<blob: {len(value)} bytes>"
    text = str(value)
    if len(text) > limit:
        return text[:limit] + f"... [{len(text) - limit} more characters]"
    return text


def _render(cursor: sqlite3.Cursor, db: SQLiteDatabase) -> str:
    if cursor.description is None:
        return f"OK: {cursor.rowcount} row(s) changed"
    header = [d[0] for d in cursor.description]
    rows = cursor.fetchmany(db.max_rows + 1)
    more = len(rows) > db.max_rows
    cells = [[_cell(v, db.max_cell_chars) for v in row] for row in rows[: db.max_rows]]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(header)]
    lines = [
        "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip(),
        "  ".join("-" * w for w in widths),
    ]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    if not cells:
        lines.append("(no rows)")
    if more:
        lines.append(f"(more rows not shown: the limit is {db.max_rows})")
    return "\n".join(lines)


@tool
def query_sqlite(sql: str, *, _db: SQLiteDatabase | None = None) -> str:
    """Run one SQL statement on the configured SQLite database and return the rows as a table.

    Args:
        sql: A single SQL statement, e.g. "SELECT name FROM users LIMIT 10".
    """
    if _db is None:
        raise ToolboxConfigError(
            "query_sqlite has no database: build it with make_database_tools('app.db')"
        )
    conn, guard = _db.connect()
    timer = threading.Timer(_db.timeout, conn.interrupt)  # stops a step the handler cannot see
    timer.daemon = True
    outcome: list[tuple[bool, object]] = []
    settled = threading.Lock()
    abandoned = threading.Event()

    def work() -> None:
        try:
            cursor = conn.execute(sql)
            text = _render(cursor, _db)
            with settled:  # commit only if the caller is still waiting for this result
                (conn.rollback if abandoned.is_set() else conn.commit)()
                outcome.append((True, text))
        except BaseException as exc:  # handed to the caller below
            with contextlib.suppress(sqlite3.Error):
                conn.rollback()
            with settled:
                outcome.append((False, _explain(exc, guard, _db)))
        finally:
            timer.cancel()
            conn.close()

    timer.start()
    worker = threading.Thread(target=work, name="query_sqlite", daemon=True)
    worker.start()
    # A single step SQLite cannot interrupt (a huge printf) would hold the caller past
    # the deadline: it is abandoned instead; it ends on its own and is rolled back.
    worker.join(_db.timeout + _MARGIN)
    with settled:
        if not outcome:
            abandoned.set()
            raise _timed_out(_db)
    ok, value = outcome[0]
    if not ok:
        assert isinstance(value, BaseException)
        raise value
    return str(value)


def _timed_out(db: SQLiteDatabase) -> ToolboxError:
    return ToolboxError(f"The query ran longer than {db.timeout:g} seconds and was stopped")


def _explain(exc: BaseException, guard: _Guard, db: SQLiteDatabase) -> BaseException:
    """The typed error a failed statement becomes: it says what was refused or went wrong."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return exc
    text = str(exc)
    if guard.refused is not None:
        kind = ReadOnlyError if "read-only" in guard.refused else ToolboxError
        return kind(guard.refused)
    if "readonly" in text or "query_only" in text or "read-only" in text:
        return ReadOnlyError(
            f"The database is read-only for this tool ({text}); only queries are allowed"
        )
    if "interrupted" in text:
        return _timed_out(db)
    if "too big" in text:
        return ToolboxError(
            f"The query made or read a value larger than {db.max_value_bytes} bytes "
            "(the tool's max_value_bytes) and was stopped"
        )
    return ToolboxError(f"SQL error: {text}")


def make_database_tools(
    path: str | os.PathLike[str],
    *,
    writable: bool = False,
    max_rows: int = 200,
    timeout: float = 5.0,
    max_value_bytes: int = 10_000_000,
) -> list[Tool]:
    """``[query_sqlite]`` bound to the database at ``path`` (read-only unless ``writable``)."""
    db = SQLiteDatabase(path, writable, max_rows, timeout, max_value_bytes)
    return [bind(query_sqlite, _db=db)]
