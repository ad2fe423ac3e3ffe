"""stream()/astream() yield chunks then exactly one AgentResult; run(stream_handler) forwards deltas."""

import asyncio

from selectools import Agent, AgentResult, StreamChunk, tool
from selectools.testing import LocalProvider, ScriptedProvider, reply, tool_call


@tool()
def lookup(key: str) -> str:
    """Looks up a key."""
    return f"value of {key}"


def _collect_async(agent, prompt):
    async def go():
        return [item async for item in agent.astream(prompt)]

    return asyncio.run(go())


def test_astream_yields_chunks_then_one_result():
    provider = ScriptedProvider(
        [reply("Let me look.", tool_call("lookup", key="k")), "The value is 42."]
    )
    items = _collect_async(Agent(tools=[lookup], provider=provider), "what is k?")
    results = [i for i in items if isinstance(i, AgentResult)]
    assert len(results) == 1 and items[-1] is results[0]
    chunks = [i for i in items[:-1] if isinstance(i, StreamChunk)]
    assert len(chunks) == len(items) - 1
    text = "".join(c.content for c in chunks)
    assert text == "Let me look.The value is 42."
    call_chunks = [c for c in chunks if c.tool_calls]
    assert [c.tool_calls[0].tool_name for c in call_chunks] == ["lookup"]
    assert results[0].content == "The value is 42."
    assert results[0].iterations == 2
    assert {c.iteration for c in chunks if c.content} == {1, 2}


def test_sync_stream_matches_astream():
    def provider():
        return ScriptedProvider(
            [reply("Let me look.", tool_call("lookup", key="k")), "The value is 42."]
        )

    sync_items = list(Agent(tools=[lookup], provider=provider()).stream("q"))
    async_items = _collect_async(Agent(tools=[lookup], provider=provider()), "q")
    assert [type(i) for i in sync_items] == [type(i) for i in async_items]
    assert [getattr(i, "content", None) for i in sync_items] == [
        getattr(i, "content", None) for i in async_items
    ]


def test_provider_without_streaming_gives_one_chunk():
    class CompleteOnly:
        name = "complete-only"
        supports_streaming = False
        supports_async = False

        def __init__(self):
            self.inner = LocalProvider()

        def complete(self, **kwargs):
            return self.inner.complete(**kwargs)

    items = _collect_async(Agent(provider=CompleteOnly()), "hello there friend")
    assert [type(i) for i in items] == [StreamChunk, AgentResult]
    assert items[0].content == "hello there friend"


def test_run_with_stream_handler_receives_every_delta():
    deltas = []
    provider = ScriptedProvider([reply("one two three", chunks=["one ", "two ", "three"])])
    result = Agent(provider=provider).run("x", stream_handler=deltas.append)
    assert deltas == ["one ", "two ", "three"]
    assert result.content == "one two three"
    assert provider.requests[0].stream


def test_stream_usage_comes_from_the_provider_when_reported():
    from selectools import UsageStats

    usage = UsageStats(
        prompt_tokens=11, completion_tokens=7, cost_usd=0.5, model="m", provider="scripted"
    )
    items = list(Agent(provider=ScriptedProvider([reply("hi", usage=usage)])).stream("x"))
    assert items[-1].usage.total_tokens == 18
    assert items[-1].usage.total_cost_usd == 0.5


def test_closing_a_stream_early_does_not_hang_or_emit_run_end():
    from selectools import SimpleStepObserver

    events = []
    provider = ScriptedProvider([reply("a b c d e f")])
    agent = Agent(provider=provider)
    stream = agent.stream("x", observers=[SimpleStepObserver(events.append)])
    first = next(stream)
    assert isinstance(first, StreamChunk)
    stream.close()
    assert "on_run_end" not in [e.name for e in events]


def test_a_stream_that_fails_midway_marks_a_restart(fake_sleep):
    from selectools import ProviderError

    class FlakyStream:
        name = "flaky"
        supports_streaming = True
        supports_async = False

        def __init__(self):
            self.calls = 0

        def stream(self, **kwargs):
            self.calls += 1
            yield "partial "
            if self.calls == 1:
                raise ProviderError("connection reset mid-stream")
            yield "answer"

    items = list(Agent(provider=FlakyStream()).stream("x"))
    kinds = [
        "result" if isinstance(i, AgentResult) else ("restart" if i.restart else i.content)
        for i in items
    ]
    assert kinds == ["partial ", "restart", "partial ", "answer", "result"]
    assert items[-1].content == "partial answer"
    kept = []
    for item in items[:-1]:
        if item.restart:
            kept.clear()
        else:
            kept.append(item.content)
    assert "".join(kept) == items[-1].content


def test_astream_restart_marker():
    from selectools import ProviderError

    class FlakyAsync:
        name = "flaky"
        supports_streaming = True
        supports_async = True

        def __init__(self):
            self.calls = 0

        async def astream(self, **kwargs):
            self.calls += 1
            yield "partial "
            if self.calls == 1:
                raise ProviderError("reset")
            yield "answer"

    agent = Agent(
        provider=FlakyAsync(), config=__import__("selectools").AgentConfig(retry_backoff_seconds=0)
    )
    items = _collect_async(agent, "x")
    assert [getattr(i, "restart", None) for i in items[:-1]] == [False, True, False, False]
    assert items[-1].content == "partial answer"


# -- providers written as the PROVIDERS page documents them -------------------------------
from selectools import Message, Role, ToolCall, UsageStats  # noqa: E402
from selectools.providers import FallbackProvider  # noqa: E402


def _usage(name):
    return UsageStats(
        prompt_tokens=1, completion_tokens=1, total_tokens=2, cost_usd=0.0, model="m", provider=name
    )


def _pieces(text):
    words = text.split(" ")
    return [w + " " for w in words[:-1]] + words[-1:]


def _asks_for_tool(messages):
    """First turn: ask for the tool; once its result is in the history: answer with it."""
    results = [m.content for m in messages if m.role == Role.TOOL]
    if results:
        return f"Found: {results[-1]}", None
    return "Let me look that up.", [ToolCall(tool_name="lookup", parameters={"key": "k"}, id="c1")]


class DocumentedProvider:
    """Exactly the documented protocol: stream() yields text only, astream() text and ToolCalls."""

    name = "documented"
    supports_streaming = True
    supports_async = True
    supports_native_tools = True

    def __init__(self):
        self.used = []

    def complete(
        self,
        *,
        model,
        system_prompt,
        messages,
        tools=None,
        temperature=0.0,
        max_tokens=1000,
        timeout=None,
    ):
        self.used.append("complete")
        text, calls = _asks_for_tool(messages)
        return Message(role=Role.ASSISTANT, content=text, tool_calls=calls), _usage(self.name)

    def stream(self, *, model, system_prompt, messages, **kwargs):
        self.used.append("stream")
        text, _ = _asks_for_tool(messages)
        yield from _pieces(text)

    async def acomplete(
        self,
        *,
        model,
        system_prompt,
        messages,
        tools=None,
        temperature=0.0,
        max_tokens=1000,
        timeout=None,
    ):
        self.used.append("acomplete")
        text, calls = _asks_for_tool(messages)
        return Message(role=Role.ASSISTANT, content=text, tool_calls=calls), _usage(self.name)

    async def astream(
        self,
        *,
        model,
        system_prompt,
        messages,
        tools=None,
        temperature=0.0,
        max_tokens=1000,
        timeout=None,
    ):
        self.used.append("astream")
        text, calls = _asks_for_tool(messages)
        for piece in _pieces(text):
            yield piece
        for call in calls or ():
            yield call


class SyncOnly:
    name = "sync-only"
    supports_native_tools = True

    def complete(self, *, model, system_prompt, messages, **kwargs):
        text, calls = _asks_for_tool(messages)
        return Message(role=Role.ASSISTANT, content=text, tool_calls=calls), _usage(self.name)


class AsyncOnly:
    name = "async-only"
    supports_native_tools = True

    async def acomplete(self, *, model, system_prompt, messages, **kwargs):
        text, calls = _asks_for_tool(messages)
        return Message(role=Role.ASSISTANT, content=text, tool_calls=calls), _usage(self.name)


class TextStreamOnly(SyncOnly):
    """complete() plus a documented text-only stream(), nothing async."""

    name = "text-stream"

    def stream(self, *, model, system_prompt, messages, **kwargs):
        text, _ = _asks_for_tool(messages)
        yield from _pieces(text)


def _run_every_way(make):
    """The final result of each entry point, with a fresh provider each time."""

    def stream_result(items):
        assert sum(isinstance(i, AgentResult) for i in items) == 1
        return items[-1]

    return {
        "run": Agent(tools=[lookup], provider=make()).run("what is k?"),
        "arun": asyncio.run(Agent(tools=[lookup], provider=make()).arun("what is k?")),
        "stream": stream_result(list(Agent(tools=[lookup], provider=make()).stream("what is k?"))),
        "astream": stream_result(_collect_async(Agent(tools=[lookup], provider=make()), "q")),
    }


def _assert_tool_ran(result):
    assert [c.tool_name for c in result.tool_calls] == ["lookup"]
    assert result.content == "Found: value of k"
    assert result.iterations == 2


def test_documented_provider_runs_its_tools_under_every_entry_point():
    results = _run_every_way(DocumentedProvider)
    assert set(results) == {"run", "arun", "stream", "astream"}
    for result in results.values():
        _assert_tool_ran(result)


def test_documented_provider_streams_text_through_astream_when_tools_are_in_play():
    provider = DocumentedProvider()
    items = list(Agent(tools=[lookup], provider=provider).stream("what is k?"))
    chunks = [i.content for i in items if isinstance(i, StreamChunk) and i.content]
    assert "".join(chunks) == "Let me look that up.Found: value of k"
    assert provider.used == ["astream", "astream"]  # its text-only stream() would drop the call
    # without tools the documented text stream is used as it is
    plain = DocumentedProvider()
    list(Agent(provider=plain).stream("hello"))
    assert plain.used == ["stream"]


def test_documented_provider_streams_inside_a_running_loop():
    async def in_a_cell():
        return list(Agent(tools=[lookup], provider=DocumentedProvider()).stream("what is k?"))

    _assert_tool_ran(asyncio.run(in_a_cell())[-1])


def test_sync_only_async_only_and_text_stream_providers_under_every_entry_point():
    for make in (SyncOnly, AsyncOnly, TextStreamOnly):
        for mode, result in _run_every_way(make).items():
            assert result.provider_used == make.name, (make.name, mode)
            _assert_tool_ran(result)


def test_partial_providers_under_fallback_provider():
    for make in (SyncOnly, AsyncOnly, TextStreamOnly, DocumentedProvider):

        def wrapped(make=make):
            return FallbackProvider([make()])

        for mode, result in _run_every_way(wrapped).items():
            assert result.provider_used == make.name, (make.name, mode)
            _assert_tool_ran(result)
