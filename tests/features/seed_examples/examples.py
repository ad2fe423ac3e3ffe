"""Verbatim copies of the seed docs' code examples for memory, sessions and budgets.

Pages (seed ``004_36549ee0d6c5d6f0.txt``): MEMORY (lines 6624-7128), SESSIONS
(10600-11125) and BUDGET (16262-16353). ``line`` is the line of the opening
``` fence; the code is the block that follows, unchanged. The examples of the
AGENT, QUICKSTART and USAGE pages for these features are in tests/seed_examples/.

``kind``: ``runs`` executes as written; ``fragment`` needs names the page
defines elsewhere or leaves to the reader, which ``prelude`` supplies (an
offline provider, a store, a filled memory), and ``fill`` lists the exact
replacements of a ``...`` placeholder; ``server`` builds a network provider: it runs against a
``selectools.testing.FakeLLMServer`` (the provider's environment variables point
at it, ``script`` lists the scripted replies, ``fake_server`` is in the
namespace for the epilogue); ``skip`` cannot run here (``reason``).
``epilogue`` exercises what the example defines (and asserts on it);
``stdout`` lists text the printed output must contain; ``after`` names an
example run first in the same namespace, as in a notebook.
"""

from __future__ import annotations

from dataclasses import dataclass

SEED = "004_36549ee0d6c5d6f0.txt"


@dataclass(frozen=True)
class SeedExample:
    id: str
    line: int
    kind: str
    code: str
    prelude: str = ""
    fill: tuple[tuple[str, str], ...] = ()
    epilogue: str = ""
    stdout: tuple[str, ...] = ()
    after: str = ""
    reason: str = ""
    note: str = ""
    script: tuple[str, ...] = ()

    @property
    def source(self) -> str:
        """The copied block exactly (without the newlines that open and close the literal)."""
        return self.code[1:-1]

    def filled(self) -> str:
        code = self.source
        for old, new in self.fill:
            assert old in code, f"{self.id}: {old!r} is not in the example"
            code = code.replace(old, new)
        return code


EXAMPLES: list[SeedExample] = [
    SeedExample(
        id="memory-configuration",
        line=6662,
        kind="fragment",
        prelude=r"""
from selectools import Agent, AgentConfig, ConversationMemory, Message, Role
""",
        code=r"""
memory = ConversationMemory(
    max_messages=20,    # Keep last 20 messages
    max_tokens=4000     # Optional token-based limit
)
""",
        epilogue=r"""
assert (memory.max_messages, memory.max_tokens) == (20, 4000)
""",
    ),
    SeedExample(
        id="memory-observer-notifications",
        line=6718,
        kind="runs",
        code=r"""
from selectools import AgentObserver

class MemoryWatcher(AgentObserver):
    def on_memory_trim(self, run_id, messages_removed, messages_remaining, reason):
        print(f"[{run_id}] Trimmed {messages_removed} messages, {messages_remaining} remaining")
""",
        epilogue=r"""
from selectools import Agent, AgentConfig, ConversationMemory
from selectools.testing import ScriptedProvider
agent = Agent(provider=ScriptedProvider(default='ok'), memory=ConversationMemory(max_messages=2),
              config=AgentConfig(observers=[MemoryWatcher()]))
agent.run('one')
agent.run('two')
""",
        stdout=("Trimmed 1 messages, 2 remaining",),
    ),
    SeedExample(
        id="memory-with-memory",
        line=6761,
        kind="fragment",
        prelude=r"""
from selectools.providers.stubs import LocalProvider

provider = LocalProvider()
""",
        fill=(("tools=[...]", "tools=[]"),),
        code=r"""
from selectools import Agent, ConversationMemory, Message, Role

memory = ConversationMemory(max_messages=20)
agent = Agent(tools=[...], provider=provider, memory=memory)

# Turn 1
response1 = agent.run([
    Message(role=Role.USER, content="My name is Alice")
])

# Turn 2 - Context preserved
response2 = agent.run([
    Message(role=Role.USER, content="What's my name?")
])
# Agent knows: "Alice"
""",
        epilogue=r"""
assert [m.content for m in memory.get_history()] == [
    "My name is Alice", "My name is Alice", "What's my name?", "What's my name?"
]
""",
    ),
    SeedExample(
        id="memory-without-memory",
        line=6796,
        kind="fragment",
        prelude=r"""
from selectools import Agent, AgentConfig, ConversationMemory, Message, Role
from selectools.providers.stubs import LocalProvider

provider = LocalProvider()
""",
        fill=(("tools=[...]", "tools=[]"),),
        code=r"""
agent = Agent(tools=[...], provider=provider)  # No memory

# Each call is independent
response1 = agent.run([Message(role=Role.USER, content="My name is Alice")])
response2 = agent.run([Message(role=Role.USER, content="What's my name?")])
# Agent doesn't know - no memory
""",
        epilogue=r"""
assert response2.content == "What's my name?"  # the echo stub saw only this turn
""",
    ),
    SeedExample(
        id="memory-serialization-usage",
        line=6879,
        kind="fragment",
        prelude=r"""
from selectools import ConversationMemory, Message, Role

memory = ConversationMemory(max_messages=20)
memory.add_many([Message(role=Role.USER, content=f'note {i}') for i in range(7)])
memory.summary = 'The user introduced themselves as Alice.'
""",
        code=r"""
import json

# Save
with open("conversation.json", "w") as f:
    json.dump(memory.to_dict(), f)

# Restore
with open("conversation.json", "r") as f:
    data = json.load(f)
    memory = ConversationMemory.from_dict(data)

# Summary is preserved
print(memory.summary)  # Restored if present
""",
        epilogue=r"""
assert len(memory.get_history()) == 7 and memory.summary.startswith('The user')
""",
        stdout=("The user introduced themselves as Alice.",),
    ),
    SeedExample(
        id="memory-summarize-on-trim-configuration",
        line=6913,
        kind="fragment",
        prelude=r"""
from selectools.testing import ScriptedProvider

provider = ScriptedProvider(default='Alice asked about the weather.')
""",
        fill=(("tools=[...]", "tools=[]"),),
        code=r"""
from selectools import Agent, AgentConfig, ConversationMemory

memory = ConversationMemory(max_messages=30)
agent = Agent(
    tools=[...], provider=provider, memory=memory,
    config=AgentConfig(
        summarize_on_trim=True,
        summarize_provider=provider,       # Provider for summarization
        summarize_model="gpt-4o-mini",     # Use a cheap/fast model
        summarize_max_tokens=150,          # Max tokens for the summary
    ),
)
""",
        epilogue=r"""
for i in range(20):
    agent.run(f'turn {i}')
assert memory.summary == 'Alice asked about the weather.'
""",
    ),
    SeedExample(
        id="memory-summary-persistence",
        line=6951,
        kind="fragment",
        prelude=r"""
from selectools import ConversationMemory, Message, Role

memory = ConversationMemory(max_messages=20)
memory.add_many([Message(role=Role.USER, content=f'note {i}') for i in range(7)])
memory.summary = 'The user introduced themselves as Alice.'
""",
        code=r"""
data = memory.to_dict()
# data["summary"] contains the current summary string (or None)

restored = ConversationMemory.from_dict(data)
print(restored.summary)  # Summary is preserved
""",
        stdout=("The user introduced themselves as Alice.",),
    ),
    SeedExample(
        id="memory-choose-limits",
        line=6965,
        kind="fragment",
        prelude=r"""
from selectools import Agent, AgentConfig, ConversationMemory, Message, Role
""",
        code=r"""
# Short interactions (Q&A bot)
memory = ConversationMemory(max_messages=10)

# Standard conversations
memory = ConversationMemory(max_messages=20)

# Long-form dialogues
memory = ConversationMemory(max_messages=50)
""",
    ),
    SeedExample(
        id="memory-token-limits",
        line=6978,
        kind="fragment",
        prelude=r"""
from selectools import Agent, AgentConfig, ConversationMemory, Message, Role
""",
        code=r"""
# Limit by tokens to prevent large prompts
memory = ConversationMemory(
    max_messages=100,     # High message count
    max_tokens=4000       # But limit tokens
)
""",
    ),
    SeedExample(
        id="memory-clear",
        line=6988,
        kind="fragment",
        prelude=r"""
from selectools import ConversationMemory, Message, Role

memory = ConversationMemory(max_messages=20)
memory.add_many([Message(role=Role.USER, content=f'note {i}') for i in range(7)])
memory.summary = 'The user introduced themselves as Alice.'
""",
        code=r"""
# Start fresh conversation
memory.clear()
""",
        epilogue=r"""
assert memory.get_history() == []
""",
    ),
    SeedExample(
        id="memory-get-recent",
        line=6995,
        kind="fragment",
        prelude=r"""
from selectools import ConversationMemory, Message, Role

memory = ConversationMemory(max_messages=20)
memory.add_many([Message(role=Role.USER, content=f'note {i}') for i in range(7)])
memory.summary = 'The user introduced themselves as Alice.'
""",
        code=r"""
# Get last 5 messages for display
recent = memory.get_recent(5)
for msg in recent:
    print(f"{msg.role}: {msg.content}")
""",
        stdout=("user: note 6",),
    ),
    SeedExample(
        id="memory-serialize-and-restore",
        line=7004,
        kind="fragment",
        prelude=r"""
from selectools import ConversationMemory, Message, Role

memory = ConversationMemory(max_messages=20)
memory.add_many([Message(role=Role.USER, content=f'note {i}') for i in range(7)])
memory.summary = 'The user introduced themselves as Alice.'
""",
        code=r"""
import json

# Save conversation
with open("conversation.json", "w") as f:
    json.dump(memory.to_dict(), f)

# Restore conversation (preserves summary and all messages)
with open("conversation.json", "r") as f:
    data = json.load(f)
    memory = ConversationMemory.from_dict(data)
""",
        epilogue=r"""
assert len(memory.get_history()) == 7
""",
    ),
    SeedExample(
        id="memory-testing",
        line=7021,
        kind="fragment",
        prelude=r"""
from selectools import Agent, AgentConfig, ConversationMemory, Message, Role
from selectools.providers.stubs import LocalProvider
""",
        fill=(("tools=[...]", "tools=[]"),),
        code=r"""
def test_memory_sliding_window():
    memory = ConversationMemory(max_messages=3)

    # Add 5 messages
    for i in range(5):
        memory.add(Message(role=Role.USER, content=f"Message {i}"))

    # Should only keep last 3
    history = memory.get_history()
    assert len(history) == 3
    assert history[0].content == "Message 2"
    assert history[2].content == "Message 4"

def test_memory_with_agent():
    memory = ConversationMemory(max_messages=10)
    agent = Agent(tools=[...], provider=LocalProvider(), memory=memory)

    # First turn
    agent.run([Message(role=Role.USER, content="Hello")])
    assert len(memory.get_history()) > 0

    # Second turn
    agent.run([Message(role=Role.USER, content="Goodbye")])
    assert len(memory.get_history()) > 1
""",
        epilogue=r"""
test_memory_sliding_window()
test_memory_with_agent()
""",
    ),
    SeedExample(
        id="memory-pitfall-sharing",
        line=7054,
        kind="fragment",
        prelude=r"""
from selectools import Agent, AgentConfig, ConversationMemory, Message, Role
""",
        fill=(("Agent(...,", "Agent(tools=[],"),),
        code=r"""
# ❌ Bad - Each agent has separate memory
agent1 = Agent(..., memory=ConversationMemory())
agent2 = Agent(..., memory=ConversationMemory())

# ✅ Good - Shared memory
memory = ConversationMemory()
agent1 = Agent(..., memory=memory)
agent2 = Agent(..., memory=memory)
""",
        epilogue=r"""
assert agent1.memory is agent2.memory
""",
    ),
    SeedExample(
        id="memory-pitfall-clearing",
        line=7067,
        kind="runs",
        code=r"""
# ❌ Bad - User A sees User B's history
def handle_user_a():
    agent.run([...])

def handle_user_b():
    agent.run([...])  # Sees User A's messages!

# ✅ Good - Clear between users
def handle_user(user_id):
    if user_id != previous_user:
        memory.clear()
    agent.run([...])
""",
    ),
    SeedExample(
        id="memory-pitfall-limits",
        line=7084,
        kind="fragment",
        prelude=r"""
from selectools import Agent, AgentConfig, ConversationMemory, Message, Role
""",
        code=r"""
# ❌ Bad - Forgets context quickly
memory = ConversationMemory(max_messages=2)

# ✅ Good - Reasonable context
memory = ConversationMemory(max_messages=20)
""",
    ),
    SeedExample(
        id="sessions-quick-start",
        line=10641,
        kind="server",
        script=('"Nice to meet you, Alice."', '"Your name is Alice."'),
        code=r"""
from selectools import Agent, AgentConfig, OpenAIProvider, ConversationMemory, Message, Role
from selectools.sessions import JsonFileSessionStore

# Create a file-backed session store
session_store = JsonFileSessionStore(directory="./sessions")

# Configure agent with session support
agent = Agent(
    tools=[],
    provider=OpenAIProvider(),
    memory=ConversationMemory(max_messages=50),
    config=AgentConfig(
        session_store=session_store,
        session_id="user-alice-001",
    ),
)

# First run -- conversation is auto-saved after completion
result = agent.run([Message(role=Role.USER, content="My name is Alice.")])

# Later (even after restart) -- session auto-loads on init
agent2 = Agent(
    tools=[],
    provider=OpenAIProvider(),
    memory=ConversationMemory(max_messages=50),
    config=AgentConfig(
        session_store=session_store,
        session_id="user-alice-001",  # same ID resumes session
    ),
)

result = agent2.run([Message(role=Role.USER, content="What is my name?")])
# Agent remembers: "Alice"
""",
        epilogue=r"""
import json

# agent2 is a new agent with an empty memory: what it sends comes from the session
first, second = fake_server.requests
sent = json.dumps(second.json["messages"])
assert "My name is Alice." in sent and "Nice to meet you, Alice." in sent, sent
assert "What is my name?" not in json.dumps(first.json["messages"])
assert result.content == "Your name is Alice."
assert [m.content for m in agent2.memory.get_history()][:2] == [
    "My name is Alice.", "Nice to meet you, Alice."]
""",
    ),
    SeedExample(
        id="sessions-protocol",
        line=10683,
        kind="runs",
        code=r'''
from typing import Protocol, Optional, List, Dict, Any

class SessionStore(Protocol):
    def save(self, session_id: str, data: Dict[str, Any]) -> None:
        """Persist session data under the given ID."""
        ...

    def load(self, session_id: str) -> Optional[Dict[str, Any]]:
        """Load session data by ID. Returns None if not found or expired."""
        ...

    def exists(self, session_id: str) -> bool:
        """Check whether a session exists and has not expired."""
        ...

    def delete(self, session_id: str) -> None:
        """Delete a session by ID. No-op if it does not exist."""
        ...

    def list_sessions(self) -> List[str]:
        """Return all non-expired session IDs."""
        ...
''',
        epilogue=r"""
from selectools.sessions import JsonFileSessionStore, RedisSessionStore, SQLiteSessionStore
for store_class in (JsonFileSessionStore, SQLiteSessionStore, RedisSessionStore):
    for name in ('save', 'load', 'exists', 'delete', 'list_sessions'):
        assert callable(getattr(store_class, name)), (store_class, name)
""",
    ),
    SeedExample(
        id="sessions-data-format",
        line=10712,
        kind="runs",
        code=r"""
{
    "session_id": "user-alice-001",
    "messages": [                        # ConversationMemory contents
        {"role": "user", "content": "My name is Alice."},
        {"role": "assistant", "content": "Hello Alice!"},
    ],
    "metadata": {                        # Arbitrary user-defined metadata
        "user_id": "alice",
        "started_at": "2026-03-13T10:00:00Z",
    },
    "created_at": "2026-03-13T10:00:00Z",
    "updated_at": "2026-03-13T10:05:00Z",
}
""",
    ),
    SeedExample(
        id="sessions-json-store",
        line=10738,
        kind="runs",
        code=r"""
from selectools.sessions import JsonFileSessionStore

store = JsonFileSessionStore(
    directory="./sessions",    # directory for session files
    ttl_seconds=86400,         # expire after 24 hours (optional)
)

# Files created: ./sessions/user-alice-001.json
""",
        epilogue=r"""
store.save('user-alice-001', {'messages': []})
import os
assert os.path.exists('./sessions/user-alice-001.json')
""",
    ),
    SeedExample(
        id="sessions-sqlite-store",
        line=10762,
        kind="runs",
        code=r"""
from selectools.sessions import SQLiteSessionStore

store = SQLiteSessionStore(
    db_path="./sessions.db",   # SQLite database path
    ttl_seconds=604800,        # expire after 7 days (optional)
)
""",
    ),
    SeedExample(
        id="sessions-redis-store",
        line=10793,
        kind="runs",
        note="only builds the store: redis-py connects on first use",
        code=r"""
from selectools.sessions import RedisSessionStore

store = RedisSessionStore(
    url="redis://localhost:6379/0",  # Redis connection URL
    prefix="selectools:session:",    # key prefix (default)
    ttl_seconds=3600,                # expire after 1 hour (optional)
)
""",
    ),
    SeedExample(
        id="sessions-ttl",
        line=10822,
        kind="fragment",
        prelude=r"""
from selectools.sessions import JsonFileSessionStore, RedisSessionStore, SQLiteSessionStore
""",
        code=r"""
# Session expires 1 hour after last update
store = JsonFileSessionStore(directory="./sessions", ttl_seconds=3600)

store.save("s1", {"messages": []})

# Within 1 hour:
store.load("s1")      # Returns session data
store.exists("s1")     # True

# After 1 hour with no update:
store.load("s1")      # Returns None
store.exists("s1")     # False
store.list_sessions()  # Does not include "s1"
""",
        epilogue=r"""
assert store.exists('s1')  # well within the hour
""",
    ),
    SeedExample(
        id="sessions-agent-configuration",
        line=10856,
        kind="server",
        fill=(("tools=[...]", "tools=[]"),),
        script=('"Hello!"',),
        code=r"""
from selectools import Agent, AgentConfig, OpenAIProvider, ConversationMemory
from selectools.sessions import SQLiteSessionStore

store = SQLiteSessionStore(db_path="sessions.db")

agent = Agent(
    tools=[...],
    provider=OpenAIProvider(),
    memory=ConversationMemory(max_messages=50),
    config=AgentConfig(
        session_store=store,
        session_id="thread-abc-123",
    ),
)
""",
        epilogue=r"""
agent.run("Hi")
saved = store.load("thread-abc-123")
assert [m["content"] for m in saved["messages"]] == ["Hi", "Hello!"], saved
""",
    ),
    SeedExample(
        id="sessions-metadata",
        line=10904,
        kind="server",
        prelude=r"""
from selectools import Agent, AgentConfig, ConversationMemory, OpenAIProvider
from selectools.sessions import SQLiteSessionStore

store = SQLiteSessionStore(db_path="sessions.db")
""",
        fill=(("tools=[...]", "tools=[]"),),
        script=('"Hello!"',),
        code=r"""
agent = Agent(
    tools=[...],
    provider=OpenAIProvider(),
    memory=ConversationMemory(),
    config=AgentConfig(
        session_store=store,
        session_id="user-42",
        session_metadata={
            "user_id": "42",
            "channel": "web",
            "created_at": "2026-03-13T10:00:00Z",
        },
    ),
)
""",
        epilogue=r"""
agent.run("Hi")
metadata = store.load("user-42")["metadata"]
assert {k: metadata[k] for k in ("user_id", "channel", "created_at")} == {
    "user_id": "42", "channel": "web", "created_at": "2026-03-13T10:00:00Z"}, metadata
""",
    ),
    SeedExample(
        id="sessions-observer-events",
        line=10929,
        kind="runs",
        code=r"""
from selectools import AgentObserver

class SessionWatcher(AgentObserver):
    def on_session_load(self, run_id: str, session_id: str, message_count: int) -> None:
        print(f"[{run_id}] Loaded session '{session_id}' with {message_count} messages")

    def on_session_save(self, run_id: str, session_id: str, message_count: int) -> None:
        print(f"[{run_id}] Saved session '{session_id}' with {message_count} messages")
""",
        epilogue=r"""
from selectools.sessions import JsonFileSessionStore, RedisSessionStore, SQLiteSessionStore
from selectools import Agent, AgentConfig
from selectools.testing import ScriptedProvider
config = AgentConfig(session_store=JsonFileSessionStore('./watched'), session_id='s1',
                     observers=[SessionWatcher()])
Agent(provider=ScriptedProvider(default='hi'), config=config).run('hello')
Agent(provider=ScriptedProvider(default='hi'), config=config).run('again')
""",
        stdout=(
            "Saved session 's1' with 2 messages",
            "Loaded session 's1' with 2 messages",
            "Saved session 's1' with 4 messages",
        ),
    ),
    SeedExample(
        id="sessions-meaningful-ids",
        line=10976,
        kind="fragment",
        prelude=r"""
import uuid

user_id, conversation_id = 42, 'c7'
""",
        code=r"""
# Good -- traceable, unique per conversation
session_id = f"user-{user_id}-{conversation_id}"

# Bad -- opaque, hard to debug
session_id = str(uuid.uuid4())
""",
        epilogue=r"""
assert len(session_id) == 36
""",
    ),
    SeedExample(
        id="sessions-production-ttl",
        line=10986,
        kind="fragment",
        prelude=r"""
from selectools.sessions import JsonFileSessionStore, RedisSessionStore, SQLiteSessionStore
""",
        code=r"""
# Expire idle sessions after 7 days
store = SQLiteSessionStore(db_path="sessions.db", ttl_seconds=604800)
""",
        epilogue=r"""
assert store.ttl_seconds == 604800
""",
    ),
    SeedExample(
        id="sessions-missing",
        line=10993,
        kind="fragment",
        prelude=r"""
from selectools.sessions import JsonFileSessionStore, RedisSessionStore, SQLiteSessionStore
store = SQLiteSessionStore(db_path='sessions.db')
""",
        code=r"""
data = store.load("nonexistent-session")
if data is None:
    # Start fresh -- agent does this automatically
    pass
""",
    ),
    SeedExample(
        id="sessions-list-and-delete",
        line=11002,
        kind="fragment",
        prelude=r"""
from selectools.sessions import JsonFileSessionStore, RedisSessionStore, SQLiteSessionStore
store = JsonFileSessionStore(directory='./sessions')
store.save('user-alice-001', {'messages': []})
store.save('user-bob-002', {'messages': []})
""",
        code=r"""
# List all active sessions
for sid in store.list_sessions():
    print(sid)

# Delete a specific session
store.delete("user-alice-001")
""",
        epilogue=r"""
assert store.list_sessions() == ['user-bob-002']
""",
        stdout=("user-alice-001", "user-bob-002"),
    ),
    SeedExample(
        id="sessions-environments",
        line=11013,
        kind="fragment",
        prelude=r"""
from selectools.sessions import JsonFileSessionStore, RedisSessionStore, SQLiteSessionStore
ENV = 'production'
REDIS_URL = 'redis://localhost:6379/0'
""",
        code=r"""
if ENV == "development":
    store = JsonFileSessionStore(directory="./dev-sessions")
elif ENV == "production":
    store = RedisSessionStore(url=REDIS_URL, ttl_seconds=86400)
""",
        epilogue=r"""
assert isinstance(store, RedisSessionStore) and store.ttl_seconds == 86400
""",
    ),
    SeedExample(
        id="sessions-testing",
        line=11024,
        kind="fragment",
        note="test_session_ttl_expiry sleeps 2 s; the store lives in the test's own directory",
        fill=(("/tmp/test-sessions", "./test-sessions"),),
        prelude=r"""
from selectools.sessions import JsonFileSessionStore, RedisSessionStore, SQLiteSessionStore
from selectools import Agent, AgentConfig, ConversationMemory, Message, Role
from selectools.providers.stubs import LocalProvider
""",
        code=r"""
def test_session_roundtrip():
    store = JsonFileSessionStore(directory="/tmp/test-sessions")

    store.save("s1", {
        "messages": [{"role": "user", "content": "Hello"}],
        "metadata": {"user": "test"},
    })

    assert store.exists("s1")
    data = store.load("s1")
    assert data is not None
    assert len(data["messages"]) == 1
    assert data["messages"][0]["content"] == "Hello"

    store.delete("s1")
    assert not store.exists("s1")


def test_session_ttl_expiry():
    store = JsonFileSessionStore(
        directory="/tmp/test-sessions",
        ttl_seconds=1,  # 1-second TTL for testing
    )

    store.save("s1", {"messages": []})
    assert store.exists("s1")

    import time
    time.sleep(2)

    assert not store.exists("s1")
    assert store.load("s1") is None


def test_agent_with_sessions():
    store = JsonFileSessionStore(directory="/tmp/test-sessions")
    memory = ConversationMemory(max_messages=20)

    agent = Agent(
        tools=[],
        provider=LocalProvider(),
        memory=memory,
        config=AgentConfig(
            session_store=store,
            session_id="test-session",
        ),
    )

    agent.run([Message(role=Role.USER, content="Hello")])
    assert store.exists("test-session")

    # New agent with same session ID loads history
    agent2 = Agent(
        tools=[],
        provider=LocalProvider(),
        memory=ConversationMemory(max_messages=20),
        config=AgentConfig(
            session_store=store,
            session_id="test-session",
        ),
    )

    history = agent2.memory.get_history()
    assert len(history) > 0
""",
        epilogue=r"""
test_session_roundtrip()
test_session_ttl_expiry()
test_agent_with_sessions()
""",
    ),
    SeedExample(
        id="budget-quick-start",
        line=16278,
        kind="fragment",
        prelude=r'''
from selectools import UsageStats, tool
from selectools.testing import ScriptedProvider, reply, tool_call

@tool()
def analyze(part: int) -> str:
    """Analyze one part of the dataset."""
    return f'part {part} done'

def _turn(request):
    usage = UsageStats(prompt_tokens=18_000, completion_tokens=2_000, cost_usd=0.05, model='m')
    return reply('still analyzing', tool_call('analyze', part=len(request.messages)), usage=usage)

provider = ScriptedProvider(_turn)
''',
        fill=(("tools=[...]", "tools=[analyze]"),),
        code=r"""
from selectools import Agent, AgentConfig

config = AgentConfig(
    max_total_tokens=50000,  # stop after 50k cumulative tokens
    max_cost_usd=0.20,       # stop after $0.20 cumulative cost
    max_iterations=12,       # existing iteration limit still applies
)

agent = Agent(tools=[...], provider=provider, config=config)
result = agent.run("Analyze this dataset")

# Check if budget was the reason for stopping
if "budget exceeded" in result.content.lower():
    print(f"Stopped early — used {result.usage.total_tokens} tokens, ${result.usage.total_cost_usd:.4f}")
""",
        stdout=("Stopped early — used 60000 tokens, $0.1500",),
    ),
    SeedExample(
        id="budget-observer",
        line=16322,
        kind="fragment",
        prelude=r"""
import logging

log = logging.getLogger('budget')
""",
        code=r"""
from selectools import AgentObserver

class MyObserver(AgentObserver):
    def on_budget_exceeded(self, run_id: str, reason: str, tokens_used: int, cost_used: float):
        log.warning(f"Budget exceeded: {reason} (tokens={tokens_used}, cost=${cost_used:.4f})")
""",
        epilogue=r'''
import logging as _logging

from selectools import Agent, AgentConfig, UsageStats
from selectools import tool as _tool
from selectools.testing import ScriptedProvider, reply, tool_call

_seen = []


class _Keep(_logging.Handler):
    def emit(self, record):
        _seen.append(record.getMessage())


log.addHandler(_Keep())
log.propagate = False


@_tool()
def step(n: int) -> str:
    """One step of the work."""
    return "ok"


_usage = UsageStats(prompt_tokens=900, completion_tokens=100, cost_usd=0.01)
_provider = ScriptedProvider([reply("", tool_call("step", n=1), usage=_usage)])
_config = AgentConfig(max_total_tokens=500, observers=[MyObserver()])
Agent(tools=[step], provider=_provider, config=_config).run("go")
assert _seen == ["Budget exceeded: Token budget exceeded: 1000/500 tokens (tokens=1000, cost=$0.0100)"]
''',
    ),
    SeedExample(
        id="budget-trace-step",
        line=16334,
        kind="fragment",
        after="budget-quick-start",
        code=r"""
for step in result.trace.steps:
    if step.type == "budget_exceeded":
        print(step.summary)  # "Token budget exceeded: 53000/50000 tokens"
""",
        stdout=("Token budget exceeded: 60000/50000 tokens",),
    ),
]

BY_ID = {example.id: example for example in EXAMPLES}
