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
