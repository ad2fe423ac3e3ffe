"""``query_sqlite``: SQL against one SQLite database, read-only unless configured.

Not one of the five documented categories (opt in with :func:`make_database_tools`).
Read-only is enforced by SQLite itself, not by inspecting the SQL: the file is
opened with ``mode=ro`` and ``PRAGMA query_only``, and an authorizer refuses
``ATTACH`` (which could open another file) in every mode. Each call runs one
statement; a writable database runs it in a transaction that is committed only
if it succeeds. A progress handler stops queries that run past the time limit.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from ..tools import Tool, tool
from ._bind import bind
from ._errors import ReadOnlyError, ToolboxConfigError, ToolboxError

__all__ = ["SQLiteDatabase", "make_database_tools", "query_sqlite"]


@dataclass(frozen=True)
class SQLiteDatabase:
    """One SQLite file and how the tool may use it.

    ``writable`` allows INSERT/UPDATE/DDL; ``max_rows`` caps the rows shown;
    ``timeout`` (seconds) stops long queries.
    """

    path: str | os.PathLike[str]
    writable: bool = False
    max_rows: int = 200
    timeout: float = 5.0

    def connect(self) -> sqlite3.Connection:
        path = Path(self.path)
        if not self.writable and not path.is_file():
            raise ToolboxConfigError(f"SQLite database {str(path)!r} does not exist")
        if self.writable:
            conn = sqlite3.connect(path, timeout=self.timeout)
        else:
            conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
            conn.execute("PRAGMA query_only = ON")
        conn.set_authorizer(_refuse_attach)
        deadline = time.monotonic() + self.timeout
        conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
        return conn


def _refuse_attach(action: int, *_: object) -> int:
    if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH):
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def _render(cursor: sqlite3.Cursor, max_rows: int) -> str:
    if cursor.description is None:
        return f"OK: {cursor.rowcount} row(s) changed"
    header = [d[0] for d in cursor.description]
    rows = cursor.fetchmany(max_rows + 1)
    more = len(rows) > max_rows
    cells = [["" if v is None else str(v) for v in row] for row in rows[:max_rows]]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(header)]
    lines = [
        "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip(),
        "  ".join("-" * w for w in widths),
    ]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    if not cells:
        lines.append("(no rows)")
    if more:
        lines.append(f"(more rows not shown: the limit is {max_rows})")
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
    conn = _db.connect()
    try:
        with conn:  # commit on success, roll back on error
            cursor = conn.execute(sql)
            return _render(cursor, _db.max_rows)
    except sqlite3.DatabaseError as exc:
        text = str(exc)
        if "readonly" in text or "query_only" in text or "read-only" in text:
            raise ReadOnlyError(
                f"The database is read-only for this tool ({text}); only queries are allowed"
            ) from None
        if "interrupted" in text:
            raise ToolboxError(
                f"The query ran longer than {_db.timeout:g} seconds and was stopped"
            ) from None
        if "not authorized" in text:
            raise ToolboxError(
                "ATTACH/DETACH are not allowed: query the configured database only"
            ) from None
        raise ToolboxError(f"SQL error: {text}") from None
    finally:
        conn.close()


def make_database_tools(
    path: str | os.PathLike[str],
    *,
    writable: bool = False,
    max_rows: int = 200,
    timeout: float = 5.0,
) -> list[Tool]:
    """``[query_sqlite]`` bound to the database at ``path`` (read-only unless ``writable``)."""
    return [bind(query_sqlite, _db=SQLiteDatabase(path, writable, max_rows, timeout))]
