"""ConversationMemory: limits, tool-pair-aware trimming, persistence, and its use by the agent."""

import asyncio
import json
import threading

import pytest

from selectools import (
    Agent,
    AgentConfig,
    AgentObserver,
    ConversationMemory,
    Message,
    ProviderError,
    Role,
    ToolCall,
    tool,
)
from selectools.testing import ScriptedProvider, tool_call


def user(text):
    return Message(role=Role.USER, content=text)


def assistant(text, *calls):
    return Message(role=Role.ASSISTANT, content=text, tool_calls=list(calls) or None)


def tool_result(text, call_id="c1"):
    return Message(role=Role.TOOL, content=text, tool_name="t", tool_call_id=call_id)


def call(call_id="c1"):
    return ToolCall("t", {"x": 1}, id=call_id)


def texts(memory):
    return [m.text for m in memory.get_history()]


# -- construction and reading ---------------------------------------------------
def test_validation_messages():
    for kwargs, message in [
        ({"max_messages": 0}, "max_messages must be at least 1"),
        ({"max_tokens": 0}, "max_tokens must be at least 1"),
    ]:
        with pytest.raises(ValueError, match=message):
            ConversationMemory(**kwargs)
    with pytest.raises(TypeError):
        ConversationMemory(max_messages="20")
    with pytest.raises(ValueError, match="n must be at least 1"):
        ConversationMemory().get_recent(0)
    with pytest.raises(TypeError, match="Message objects"):
        ConversationMemory().add("hello")


def test_sliding_window_keeps_the_newest():
    memory = ConversationMemory(max_messages=3)
    for i in range(5):
        memory.add(user(f"Message {i}"))
    assert texts(memory) == ["Message 2", "Message 3", "Message 4"]
    assert [m.text for m in memory._last_trimmed] == ["Message 1"]
    assert [m.text for m in memory.get_recent(2)] == ["Message 3", "Message 4"]
    assert len(memory.get_recent(10)) == 3


def test_get_history_is_a_copy():
    memory = ConversationMemory()
    memory.add(user("a"))
    memory.get_history().append(user("b"))
    memory.get_recent(1).clear()
    assert texts(memory) == ["a"]


def test_add_many_trims_once():
    memory = ConversationMemory(max_messages=2)
    memory.add_many([user("a"), assistant("b"), user("c"), assistant("d")])
    assert texts(memory) == ["c", "d"]
    assert [m.text for m in memory._last_trimmed] == ["a", "b"]
    memory.add(user("e"))
    assert [m.text for m in memory._last_trimmed] == ["c"]


def test_token_limit_drops_oldest_but_keeps_one():
    memory = ConversationMemory(max_messages=100, max_tokens=10)
    memory.add(user("x" * 20))  # 5 tokens
    memory.add(user("y" * 20))  # 10 in total: fits
    assert len(memory) == 2
    memory.add(user("z" * 8))  # 12 > 10: the oldest goes
    assert texts(memory) == ["y" * 20, "z" * 8]
    memory.add(user("w" * 200))  # alone above the limit: still kept
    assert texts(memory) == ["w" * 200]


def test_count_limit_applies_before_the_token_limit():
    memory = ConversationMemory(max_messages=2, max_tokens=3)
    memory.add_many([user("a" * 8), user("b" * 8), user("c" * 8)])
    # the count trim keeps b, c (2 tokens each); the token trim then drops b
    assert texts(memory) == ["c" * 8]
    assert [m.text for m in memory._last_trimmed] == ["a" * 8, "b" * 8]


# -- tool-pair boundaries -------------------------------------------------------
def test_window_never_starts_with_an_orphaned_tool_result():
    memory = ConversationMemory(max_messages=3)
    memory.add_many([user("q"), assistant("", call()), tool_result("r"), user("next")])
    # the count trim leaves [assistant-call, tool, user]: both tool turns go
    assert texts(memory) == ["next"]
    assert [m.role for m in memory._last_trimmed] == [Role.USER, Role.ASSISTANT, Role.TOOL]


def test_window_never_starts_with_a_tool_calling_assistant():
    memory = ConversationMemory(max_messages=4)
    memory.add_many(
        [user("q"), assistant("", call("a"), call("b")), tool_result("ra", "a"), tool_result("rb", "b"),
         user("u2")]
    )  # fmt: skip
    assert [m.role for m in memory.get_history()] == [Role.USER]


def test_an_orphan_is_dropped_even_if_nothing_is_left():
    memory = ConversationMemory(max_messages=1)
    memory.add(user("q"))
    memory.add(assistant("", call()))
    assert len(memory) == 0
    memory.add(tool_result("r"))
    assert len(memory) == 0
    memory.add(assistant("plain answer"))
    assert texts(memory) == ["plain answer"]


def test_intact_pairs_after_a_user_message_are_kept():
    memory = ConversationMemory(max_messages=4)
    memory.add_many(
        [user("old"), user("q"), assistant("", call()), tool_result("r"), assistant("done")]
    )
    assert [m.role for m in memory.get_history()] == [
        Role.USER,
        Role.ASSISTANT,
        Role.TOOL,
        Role.ASSISTANT,
    ]


# -- persistence ---------------------------------------------------------------
def test_to_dict_has_exactly_the_documented_keys():
    memory = ConversationMemory(max_messages=5, max_tokens=100)
    memory.add(user("hi"))
    memory.summary = "earlier: greetings"
    data = memory.to_dict()
    assert set(data) == {"max_messages", "max_tokens", "message_count", "messages", "summary"}
    assert data["message_count"] == 1 and data["summary"] == "earlier: greetings"
    json.dumps(data)


def test_from_dict_restores_everything_without_trimming():
    memory = ConversationMemory(max_messages=10)
    memory.add_many([user(f"m{i}") for i in range(6)])
    memory.summary = "s"
    data = json.loads(json.dumps(memory.to_dict()))
    data["max_messages"] = 2  # fewer than stored: nothing may be dropped on load
    restored = ConversationMemory.from_dict(data)
    assert texts(restored) == [f"m{i}" for i in range(6)]
    assert restored.max_messages == 2 and restored.summary == "s"
    assert restored._last_trimmed == []


def test_from_dict_fixes_the_boundary_and_rejects_garbage():
    data = {
        "max_messages": 5,
        "max_tokens": None,
        "messages": [tool_result("orphan").to_dict(), user("q").to_dict()],
        "summary": None,
    }
    assert texts(ConversationMemory.from_dict(data)) == ["q"]
    with pytest.raises(ValueError, match="'max_messages' and 'messages'"):
        ConversationMemory.from_dict({"messages": []})
    with pytest.raises(TypeError):
        ConversationMemory.from_dict([1, 2])


def test_clear_forgets_messages_and_summary():
    memory = ConversationMemory()
    memory.add(user("a"))
    memory.summary = "s"
    memory.clear()
    assert len(memory) == 0 and memory.summary is None
    with pytest.raises(TypeError):
        memory.summary = 3


def test_concurrent_adds_lose_nothing():
    memory = ConversationMemory(max_messages=10_000)

    def worker(n):
        for i in range(500):
            memory.add(user(f"{n}-{i}"))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(memory) == 2000


# -- with the agent --------------------------------------------------------------
class TrimWatcher(AgentObserver):
    def __init__(self):
        self.trims = []
        self.summaries = []

    def on_memory_trim(self, run_id, messages_removed, messages_remaining, reason):
        self.trims.append((messages_removed, messages_remaining, reason))

    def on_memory_summarize(self, run_id, summary, messages_summarized):
        self.summaries.append((summary, messages_summarized))


def test_second_run_sees_the_first_turn_only_with_memory():
    provider = ScriptedProvider(default="noted")
    agent = Agent(provider=provider, memory=ConversationMemory())
    agent.run("My name is Alice")
    agent.run("What's my name?")
    assert [m.text for m in provider.requests[1].messages] == [
        "My name is Alice", "noted", "What's my name?"
    ]  # fmt: skip
    bare = ScriptedProvider(default="?")
    plain = Agent(provider=bare)
    plain.run("My name is Alice")
    plain.run("What's my name?")
    assert [m.text for m in bare.requests[1].messages] == ["What's my name?"]


@tool()
def lookup(q: str) -> str:
    """Look up."""
    return f"found {q}"


def test_tool_turns_are_remembered_in_pairs_and_trims_are_reported():
    watcher = TrimWatcher()
    memory = ConversationMemory(max_messages=3)
    provider = ScriptedProvider([tool_call("lookup", q="a"), "answer a", "second"], default="later")
    agent = Agent(tools=[lookup], provider=provider, memory=memory,
                  config=AgentConfig(observers=[watcher]))  # fmt: skip
    agent.run("first question")
    # user, assistant-call, tool, answer: the window of 3 may not start with the tool turn,
    # so adding the answer trims the question and the whole tool turn at once
    assert [m.text for m in memory.get_history()] == ["answer a"]
    assert watcher.trims == [(3, 1, "enforce_limits")]
    agent.run("next")
    assert watcher.trims[1:] == []
    agent.run("again")  # its input, added at the start of the run, trims too
    assert watcher.trims[1:] == [(1, 3, "enforce_limits"), (1, 3, "enforce_limits")]
    assert [m.text for m in memory.get_history()] == ["second", "again", "later"]


def test_summarize_on_trim_sync_then_injected_next_turn():
    watcher = TrimWatcher()
    summarizer = ScriptedProvider(default="Alice likes blue and lives in Paris.")
    provider = ScriptedProvider(default="ok")
    agent = Agent(
        provider=provider,
        memory=ConversationMemory(max_messages=2),
        config=AgentConfig(
            summarize_on_trim=True,
            summarize_provider=summarizer,
            summarize_model="cheap-model",
            summarize_max_tokens=60,
            observers=[watcher],
        ),
    )
    agent.run("I am Alice")
    assert summarizer.calls == 0  # nothing trimmed yet
    result = agent.run("I like blue")
    assert summarizer.calls == 1
    request = summarizer.requests[0]
    assert request.model == "cheap-model" and request.max_tokens == 60
    assert "user: I am Alice" in request.messages[0].text
    assert agent.memory.summary == "Alice likes blue and lives in Paris."
    assert watcher.summaries == [("Alice likes blue and lives in Paris.", 2)]
    step = result.trace.filter(type="memory_summarize")[0]
    assert step.data["messages_summarized"] == 2 and step.model == "cheap-model"
    agent.run("Where do I live?")
    system = provider.requests[-1].system_prompt
    assert system.endswith("[Conversation Summary]\nAlice likes blue and lives in Paris.")
    # the next summary builds on the previous one
    assert "Summary so far:\nAlice likes blue" in summarizer.requests[-1].messages[0].text


def test_summary_comes_before_the_schema_instruction():
    memory = ConversationMemory()
    memory.summary = "Earlier: the user is Bob."
    provider = ScriptedProvider(default='{"a": 1}')
    agent = Agent(provider=provider, memory=memory)
    agent.run("x", response_format={"type": "object"})
    system = provider.requests[0].system_prompt
    assert system.index("[Conversation Summary]") < system.index("Response format")


def test_summarize_on_trim_async_uses_the_agent_provider_by_default():
    provider = ScriptedProvider(["a1", "a2", "summary text", "a3"])
    agent = Agent(
        provider=provider,
        memory=ConversationMemory(max_messages=2),
        config=AgentConfig(summarize_on_trim=True, model="main-model"),
    )

    async def runs():
        await agent.arun("one")
        await agent.arun("two")
        await agent.arun("three")

    asyncio.run(runs())
    assert provider.requests[2].model == "main-model"
    assert "Messages being dropped" in provider.requests[2].messages[0].text
    assert "[Conversation Summary]\nsummary text" in provider.requests[3].system_prompt


def test_failed_summary_keeps_the_run_and_the_old_summary():
    memory = ConversationMemory(max_messages=1)
    memory.summary = "old summary"
    summarizer = ScriptedProvider([ProviderError("summarizer down", retryable=False)])
    agent = Agent(
        provider=ScriptedProvider(default="answer"),
        memory=memory,
        config=AgentConfig(summarize_on_trim=True, summarize_provider=summarizer),
    )
    result = agent.run("hi")
    assert result.content == "answer" and result.error is None
    assert memory.summary == "old summary"
    assert "summarizer down" in result.trace.filter(type="error")[0].summary


def test_without_summarize_on_trim_no_summary_call():
    provider = ScriptedProvider(default="ok")
    agent = Agent(provider=provider, memory=ConversationMemory(max_messages=1))
    agent.run("a")
    agent.run("b")
    assert provider.calls == 2 and agent.memory.summary is None


def test_reset_clears_memory():
    agent = Agent(provider=ScriptedProvider(default="ok"), memory=ConversationMemory())
    agent.run("a")
    agent.reset()
    assert len(agent.memory) == 0


def test_trim_events_come_after_run_start_and_bad_input_touches_nothing():
    from selectools import SimpleStepObserver

    events = []
    memory = ConversationMemory(max_messages=1)
    memory.add(user("before"))
    agent = Agent(
        provider=ScriptedProvider(default="ok"),
        memory=memory,
        config=AgentConfig(observers=[SimpleStepObserver(events.append)]),
    )
    with pytest.raises(TypeError):
        agent.run("x", response_format="not a schema")
    assert texts(memory) == ["before"] and events == []
    agent.run("now")
    names = [e.name for e in events]
    assert names[0] == "on_run_start" and names[-1] == "on_run_end"
    assert names.index("on_memory_trim") > 0


def test_conversation_memory_implements_the_memory_protocol():
    from selectools.memory import Memory

    memory = ConversationMemory(max_messages=2)
    assert isinstance(memory, Memory)
    assert memory.extend([user("a"), user("b")]) == []
    assert [m.text for m in memory.extend([user("c")])] == ["a"]


def test_an_agent_uses_any_memory_through_the_protocol():
    class ListMemory:
        """A user's own memory: keeps everything, trims nothing."""

        summary = None

        def __init__(self):
            self.messages = []

        def extend(self, messages):
            self.messages.extend(messages)
            return []

        def get_history(self):
            return list(self.messages)

        def clear(self):
            self.messages.clear()

        def __len__(self):
            return len(self.messages)

    memory = ListMemory()
    provider = ScriptedProvider(["one", "two"])
    agent = Agent(provider=provider, memory=memory)
    agent.run("first")
    agent.run("second")
    assert [m.text for m in memory.messages] == ["first", "one", "second", "two"]
    assert [m.text for m in provider.requests[1].messages] == ["first", "one", "second"]


def test_agent_rejects_a_memory_without_the_protocol_methods():
    from selectools import Agent

    class Notes:
        def get_history(self):
            return []

    with pytest.raises(TypeError, match=r"Notes has no extend, clear"):
        Agent(memory=Notes())  # type: ignore[arg-type]
