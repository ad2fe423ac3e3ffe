import asyncio
import threading

import pytest

from selectools import Agent, Message, ProviderError, Role, ToolCall, UsageStats
from selectools.testing import ScriptedProvider, reply, tool_call


def _ask(provider, text="hi", **kwargs):
    return provider.complete(
        model="gpt-4o",
        system_prompt="sys",
        messages=[Message(role=Role.USER, content=text)],
        **kwargs,
    )


def test_replies_play_in_order_and_requests_are_recorded():
    provider = ScriptedProvider(
        ["one", tool_call("search", q="x"), [tool_call("a"), tool_call("b")]]
    )
    first, usage = _ask(provider, "question")
    assert first.content == "one" and first.tool_calls is None
    assert usage.model == "gpt-4o" and usage.provider == "scripted" and usage.total_tokens > 0
    assert usage.cost_usd > 0  # priced with the registry
    second, _ = _ask(provider)
    assert [c.tool_name for c in second.tool_calls] == ["search"]
    third, _ = _ask(provider)
    assert [c.tool_name for c in third.tool_calls] == ["a", "b"]
    assert provider.calls == 3 and provider.remaining == 0
    assert provider.requests[0].last_message.content == "question"
    assert provider.requests[0].system_prompt == "sys"


def test_exhausted_script_is_a_clear_non_retryable_error():
    provider = ScriptedProvider(["only"])
    _ask(provider)
    with pytest.raises(ProviderError, match="ran out of replies after 1") as info:
        _ask(provider)
    assert info.value.retryable is False


def test_default_reply_repeats_forever():
    provider = ScriptedProvider(default="again")
    assert [_ask(provider)[0].content for _ in range(3)] == ["again"] * 3


def test_errors_and_functions():
    provider = ScriptedProvider(
        [ProviderError("429 slow down"), lambda request: f"echo {request.last_message.content}"]
    )
    with pytest.raises(ProviderError):
        _ask(provider)
    assert _ask(provider, "ping")[0].content == "echo ping"


def test_responder_function_for_every_turn():
    provider = ScriptedProvider(lambda request: reply(f"turn {len(request.messages)}"))
    assert _ask(provider)[0].content == "turn 1"
    assert _ask(provider)[0].content == "turn 1"


def test_bad_script_item_is_a_type_error():
    provider = ScriptedProvider([42])
    with pytest.raises(TypeError, match="cannot play int"):
        _ask(provider)


def test_streaming_chunks_tool_calls_and_usage():
    usage = UsageStats(prompt_tokens=3, completion_tokens=4)
    provider = ScriptedProvider([reply("hello big world", tool_call("t"), usage=usage)])
    items = list(provider.stream(model="m", system_prompt="", messages=[]))
    assert items[:3] == ["hello ", "big ", "world"]
    assert isinstance(items[3], ToolCall) and items[4] is usage
    explicit = ScriptedProvider([reply("abc", chunks=["a", "bc"])])
    assert list(explicit.stream(model="m", system_prompt="", messages=[]))[:2] == ["a", "bc"]


def test_async_stream_and_latency():
    provider = ScriptedProvider([reply("a b", latency=0.05, chunk_latency=0.01)])

    async def go():
        return [item async for item in provider.astream(model="m", system_prompt="", messages=[])]

    import time

    started = time.perf_counter()
    items = asyncio.run(go())
    assert time.perf_counter() - started >= 0.05
    assert items[:2] == ["a ", "b"]


def test_text_protocol_rendering():
    provider = ScriptedProvider([reply("thinking", tool_call("search", q="x"))], native_tools=False)
    message, _ = _ask(provider)
    assert message.tool_calls is None
    assert (
        message.content == 'thinking\nTOOL_CALL {"tool_name": "search", "parameters": {"q": "x"}}'
    )


def test_thread_safe_consumption():
    provider = ScriptedProvider([str(i) for i in range(200)])
    seen = []
    lock = threading.Lock()

    def worker():
        for _ in range(50):
            text = _ask(provider)[0].content
            with lock:
                seen.append(text)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(seen, key=int) == [str(i) for i in range(200)]


def test_requests_keep_the_last_thousand_and_calls_count_every_one():
    """A scripted agent served for hours must not grow: ``requests`` is bounded."""
    provider = ScriptedProvider(lambda request: f"re {request.last_message.content}")
    agent = Agent(provider=provider)
    for i in range(1_200):
        agent.run(f"q{i}")
    assert provider.calls == 1_200
    assert len(provider.requests) == 1_000
    assert provider.requests[0].last_message.content == "q200"
    assert provider.requests[-1].last_message.content == "q1199"

    small = ScriptedProvider(default="ok", keep_requests=2)
    everything = ScriptedProvider(default="ok", keep_requests=None)
    for name in ("a", "b", "c"):
        Agent(provider=small).run(name)
        Agent(provider=everything).run(name)
    assert [r.last_message.content for r in small.requests] == ["b", "c"]
    assert len(everything.requests) == everything.calls == 3
    with pytest.raises(ValueError, match="keep_requests must be >= 0"):
        ScriptedProvider(keep_requests=-1)
