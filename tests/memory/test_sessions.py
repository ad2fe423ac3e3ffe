"""Session stores (JSON file, SQLite, Redis) and the agent's auto-load / auto-save.

Crash safety is tested for real: a child process saving large sessions is
killed with SIGKILL at random moments, and two processes write one session at
once; the session must always load as one whole version.
"""

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from selectools import Agent, AgentConfig, AgentObserver, ConversationMemory, Message, Role
from selectools.sessions import (
    JsonFileSessionStore,
    RedisSessionStore,
    SessionStore,
    SessionStoreError,
    SQLiteSessionStore,
)
from selectools.testing import ScriptedProvider

WORKERS = Path(__file__).with_name("_session_workers.py")
sys.path.insert(0, str(WORKERS.parent))
import _session_workers as workers  # noqa: E402


class FakeClock:
    def __init__(self):
        self.now = 1_700_000_000.0

    def __call__(self):
        return self.now


@pytest.fixture
def redis_url(redis_server):
    import redis

    redis.Redis.from_url(redis_server).flushdb()
    return redis_server


@pytest.fixture(params=["json", "sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def backend(request, tmp_path):
    """(kind, factory): factory(**kwargs) builds a store of that kind on one shared location."""
    kind = request.param
    if kind == "redis":
        url = request.getfixturevalue("redis_url")
        return kind, lambda **kw: RedisSessionStore(url=url, **kw)
    if kind == "json":
        return kind, lambda **kw: JsonFileSessionStore(tmp_path / "sessions", **kw)
    return kind, lambda **kw: SQLiteSessionStore(tmp_path / "sessions.db", **kw)


def _location(kind, tmp_path, redis_url=None):
    return {"json": str(tmp_path / "sessions"), "sqlite": str(tmp_path / "sessions.db")}.get(
        kind, redis_url
    )


# -- the store API, on every backend ---------------------------------------------
def test_roundtrip(backend):
    _, make = backend
    store = make()
    assert isinstance(store, SessionStore)
    data = {"messages": [{"role": "user", "content": "Hello"}], "metadata": {"user": "test"}}
    store.save("s1", data)
    assert store.exists("s1") and store.list_sessions() == ["s1"]
    loaded = store.load("s1")
    assert loaded["messages"] == data["messages"] and loaded["metadata"] == {"user": "test"}
    assert loaded["session_id"] == "s1"
    assert loaded["created_at"].endswith("Z") and loaded["updated_at"] >= loaded["created_at"]
    store.delete("s1")
    store.delete("s1")  # no-op
    assert not store.exists("s1") and store.load("s1") is None and store.list_sessions() == []


def test_created_at_survives_updates_and_user_keys_win(backend):
    _, make = backend
    store = make()
    store.save("s", {"v": 1})
    first = store.load("s")
    store.save("s", {"v": 2, "updated_at": "mine"})
    second = store.load("s")
    assert second["v"] == 2 and second["created_at"] == first["created_at"]
    assert second["updated_at"] == "mine"  # the user's own key is returned untouched


def test_unusual_session_ids(backend):
    _, make = backend
    store = make()
    ids = ["user:42", "a/b", ".hidden", "..", "naïve id", "x" * 200]
    for number, session_id in enumerate(ids):
        store.save(session_id, {"n": number})
    assert sorted(store.list_sessions()) == sorted(ids)
    assert [store.load(i)["n"] for i in ids] == list(range(len(ids)))
    for bad in ("", None, "x" * 201):
        with pytest.raises(ValueError, match="session_id"):
            store.save(bad, {})


def test_namespaces_keep_stores_apart(backend):
    _, make = backend
    default, tenant_a, tenant_b = make(), make(namespace="tenant-a"), make(namespace="tenant-b")
    default.save("s", {"who": "default"})
    tenant_a.save("s", {"who": "a"})
    tenant_a.save("only-a", {"who": "a"})
    assert default.load("s")["who"] == "default" and tenant_a.load("s")["who"] == "a"
    assert tenant_b.load("s") is None and tenant_b.list_sessions() == []
    assert default.list_sessions() == ["s"] and tenant_a.list_sessions() == ["only-a", "s"]
    tenant_a.delete("s")
    assert default.exists("s")


def test_bad_data_never_touches_the_stored_version(backend):
    _, make = backend
    store = make()
    store.save("s", {"v": 1})
    with pytest.raises(TypeError, match="JSON-serialisable"):
        store.save("s", {"v": object()})
    with pytest.raises(TypeError, match="must be a dict"):
        store.save("s", ["not", "a", "dict"])
    assert store.load("s")["v"] == 1
    with pytest.raises(ValueError, match="not both"):
        make(ttl_seconds=5, default_ttl=5)
    with pytest.raises(ValueError, match="> 0"):
        make(ttl_seconds=0)


@pytest.mark.parametrize("kind", ["json", "sqlite"])
def test_ttl_on_a_fake_clock(kind, tmp_path):
    clock = FakeClock()
    location = _location(kind, tmp_path)
    cls = JsonFileSessionStore if kind == "json" else SQLiteSessionStore
    store = cls(location, default_ttl=3600, clock=clock)
    store.save("s1", {"messages": []})
    store.save("keep", {"messages": []}, ttl_seconds=10 * 3600)
    clock.now += 3599
    assert store.exists("s1") and store.load("s1") is not None
    store.save("s1", {"messages": [1]})  # saving restarts the clock
    clock.now += 3599
    assert store.exists("s1")
    clock.now += 1
    assert not store.exists("s1") and store.load("s1") is None
    assert store.list_sessions() == ["keep"]  # its own, longer TTL
    # the same data read by a store without a TTL is still there: expiry is not deletion
    assert cls(location, clock=clock).load("s1")["messages"] == [1]


@pytest.mark.redis
def test_redis_ttl_is_enforced_by_the_server(redis_url):
    import redis

    store = RedisSessionStore(url=redis_url, ttl_seconds=0.3)
    store.save("short", {"x": 1})
    store.save("long", {"x": 2}, ttl_seconds=60)
    forever = RedisSessionStore(url=redis_url, namespace="forever")
    forever.save("s", {"x": 3})
    raw = redis.Redis.from_url(redis_url)
    assert 0 < raw.pttl("selectools:session:default:short") <= 300
    assert raw.ttl("selectools:session:forever:s") == -1
    assert store.exists("short")
    time.sleep(0.45)
    assert not store.exists("short") and store.load("short") is None
    assert store.list_sessions() == ["long"]


def test_json_files_are_readable_and_corruption_is_reported_not_repaired(tmp_path):
    store = JsonFileSessionStore(directory=tmp_path, ttl_seconds=86400)
    store.save("user-alice-001", {"messages": [{"role": "user", "content": "hi"}]})
    path = tmp_path / "user-alice-001.json"
    record = json.loads(path.read_text())
    assert (
        record["data"]["messages"][0]["content"] == "hi"
        and record["session_id"] == "user-alice-001"
    )
    path.write_text('{"session_id": "user-alice-001", "data": {"messa')  # damaged by hand
    with pytest.raises(SessionStoreError, match=r"left\s+untouched"):
        store.load("user-alice-001")
    assert path.read_text().endswith('"messa')
    assert store.list_sessions() == []


# -- across processes ---------------------------------------------------------------
def _spawn(mode, kind, location, writer="w", count=1, size=10, **popen):
    return subprocess.Popen(
        [sys.executable, str(WORKERS), mode, kind, location, writer, str(count), str(size)], **popen
    )


@pytest.mark.parametrize("kind", ["json", "sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def test_a_session_saved_by_another_process_loads(kind, tmp_path, request):
    location = _location(
        kind, tmp_path, request.getfixturevalue("redis_url") if kind == "redis" else None
    )
    assert _spawn("count", kind, location, "child", count=3, size=5).wait(30) == 0
    store = workers.open_store(kind, location)
    assert workers.check(store.load(workers.SESSION_ID)) == ("child", 3)


def _temp_file_appears(directory, deadline):
    while time.monotonic() < deadline:
        if any(name.endswith(".tmp") for name in os.listdir(directory)):
            return True
    return False


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["json", "sqlite"])
def test_sigkill_mid_save_leaves_a_whole_session(kind, tmp_path):
    location = _location(kind, tmp_path)
    store = workers.open_store(kind, location)
    store.save(workers.SESSION_ID, workers.session("parent", 0, 60_000))
    rng = random.Random(1234)
    seen_versions = set()
    mid_write = 0
    for kill in range(50):
        child = _spawn("forever", kind, location, "child", size=60_000, stdout=subprocess.PIPE)
        assert child.stdout.readline().strip() == b"ready"
        if kind == "json" and kill % 2:
            # half the kills aim at the write itself: as soon as the temp file exists
            _temp_file_appears(location, time.monotonic() + 2)
        else:
            time.sleep(rng.uniform(0, 0.12))
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        if kind == "json":
            mid_write += any(p.suffix == ".tmp" for p in Path(location).iterdir())
        _, version = workers.check(store.load(workers.SESSION_ID))
        seen_versions.add(version)
    assert len(seen_versions) > 1  # kills landed at different points of the save loop
    if kind == "json":
        assert mid_write >= 10, f"only {mid_write} kills interrupted a write"
    store.save(workers.SESSION_ID, workers.session("parent", 1, 10))
    if kind == "json":  # the next save cleaned up the temp files of killed writers
        assert [p.name for p in Path(location).iterdir() if p.suffix == ".tmp"] == []


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["json", "sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def test_two_processes_writing_one_session(kind, tmp_path, request):
    location = _location(
        kind, tmp_path, request.getfixturevalue("redis_url") if kind == "redis" else None
    )
    store = workers.open_store(kind, location)
    store.save(workers.SESSION_ID, workers.session("parent", 0, 10))
    created = store.load(workers.SESSION_ID)["created_at"]
    children = [_spawn("count", kind, location, name, count=60, size=3_000) for name in ("a", "b")]
    reads = 0
    while any(child.poll() is None for child in children):
        workers.check(store.load(workers.SESSION_ID))
        reads += 1
    assert [child.wait(60) for child in children] == [0, 0]
    writer, version = workers.check(store.load(workers.SESSION_ID))
    assert writer in ("a", "b") and version == 60
    assert store.load(workers.SESSION_ID)["created_at"] == created
    assert reads > 0


# -- the agent -----------------------------------------------------------------
class SessionWatcher(AgentObserver):
    def __init__(self):
        self.events = []

    def on_session_load(self, run_id, session_id, message_count):
        self.events.append(("load", session_id, message_count))

    def on_session_save(self, run_id, session_id, message_count):
        self.events.append(("save", session_id, message_count))


def _agent(store, provider=None, memory=None, **config):
    return Agent(
        provider=provider or ScriptedProvider(default="noted"),
        memory=memory,
        config=AgentConfig(session_store=store, session_id="user-123", **config),
    )


def test_agent_saves_after_each_run_and_a_new_agent_resumes(tmp_path):
    store = JsonFileSessionStore(tmp_path)
    watcher = SessionWatcher()
    first = _agent(store, memory=ConversationMemory(max_messages=50), observers=[watcher])
    result = first.run([Message(role=Role.USER, content="My name is Alice")])
    assert watcher.events == [("save", "user-123", 2)]
    assert result.trace.filter(type="session_save")[0].data == {
        "session_id": "user-123",
        "message_count": 2,
    }
    # built later (a new process would do the same): the memory is there before any run
    provider = ScriptedProvider(default="You are Alice")
    second = _agent(store, provider=provider, observers=[watcher])
    assert [m.text for m in second.memory.get_history()] == ["My name is Alice", "noted"]
    assert second.memory.max_messages == 50  # restored with the session
    result = second.run("What's my name?")
    assert [m.text for m in provider.requests[0].messages] == [
        "My name is Alice",
        "noted",
        "What's my name?",
    ]
    assert watcher.events[1:] == [("load", "user-123", 2), ("save", "user-123", 4)]
    assert result.trace.filter(type="session_load")[0].run_id == result.run_id
    second.run("again")
    assert [e[0] for e in watcher.events[3:]] == ["save"]  # the load is reported once


def test_agent_without_memory_gets_one_for_the_session(tmp_path):
    store = SQLiteSessionStore(tmp_path / "s.db")
    agent = _agent(store)
    assert isinstance(agent.memory, ConversationMemory) and len(agent.memory) == 0
    agent.run("remember blue")
    assert [m["content"] for m in store.load("user-123")["messages"]] == ["remember blue", "noted"]


def test_metadata_and_summary_are_saved_and_restored(tmp_path):
    store = JsonFileSessionStore(tmp_path)
    agent = _agent(store, session_metadata={"user_id": "42", "channel": "web"})
    agent.memory.summary = "Earlier: Alice said hi."
    agent.run("hi")
    saved = store.load("user-123")
    assert saved["metadata"] == {"user_id": "42", "channel": "web"}
    assert saved["summary"] == "Earlier: Alice said hi."
    again = _agent(store, session_metadata={"channel": "mobile"})
    assert again.session_metadata == {"user_id": "42", "channel": "mobile"}
    assert again.memory.summary == "Earlier: Alice said hi."


class ThreadRecordingStore(JsonFileSessionStore):
    def save(self, session_id, data, **kwargs):
        self.threads.append(threading.current_thread().name)
        super().save(session_id, data, **kwargs)


def test_async_runs_save_off_the_event_loop(tmp_path):
    store = ThreadRecordingStore(tmp_path)
    store.threads = []
    agent = _agent(store)

    async def runs():
        await agent.arun("one")
        return [item async for item in agent.astream("two")][-1]

    result = asyncio.run(runs())
    assert len(store.threads) == 2
    assert threading.main_thread().name not in store.threads
    assert result.trace.filter(type="session_save")
    assert len(store.load("user-123")["messages"]) == 4


class FailingStore(JsonFileSessionStore):
    def save(self, session_id, data, **kwargs):
        raise OSError("disk full")


def test_a_failed_save_keeps_the_answer_and_reports_the_error(tmp_path):
    agent = _agent(FailingStore(tmp_path), provider=ScriptedProvider(default="the answer"))
    result = agent.run("q")
    assert result.content == "the answer" and result.stop_reason == "final"
    assert isinstance(result.error, OSError)
    assert "disk full" in result.trace.filter(type="error")[0].summary


def test_session_config_is_validated(tmp_path):
    store = JsonFileSessionStore(tmp_path)
    with pytest.raises(ValueError, match="go together"):
        AgentConfig(session_store=store)
    with pytest.raises(ValueError, match="go together"):
        AgentConfig(session_id="x")
    with pytest.raises(TypeError, match="session_store must be"):
        AgentConfig(session_store="./sessions", session_id="x")
    with pytest.raises(TypeError, match="ConversationMemory"):
        Agent(memory=object(), config=AgentConfig(session_store=store, session_id="x"))


def test_an_unreadable_stored_message_stops_construction_and_keeps_the_file(tmp_path):
    store = JsonFileSessionStore(tmp_path)
    store.save("user-123", {"messages": [{"content": "no role"}]})
    before = (tmp_path / "user-123.json").read_text()
    with pytest.raises(SessionStoreError, match="left untouched"):
        _agent(store, on_damaged_session="fail")
    assert (tmp_path / "user-123.json").read_text() == before
    os.remove(tmp_path / "user-123.json")
