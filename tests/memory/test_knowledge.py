"""KnowledgeMemory over every backend: file (MEMORY.md + daily JSONL), SQLite, Redis (real server)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from selectools.knowledge import (
    FileKnowledgeStore,
    KnowledgeEntry,
    KnowledgeMemory,
    KnowledgeStore,
    StoreVersionError,
    UnknownBackendError,
)


@pytest.fixture(params=["file", "sqlite", "redis", "supabase"])
def km(request, tmp_path):
    if request.param == "supabase":
        fake = request.getfixturevalue("fake_supabase")
        memory = KnowledgeMemory(backend="supabase", supabase_url=fake.url, supabase_key=fake.key)
        memory.clear()
        return memory
    if request.param == "redis":
        url = request.getfixturevalue("redis_server")
        prefix = f"test:{request.node.name}:"
        memory = KnowledgeMemory(backend="redis", redis_url=url, redis_prefix=prefix)
        memory.clear()
        return memory
    return KnowledgeMemory(storage_dir=tmp_path / "mem", backend=request.param)


def test_documented_behaviour_on_every_backend(km):
    assert isinstance(km.store, KnowledgeStore)
    assert km.build_context() == ""
    reply = km.remember("Prefers Python", category="preferences", persistent=True)
    assert "Prefers Python" in reply
    km.remember("Meeting at 3pm", category="context")
    km.remember("Uses VS Code", category="preferences", persistent=True)
    km.remember("Name: Alice", category="personal", persistent=True)
    assert km.get_persistent_facts() == {
        "preferences": ["Prefers Python", "Uses VS Code"],
        "personal": ["Name: Alice"],
    }
    context = km.build_context()
    assert context.startswith(
        "[Long-term Memory]\n## preferences\n- Prefers Python\n- Uses VS Code\n"
    )
    assert "\n\n[Recent Memory]\n- [" in context
    assert context.endswith("(context) Meeting at 3pm")
    recent = km.get_recent_entries()
    assert [e["content"] for e in recent] == [
        "Prefers Python",
        "Meeting at 3pm",
        "Uses VS Code",
        "Name: Alice",
    ]
    assert set(recent[0]) >= {"timestamp", "category", "content", "persistent"}
    assert recent[0]["timestamp"].endswith("Z")
    assert km.get_recent_entries(limit=1)[0]["content"] == "Name: Alice"
    km.clear_logs()
    assert km.get_recent_entries() == []
    assert "Prefers Python" in km.get_persistent_facts()["preferences"]
    assert "[Recent Memory]" not in km.build_context()
    km.clear()
    assert km.get_persistent_facts() == {} and km.build_context() == ""


def test_recall_by_words_category_and_importance(km):
    km.remember("Uses PostgreSQL for production databases", category="technical", importance=0.9)
    km.remember("Postgres upgrade planned", category="context", importance=0.2)
    km.remember("Likes green tea", category="personal", importance=0.6)
    found = km.recall("which databases in production?")
    assert [e.content for e in found] == ["Uses PostgreSQL for production databases"]
    assert [e.content for e in km.recall(category="personal")] == ["Likes green tea"]
    assert [e.content for e in km.recall(min_importance=0.5)] == [
        "Uses PostgreSQL for production databases",
        "Likes green tea",
    ]
    assert km.recall("volcano") == []


def test_ttl_and_importance_eviction(km):
    km.store.add(
        KnowledgeEntry(
            "expired note",
            ttl_days=1,
            timestamp=datetime.now(timezone.utc) - timedelta(days=2),
        )
    )
    km.remember("fresh note", ttl_days=1)
    assert [e["content"] for e in km.get_recent_entries()] == ["fresh note"]
    km.max_entries = 2
    km.remember("important", importance=0.9)
    km.remember("trivia", importance=0.1)
    km.remember("also important", importance=0.8)
    left = [e.content for e in km.entries()]
    assert "trivia" not in left and "important" in left and "also important" in left


def test_prune_keeps_long_term_facts(km):
    old = datetime.now(timezone.utc) - timedelta(days=40)
    km.store.add(KnowledgeEntry("ancient", "context", timestamp=old))
    km.store.add(KnowledgeEntry("ancient fact", "facts", persistent=True, timestamp=old))
    km.remember("today")
    assert km.prune_logs() >= 1
    assert [e["content"] for e in km.get_recent_entries(days=365)] == ["today"]
    assert km.get_persistent_facts() == {"facts": ["ancient fact"]}
    # a fact whose log line was pruned is still recalled
    assert [e.content for e in km.recall("ancient")] == ["ancient fact"]
    assert km.prune_logs(max_days=0) == 0  # today's log stays


def test_content_is_sanitized_before_storing(tmp_path):
    km = KnowledgeMemory(storage_dir=tmp_path)
    km.remember("Likes tea\n## hacked\n- injected\x00", category="pre#fs\n", persistent=True)
    text = (tmp_path / "MEMORY.md").read_text()
    assert text == "# Agent Memory\n\n## pre fs\n- Likes tea ## hacked - injected\n"
    assert km.get_persistent_facts() == {"pre fs": ["Likes tea ## hacked - injected"]}
    km.remember("x" * 5000)
    assert len(km.entries()[-1].content) == 2000
    with pytest.raises(ValueError, match="content is empty"):
        km.remember(" \n ")
    with pytest.raises(TypeError, match="content must be a string"):
        km.remember(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="importance"):
        km.remember("x", importance=2)


def test_file_layout_is_the_documented_one(tmp_path):
    km = KnowledgeMemory(storage_dir=tmp_path)
    km.remember("Preferred language: Python", category="preferences", persistent=True)
    day = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    lines = (tmp_path / "logs" / f"{day}.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    assert list(record)[:4] == ["timestamp", "category", "content", "persistent"]
    assert (record["category"], record["content"], record["persistent"]) == (
        "preferences",
        "Preferred language: Python",
        True,
    )
    assert (tmp_path / "MEMORY.md").read_text().startswith("# Agent Memory\n\n## preferences\n")


def test_quickstart_aliases(tmp_path):
    km = KnowledgeMemory(directory=tmp_path / "w", recent_days=2)
    km.store.add(
        KnowledgeEntry("three days ago", timestamp=datetime.now(timezone.utc) - timedelta(days=3))
    )
    km.remember("today")
    assert km.storage_dir == tmp_path / "w"
    assert "three days ago" not in km.build_context()
    assert "today" in km.build_context()


def test_unknown_backend_and_newer_store_are_clear_errors(tmp_path):
    with pytest.raises(
        UnknownBackendError, match=r"unknown backend 'mongo'.*'file', 'sqlite', 'redis', 'supabase'"
    ):
        KnowledgeMemory(storage_dir=tmp_path, backend="mongo")
    KnowledgeMemory(storage_dir=tmp_path).remember("x")
    (tmp_path / ".selectools-knowledge.json").write_text('{"format": 7}')
    with pytest.raises(StoreVersionError, match="format 7 by a newer selectools"):
        KnowledgeMemory(storage_dir=tmp_path)
    import sqlite3

    KnowledgeMemory(storage_dir=tmp_path / "s", backend="sqlite").remember("x")
    with sqlite3.connect(tmp_path / "s" / "knowledge.db") as conn:
        conn.execute("PRAGMA user_version=3")
    with pytest.raises(StoreVersionError):
        KnowledgeMemory(storage_dir=tmp_path / "s", backend="sqlite")


def test_newer_redis_store_is_refused(redis_server):
    import redis

    redis.Redis.from_url(redis_server).set("newer:format", 5)
    with pytest.raises(StoreVersionError, match="format 5"):
        KnowledgeMemory(backend="redis", redis_url=redis_server, redis_prefix="newer:")


def test_torn_log_line_is_skipped_and_the_next_write_starts_fresh(tmp_path):
    store = FileKnowledgeStore(tmp_path)
    km = KnowledgeMemory(store=store)
    km.remember("before")
    day = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    with open(tmp_path / "logs" / f"{day}.jsonl", "a") as log:
        log.write('{"timestamp": "2026-')  # what a killed writer could leave
    km.remember("after")
    assert [e.content for e in km.entries()] == ["before", "after"]
    assert store.skipped_lines == 1


def test_dataframe_and_html(tmp_path):
    km = KnowledgeMemory(storage_dir=tmp_path)
    km.remember("Prefers Python", category="preferences", persistent=True)
    km.remember("Meeting at 3pm", category="context")
    frame = km.to_dataframe()
    assert list(frame["content"]) == ["Prefers Python", "Meeting at 3pm"]
    assert list(frame["persistent"]) == [True, False]
    html = km._repr_html_()
    assert "1 long-term fact" in html and "2 log entries" in html and "Meeting at 3pm" in html


def test_supabase_speaks_postgrest_and_reports_server_errors(fake_supabase, monkeypatch):
    from selectools.knowledge import MemoryStoreError, SupabaseKnowledgeStore

    monkeypatch.delenv("SUPABASE_URL", raising=False)
    monkeypatch.delenv("SUPABASE_KEY", raising=False)
    with pytest.raises(ValueError, match="supabase_url= and supabase_key="):
        KnowledgeMemory(backend="supabase")
    monkeypatch.setenv("SUPABASE_URL", fake_supabase.url)
    monkeypatch.setenv("SUPABASE_KEY", fake_supabase.key)
    km = KnowledgeMemory(backend="supabase")
    assert isinstance(km.store, SupabaseKnowledgeStore)
    assert "service-key" not in repr(km.store)
    before = len(fake_supabase.requests)
    km.remember("Uses Postgres", category="technical", persistent=True)
    sent = fake_supabase.requests[before:]
    assert [m for m, _ in sent] == ["POST", "POST"]
    assert sent[1][1] == "/rest/v1/selectools_knowledge_facts?on_conflict=category,content"
    wrong = SupabaseKnowledgeStore(fake_supabase.url, "not-the-key")
    with pytest.raises(MemoryStoreError, match=r"HTTP 401: .*Invalid API key"):
        wrong.facts()
    missing = SupabaseKnowledgeStore(fake_supabase.url, fake_supabase.key, table="nope")
    with pytest.raises(MemoryStoreError, match=r"HTTP 404: .*relation .*nope.* does not exist"):
        missing.entries()
    gone = SupabaseKnowledgeStore("http://127.0.0.1:9", "k")
    with pytest.raises(MemoryStoreError, match="unreachable"):
        gone.facts()
