"""run_python (a limited child process) and query_sqlite (read-only unless configured)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from selectools.exceptions import ToolExecutionError
from selectools.toolbox import ReadOnlyError, ToolboxConfigError, ToolboxError
from selectools.toolbox.code_tools import CodeTimeoutError, make_code_tools, run_python
from selectools.toolbox.database_tools import make_database_tools, query_sqlite


def _error(tool, args: dict) -> Exception:
    with pytest.raises(ToolExecutionError) as info:
        tool.execute(args)
    return info.value.error


# --------------------------------------------------------------------------- run_python


def test_run_python_returns_exit_code_and_output() -> None:
    out = run_python.execute({"code": "import sys\nprint(6 * 7)\nprint('warn', file=sys.stderr)"})
    assert out == "Exit code: 0\n--- stdout ---\n42\n--- stderr ---\nwarn"
    failed = run_python.execute({"code": "raise SystemExit(3)"})
    assert failed == "Exit code: 3"


def test_run_python_does_not_inherit_secrets(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    monkeypatch.setenv("PYTHONPATH", "/somewhere")
    out = run_python.execute({"code": "import os, json; print(json.dumps(sorted(os.environ)))"})
    assert "sk-secret-value" not in out and "OPENAI_API_KEY" not in out
    assert '["HOME", "LANG", "PATH"]' in out


def test_run_python_is_stopped_at_the_timeout() -> None:
    tool = make_code_tools(timeout=1)[0]
    error = _error(tool, {"code": "import time\nwhile True: time.sleep(0.05)"})
    assert isinstance(error, CodeTimeoutError) and "longer than 1 seconds" in str(error)


def test_run_python_kills_child_processes_too(tmp_path: Path) -> None:
    marker = tmp_path / "survivor"
    grandchild = f"import time; time.sleep(2); open({str(marker)!r}, 'w').close()"
    code = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', {grandchild!r}])\n"
        "time.sleep(30)"
    )
    with pytest.raises(ToolExecutionError):
        make_code_tools(timeout=1)[0].execute({"code": code})
    import time

    time.sleep(2.5)
    assert not marker.exists()


def test_run_python_memory_is_limited() -> None:
    tool = make_code_tools(memory_mb=128)[0]
    out = tool.execute({"code": "x = bytearray(512 * 1024 * 1024)\nprint('allocated')"})
    assert "MemoryError" in out and "allocated" not in out
    assert out.startswith("Exit code: 1")


def test_run_python_works_in_a_throwaway_directory() -> None:
    out = run_python.execute(
        {"code": "import os; open('x.txt', 'w').write('hi'); print(os.getcwd())"}
    )
    workdir = out.split("--- stdout ---\n")[1].strip()
    assert "selectools-run-" in workdir and not Path(workdir).exists()


# --------------------------------------------------------------------------- query_sqlite


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as conn:
        conn.execute("create table users (id integer primary key, name text, team text)")
        conn.executemany(
            "insert into users (name, team) values (?, ?)",
            [("Ada", "core"), ("Grace", "tools"), ("Linus", None)],
        )
    conn.close()
    (tmp_path / "other.db").write_bytes(path.read_bytes())
    return path


def test_query_returns_a_table(db: Path) -> None:
    tool = make_database_tools(db)[0]
    out = tool.execute({"sql": "select name, team from users order by id"})
    assert out == "name   team\n-----  -----\nAda    core\nGrace  tools\nLinus"
    assert tool.execute({"sql": "select * from users where id > 99"}).endswith("(no rows)")


def test_rows_are_capped(db: Path) -> None:
    tool = make_database_tools(db, max_rows=2)[0]
    assert tool.execute({"sql": "select name from users"}).endswith(
        "(more rows not shown: the limit is 2)"
    )


@pytest.mark.parametrize(
    "sql",
    [
        "delete from users",
        "insert into users (name) values ('Eve')",
        "update users set name = 'Eve'",
        "drop table users",
        "create table t (x)",
        "pragma query_only = off",
    ],
)
def test_read_only_by_default(db: Path, sql: str) -> None:
    tool = make_database_tools(db)[0]
    error = _error(tool, {"sql": sql})
    assert isinstance(error, ReadOnlyError)
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from users").fetchone() == (3,)
    conn.close()


def test_attach_is_refused_in_every_mode(db: Path) -> None:
    for writable in (False, True):
        tool = make_database_tools(db, writable=writable)[0]
        error = _error(tool, {"sql": f"attach database '{db.parent / 'other.db'}' as o"})
        assert isinstance(error, ToolboxError) and "ATTACH" in str(error)


def test_writable_database_commits_only_successful_statements(db: Path) -> None:
    tool = make_database_tools(db, writable=True)[0]
    assert (
        tool.execute({"sql": "insert into users (name) values ('Eve')"}) == "OK: 1 row(s) changed"
    )
    _error(tool, {"sql": "insert into users (id, name) values (1, 'dup')"})
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from users").fetchone() == (4,)
    conn.close()


def test_one_statement_per_call_and_slow_queries_stop(db: Path) -> None:
    tool = make_database_tools(db, timeout=0.2)[0]
    error = _error(tool, {"sql": "select 1; delete from users"})
    assert "one statement" in str(error)
    slow = "with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c"
    assert "longer than 0.2 seconds" in str(_error(tool, {"sql": slow}))


def test_unconfigured_tool_says_how_to_configure() -> None:
    error = _error(query_sqlite, {"sql": "select 1"})
    assert isinstance(error, ToolboxConfigError) and "make_database_tools" in str(error)


@pytest.mark.parametrize("writable", [False, True])
def test_load_extension_is_refused_with_its_own_message(db: Path, writable: bool) -> None:
    tool = make_database_tools(db, writable=writable)[0]
    for sql in ("select load_extension('/tmp/evil.so')", "select load_extension('x', 'entry')"):
        error = _error(tool, {"sql": sql})
        assert "load_extension() is refused" in str(error) and "ATTACH" not in str(error)


@pytest.mark.parametrize(
    "pragma",
    [
        "writable_schema = ON",
        "main.writable_schema = 1",
        "journal_mode = OFF",
        "synchronous = OFF",
        "schema_version = 99",
        "trusted_schema = ON",
        "ignore_check_constraints = ON",
    ],
)
def test_writable_mode_refuses_schema_corrupting_pragmas(db: Path, pragma: str) -> None:
    tool = make_database_tools(db, writable=True)[0]
    error = _error(tool, {"sql": f"PRAGMA {pragma}"})
    name = pragma.split("=")[0].strip().split(".")[-1]
    assert f"PRAGMA {name} = " in str(error) and "is refused" in str(error)
    # The database still works and its schema is intact.
    assert tool.execute({"sql": "insert into users (name) values ('Eve')"}) == (
        "OK: 1 row(s) changed"
    )
    assert "integrity_check" in tool.execute({"sql": "PRAGMA integrity_check"})


def test_harmless_pragmas_still_work(db: Path) -> None:
    writable = make_database_tools(db, writable=True)[0]
    assert writable.execute({"sql": "PRAGMA user_version = 7"}).startswith("OK")
    read_only = make_database_tools(db)[0]
    assert read_only.execute({"sql": "PRAGMA user_version"}).endswith("7")
    assert "name" in read_only.execute({"sql": "PRAGMA table_info(users)"})
    assert isinstance(_error(read_only, {"sql": "PRAGMA user_version = 8"}), ReadOnlyError)


@pytest.mark.parametrize(
    "sql",
    [
        "select zeroblob(250000000)",
        "select length(hex(zeroblob(250000000)))",
        "select length(replace(hex(zeroblob(50000000)), '0', 'ab'))",
        "select length(printf('%.*c', 400000000, 'x'))",
    ],
)
def test_one_long_step_cannot_outrun_the_timeout(db: Path, sql: str) -> None:
    tool = make_database_tools(db, timeout=1)[0]
    started = time.monotonic()
    try:
        outcome: object = tool.execute({"sql": sql})
    except ToolExecutionError as exc:
        outcome = exc
    elapsed = time.monotonic() - started
    print(f"{sql}: done after {elapsed:.2f}s ({outcome})")
    assert elapsed < 1 + 1.5  # the stated timeout, with a margin for a loaded machine
    if isinstance(outcome, ToolExecutionError):
        assert "max_value_bytes" in str(outcome) or "longer than 1 seconds" in str(outcome)
    else:
        # SQLite's printf() gives NULL at the length limit instead of failing: when it gets
        # there within the timeout, no value past max_value_bytes (10 MB) comes back
        assert "printf" in sql
        rows = str(outcome).splitlines()[2:]  # after the header and its rule
        value = rows[0].strip() if rows else ""
        assert value == "" or int(value) <= 10_000_000  # NULL prints as an empty cell


def test_long_cells_and_blobs_are_shown_cut(db: Path) -> None:
    tool = make_database_tools(db)[0]
    out = tool.execute({"sql": "select zeroblob(5000) as b, printf('%.*c', 5000, 'x') as s"})
    assert "<blob: 5000 bytes>" in out and "[4000 more characters]" in out
