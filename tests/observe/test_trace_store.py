"""Trace stores: the same behaviour from every backend, and their durability guarantees."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone

import pytest

from selectools import Agent, AgentConfig, tool
from selectools.observe import InMemoryTraceStore, JSONLTraceStore, SQLiteTraceStore
from selectools.observe.trace_store import TraceNotFoundError
from selectools.testing import ScriptedProvider, tool_call
from selectools.trace import AgentTrace, StepType, TraceStep


@tool()
def lookup(key: str) -> str:
    """Looks a key up."""
    return key.upper()


def _trace(run_id: str, started: float, **metadata) -> AgentTrace:
    trace = AgentTrace(run_id, metadata=metadata, started_at=started)
    trace.add(
        TraceStep(
            StepType.LLM_CALL,
            started,
            started + 0.5,
            model="m",
            prompt_tokens=10,
            completion_tokens=5,
            cost_usd=0.001,
        )
    )
    trace.ended_at = started + 1.0
    return trace


@pytest.fixture(params=["memory", "jsonl", "sqlite"])
def store(request, tmp_path):
    if request.param == "memory":
        yield InMemoryTraceStore()
    elif request.param == "jsonl":
        yield JSONLTraceStore(tmp_path / "traces.jsonl")
    else:
        store = SQLiteTraceStore(tmp_path / "traces.db")
        yield store
        store.close()


def test_save_load_roundtrip_keeps_every_step(store):
    trace = _trace("r1", 1000.0, user="ada")
    assert store.save(trace) == "r1"
    loaded = store.load("r1")
    assert loaded.to_dict() == trace.to_dict()
    assert "r1" in store and "nope" not in store
    assert len(store) == 1


def test_query_by_run_id_time_range_and_metadata(store):
    for i, user in enumerate(["ada", "bob", "ada", "cy"]):
        store.save(_trace(f"r{i}", 1000.0 + i * 100, user=user, tier=i % 2))
    assert [t.run_id for t in store.query(run_id="r2")] == ["r2"]
    assert [t.run_id for t in store.query(since=1100, until=1200)] == ["r1", "r2"]
    since = datetime.fromtimestamp(1200, tz=timezone.utc)
    assert [t.run_id for t in store.query(since=since)] == ["r2", "r3"]
    assert [t.run_id for t in store.query(metadata={"user": "ada"})] == ["r0", "r2"]
    assert [t.run_id for t in store.query(metadata={"user": "ada", "tier": 0})] == ["r0", "r2"]
    assert [t.run_id for t in store.query(metadata={"tier": 1}, limit=1)] == ["r3"]
    assert store.query(metadata={"missing": None}) == []
    assert [t.run_id for t in store.query()] == ["r0", "r1", "r2", "r3"]


def test_save_replaces_and_delete_removes(store):
    store.save(_trace("r1", 1000.0, v=1))
    store.save(_trace("r1", 1000.0, v=2))
    assert len(store) == 1
    assert store.load("r1").metadata == {"v": 2}
    store.delete("r1")
    assert len(store) == 0
    with pytest.raises(TraceNotFoundError, match="r1"):
        store.load("r1")
    with pytest.raises(KeyError):
        store.delete("r1")


def test_observer_saves_every_run(store):
    agent = Agent(
        tools=[lookup],
        provider=ScriptedProvider([tool_call("lookup", key="a"), "A", "second"]),
        config=AgentConfig(observers=[store.observer()], trace_metadata={"job": "nightly"}),
    )
    first = agent.run("one")
    second = agent.run("two")
    stored = store.query(metadata={"job": "nightly"})
    assert [t.run_id for t in stored] == [first.trace.run_id, second.trace.run_id]
    assert [s.type for s in stored[0].steps] == [s.type for s in first.trace.steps]
    assert stored[0].total_tokens == first.usage.total_tokens


def test_to_dataframe_one_row_per_run(store):
    store.save(_trace("a", 1000.0, user="ada"))
    store.save(_trace("b", 2000.0, user="bob", team="x"))
    frame = store.to_dataframe()
    assert list(frame["run_id"]) == ["a", "b"]
    assert list(frame["steps"]) == [1, 1]
    assert list(frame["total_tokens"]) == [15, 15]
    assert list(frame["duration_ms"]) == [1000.0, 1000.0]
    assert list(frame["meta.user"]) == ["ada", "bob"]
    assert frame["meta.team"].tolist()[1] == "x"
    assert frame["started"][0] == datetime.fromtimestamp(1000, tz=timezone.utc)
    assert list(store.to_dataframe(metadata={"user": "bob"})["run_id"]) == ["b"]


def test_in_memory_keeps_the_newest_max_traces():
    store = InMemoryTraceStore(max_traces=2)
    for i in range(3):
        store.save(_trace(f"r{i}", float(i)))
    assert [t.run_id for t in store.query()] == ["r1", "r2"]
    with pytest.raises(ValueError, match="max_traces"):
        InMemoryTraceStore(max_traces=0)


def test_jsonl_skips_a_torn_last_line_and_rewrites_atomically(tmp_path):
    path = tmp_path / "t.jsonl"
    store = JSONLTraceStore(path)
    store.save(_trace("r1", 1.0))
    store.save(_trace("r2", 2.0))
    with open(path, "a") as handle:  # a crash in the middle of an append
        handle.write('{"run_id": "r3", "steps": [')
    assert [t.run_id for t in store.query()] == ["r1", "r2"]
    store.delete("r1")
    lines = path.read_text().splitlines()
    assert [json.loads(line)["run_id"] for line in lines] == ["r2"]
    left = [p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")]
    assert left == ["t.jsonl"]  # no temp file left behind (the lock file stays)


def test_sqlite_persists_across_connections(tmp_path):
    path = tmp_path / "t.db"
    first = SQLiteTraceStore(path)
    first.save(_trace("r1", 5.0, env="prod"))
    first.close()
    again = SQLiteTraceStore(path)
    assert again.load("r1").metadata == {"env": "prod"}
    again.close()
    assert os.path.getsize(path) > 0


def test_bad_time_bound_is_a_clear_error():
    with pytest.raises(TypeError, match="since/until"):
        InMemoryTraceStore().query(since="yesterday")


def test_sqlite_newest_runs_read_only_those_runs(tmp_path, monkeypatch):
    """``query(limit=n)`` decodes the newest rows until it has n readable runs, not every run."""
    import sqlite3

    path = tmp_path / "t.db"
    store = SQLiteTraceStore(path)
    for i in range(50):
        store.save(_trace(f"r{i}", 100.0 + i))
    store.save(_trace("tie", 148.0))  # the same start as r48: both stay in the result
    with sqlite3.connect(path) as conn:
        conn.execute("update traces set body = '{' where run_id in ('r0', 'r47')")
    decoded: list[str] = []
    real = AgentTrace.from_dict

    def counting(data):
        decoded.append(data["run_id"])
        return real(data)

    monkeypatch.setattr(AgentTrace, "from_dict", staticmethod(counting))
    newest = store.query(limit=4)
    assert [t.run_id for t in newest] == ["r46", "r48", "tie", "r49"]  # oldest first
    assert len(decoded) == 4  # r49, tie, r48, r46: none of the 45 older runs
    assert len(store.unreadable) == 1 and "'r47'" in store.unreadable[0]  # r0 was never read
    everything = store.query()
    assert len(everything) == 49 and len(store.unreadable) == 2
    assert [t.run_id for t in store.query(since=140.0, limit=2)] == ["tie", "r49"]
    store.close()
