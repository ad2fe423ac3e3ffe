"""Damaged records and records from a newer format, in every store that holds what a user wrote.

A damaged record gives a clear error that names it (or is skipped and named by
a listing), and the other records stay readable. A record written in a newer
format is refused and never overwritten.
"""

from __future__ import annotations

import sqlite3
import warnings
from pathlib import Path

import pytest

from selectools import Agent, AgentConfig
from selectools.audit import read_audit
from selectools.evals import EvalError
from selectools.knowledge import StoreVersionError
from selectools.orchestration import CheckpointStoreError
from selectools.sessions import SessionFormatError, SessionStoreError
from selectools.testing import ScriptedProvider
from tests.storage._backends import BACKENDS, open_store
from tests.storage._records import KEYS, RECORDS, _redis


def _filled(protocol: str, backend: str, make_location) -> tuple[str, object]:
    location = make_location(protocol, backend)
    store = open_store(protocol, backend, location)
    for version, key in enumerate(KEYS, 1):
        RECORDS[protocol].write(store, key, version)
    return location, store


# -- sessions ------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS["sessions"])
def test_a_damaged_session_is_named_and_the_others_load(backend, make_location):
    location, store = _filled("sessions", backend, make_location)
    RECORDS["sessions"].corrupt(backend, location, "k1")
    with pytest.raises(SessionStoreError, match="k1") as caught:
        store.load("k1")
    assert "left untouched" in str(caught.value)
    assert RECORDS["sessions"].read_one(store, "k0") == 1
    assert RECORDS["sessions"].read_one(store, "k2") == 3


@pytest.mark.parametrize("backend", ["json", "redis"])
def test_a_session_from_a_newer_format_is_refused_and_never_overwritten(backend, make_location):
    location, store = _filled("sessions", backend, make_location)
    records = RECORDS["sessions"]
    records.make_newer(backend, location, "k1")
    before = records.raw(backend, location, "k1")
    with pytest.raises(SessionFormatError, match="newer selectools"):
        store.load("k1")
    with pytest.raises(SessionFormatError, match="newer selectools"):
        records.write(store, "k1", 9)
    with pytest.raises(SessionFormatError):  # an agent neither sets it aside nor overwrites it
        Agent(
            provider=ScriptedProvider(default="ok"),
            config=AgentConfig(session_store=store, session_id="k1"),
        )
    assert records.raw(backend, location, "k1") == before
    assert records.read_one(store, "k0") == 1


def test_a_sqlite_session_database_from_a_newer_format_is_refused_untouched(make_location):
    location, store = _filled("sessions", "sqlite", make_location)
    store.close()
    RECORDS["sessions"].make_newer("sqlite", location, "k1")
    before = Path(location).read_bytes()
    with pytest.raises(SessionStoreError, match="newer selectools"):
        open_store("sessions", "sqlite", location)
    assert Path(location).read_bytes() == before


def _set_aside_copy(backend: str, location: str) -> object:
    if backend == "json":
        kept = list(Path(location).glob("k1.json.damaged-*"))
        return kept[0].read_text() if kept else None
    if backend == "sqlite":
        with sqlite3.connect(location) as db:
            return db.execute(
                "SELECT data FROM sessions_set_aside WHERE session_id = 'k1'"
            ).fetchone()
    client, prefix = _redis(location)
    keys = list(client.scan_iter(match=f"{prefix}!default:set-aside:k1:*"))
    return client.hget(keys[0], "data") if keys else None


@pytest.mark.parametrize("backend", BACKENDS["sessions"])
def test_an_agent_on_a_damaged_session_starts_fresh_and_keeps_the_damaged_copy(
    backend, make_location
):
    location, store = _filled("sessions", backend, make_location)
    RECORDS["sessions"].corrupt(backend, location, "k1")
    with pytest.raises(SessionStoreError, match="k1"):
        Agent(
            provider=ScriptedProvider(default="ok"),
            config=AgentConfig(session_store=store, session_id="k1", on_damaged_session="fail"),
        )
    with pytest.warns(RuntimeWarning, match="moved aside") as caught:
        agent = Agent(
            provider=ScriptedProvider(default="ok"),
            config=AgentConfig(session_store=store, session_id="k1"),
        )
    message = str(caught[0].message)
    assert "'k1'" in message and "starts empty" in message
    assert agent.memory is not None and len(agent.memory) == 0
    assert _set_aside_copy(backend, location) is not None  # kept for the user to inspect
    assert "k1" not in store.list_sessions() or store.load("k1") is None
    agent.run("hello again")
    saved = store.load("k1")
    assert saved is not None
    assert [m["content"] for m in saved["messages"]] == ["hello again", "ok"]
    assert RECORDS["sessions"].read_one(store, "k0") == 1


def test_on_damaged_session_is_validated():
    with pytest.raises(ValueError, match="on_damaged_session"):
        AgentConfig(on_damaged_session="ignore")
    with pytest.raises(ValueError, match="session_lock_timeout"):
        AgentConfig(session_lock_timeout=0)


# -- checkpoints ---------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS["checkpoints"])
def test_a_damaged_checkpoint_is_named_and_the_others_list_and_load(backend, make_location):
    location, store = _filled("checkpoints", backend, make_location)
    records = RECORDS["checkpoints"]
    damaged = records.corrupt(backend, location, "k1", store)
    with pytest.raises(CheckpointStoreError, match=damaged):
        store.load(damaged)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        listed = store.list("k1")
    if backend == "file":  # the listing reads the file: skipped, named, warned
        assert listed == []
        assert len(store.unreadable) == 1 and damaged in store.unreadable[0]
        assert any(damaged in str(w.message) for w in seen)
    assert records.read_one(store, "k0") == 1
    assert records.read_one(store, "k2") == 3


def test_a_truncated_checkpoint_file_does_not_block_listing_the_others(tmp_path):
    """The failure seen on main: one truncated file made every list() raise JSONDecodeError."""
    from selectools.orchestration import FileCheckpointStore, GraphState

    store = FileCheckpointStore(tmp_path)
    kept = store.save("g", GraphState(data={"n": 1}), 1)
    broken = store.save("g", GraphState(data={"n": 2}), 2)
    path = tmp_path / f"{broken}.json"
    path.write_text(path.read_text()[:30])
    with pytest.warns(RuntimeWarning, match=str(path)):
        listed = store.list("g")
    assert [m.checkpoint_id for m in listed] == [kept]


@pytest.mark.parametrize("backend", BACKENDS["checkpoints"])
def test_a_checkpoint_from_a_newer_format_is_refused_untouched(backend, make_location):
    location, store = _filled("checkpoints", backend, make_location)
    records = RECORDS["checkpoints"]
    newer = records.make_newer(backend, location, "k1", store)
    with pytest.raises(CheckpointStoreError, match="newer selectools"):
        store.load(newer)
    records.write(store, "k1", 5)  # new checkpoints never replace an old one
    with pytest.raises(CheckpointStoreError, match="newer selectools"):
        store.load(newer)
    assert records.read_one(store, "k0") == 1


# -- knowledge -----------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS["knowledge"])
def test_a_damaged_knowledge_entry_is_named_and_the_others_read(backend, make_location):
    location, store = _filled("knowledge", backend, make_location)
    named = RECORDS["knowledge"].corrupt(backend, location, "k1", store)
    found = RECORDS["knowledge"].read_all(store, location)
    assert found == {"k0": 1, "k2": 3}
    assert len(store.unreadable) == 1 and named in store.unreadable[0]


@pytest.mark.parametrize("backend", BACKENDS["knowledge"])
def test_a_knowledge_store_from_a_newer_format_is_refused(backend, make_location):
    location, store = _filled("knowledge", backend, make_location)
    getattr(store, "close", lambda: None)()
    RECORDS["knowledge"].make_newer(backend, location)
    with pytest.raises(StoreVersionError, match="newer selectools"):
        open_store("knowledge", backend, location)


# -- audit log -----------------------------------------------------------------------
def test_a_damaged_audit_line_is_named_and_the_others_read(make_location):
    location, store = _filled("audit", "file", make_location)
    store.close()
    (log,) = Path(location).glob("audit*.jsonl")
    lines = log.read_text().splitlines()
    lines[1] = lines[1][:25]
    log.write_text("\n".join(lines) + "\n")
    read = read_audit(location)
    assert [r["run_id"] for r in read.records] == ["k0", "k2"]
    assert [(t.path, t.line_number) for t in read.torn_lines] == [(str(log), 2)]


# -- eval baselines ------------------------------------------------------------------
def test_a_damaged_baseline_is_named_and_the_others_load(make_location):
    _location, store = _filled("baselines", "file", make_location)
    path = store.path("k1")
    path.write_text(path.read_text()[:60])
    with pytest.raises(EvalError, match=str(path)):
        store.load("k1")
    assert RECORDS["baselines"].read_one(store, "k0") == 1


def test_a_baseline_from_a_newer_format_is_refused_and_never_overwritten(make_location):
    import json

    _location, store = _filled("baselines", "file", make_location)
    path = store.path("k1")
    data = json.loads(path.read_text())
    data["baseline_format"] = 99
    path.write_text(json.dumps(data))
    before = path.read_bytes()
    with pytest.raises(EvalError, match="newer selectools"):
        store.load("k1")
    with pytest.raises(EvalError, match="newer selectools"):
        RECORDS["baselines"].write(store, "k1", 9)
    assert path.read_bytes() == before


def test_a_checkpoint_folder_reopened_after_kills_has_no_temporary_files_left(make_location):
    """Temporary files of writers killed mid-save are removed when the store is opened again."""
    location, store = _filled("checkpoints", "file", make_location)
    orphan = Path(location) / ".0123abcd.json.x1y2z3.tmp"
    orphan.write_text('{"half": ')
    open_store("checkpoints", "file", location)
    assert not orphan.exists()
    assert RECORDS["checkpoints"].read_all(store, location) == {"k0": 1, "k1": 2, "k2": 3}


def test_a_damaged_snapshot_file_is_named_and_the_others_load(make_location):
    _location, store = _filled("snapshots", "file", make_location)
    path = store.path("k1")
    path.write_text(path.read_text()[:50])
    with pytest.raises(EvalError, match=str(path)):
        store.load("k1")
    assert RECORDS["snapshots"].read_one(store, "k2") == 3


# -- newer formats of the append-only and snapshot files ------------------------------
def _rewrite_first_record(path: Path, **changes: object) -> None:
    import json

    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    first.update(changes)
    lines[0] = json.dumps(first)
    path.write_text("\n".join(lines) + "\n")


def test_an_audit_log_from_a_newer_format_is_refused_untouched(make_location):
    from selectools.audit import AuditFormatError

    location, store = _filled("audit", "file", make_location)
    store.close()
    (log,) = Path(location).glob("audit*.jsonl")
    _rewrite_first_record(log, audit_format=99)
    before = log.read_bytes()
    with pytest.raises(AuditFormatError, match="newer selectools") as caught:
        read_audit(location)
    assert str(log) in str(caught.value) and "upgrade" in str(caught.value).lower()
    with pytest.raises(AuditFormatError, match="newer selectools"):
        open_store("audit", "file", location).write("late", "k9")
    assert log.read_bytes() == before


def test_audit_records_carry_their_format_and_old_files_still_read(make_location):
    import json

    location, store = _filled("audit", "file", make_location)
    store.close()
    (log,) = Path(location).glob("audit*.jsonl")
    assert all(json.loads(line)["audit_format"] == 1 for line in log.read_text().splitlines())
    old = [json.loads(line) for line in log.read_text().splitlines()]
    for record in old:
        del record["audit_format"]  # as selectools wrote it before records carried a format
    log.write_text("".join(json.dumps(r) + "\n" for r in old))
    assert RECORDS["audit"].read_all(None, location) == {"k0": 1, "k1": 2, "k2": 3}


def test_a_jsonl_trace_file_from_a_newer_format_is_refused_untouched(make_location):
    import json

    from selectools.observe.trace_store import TraceFormatError

    location, store = _filled("traces", "jsonl", make_location)
    log = Path(location)
    assert all(json.loads(line)["trace_format"] == 1 for line in log.read_text().splitlines())
    _rewrite_first_record(log, trace_format=99)
    before = log.read_bytes()
    with pytest.raises(TraceFormatError, match="newer selectools") as caught:
        store.query()
    assert str(log) in str(caught.value) and "upgrade" in str(caught.value).lower()
    with pytest.raises(TraceFormatError, match="newer selectools"):
        RECORDS["traces"].write(store, "k9", 9)
    assert log.read_bytes() == before
    # a file written before lines carried a format still reads
    old = [json.loads(line) for line in before.decode().splitlines()]
    for record in old:
        record.pop("trace_format")
    log.write_text("".join(json.dumps(r) + "\n" for r in old))
    assert RECORDS["traces"].read_all(store, location) == {"k0": 1, "k1": 2, "k2": 3}


def test_a_snapshot_file_from_a_newer_format_is_refused_and_never_overwritten(make_location):
    import json

    _location, store = _filled("snapshots", "file", make_location)
    path = store.path("k1")
    data = json.loads(path.read_text())
    assert data["snapshot_format"] == 1
    data["snapshot_format"] = 99
    path.write_text(json.dumps(data))
    before = path.read_bytes()
    with pytest.raises(EvalError, match="newer selectools") as caught:
        store.load("k1")
    assert "upgrade" in str(caught.value).lower()
    with pytest.raises(EvalError, match="newer selectools"):
        RECORDS["snapshots"].write(store, "k1", 9)
    assert path.read_bytes() == before


def test_a_snapshot_file_written_before_snapshots_carried_a_format_still_loads(make_location):
    import json

    _location, store = _filled("snapshots", "file", make_location)
    path = store.path("k2")
    cases = json.loads(path.read_text())["cases"]
    path.write_text(json.dumps(cases))  # the old layout: case key -> recorded output
    assert RECORDS["snapshots"].read_one(store, "k2") == 3
    RECORDS["snapshots"].write(store, "k2", 8)
    assert RECORDS["snapshots"].read_one(store, "k2") == 8
