"""FallbackProvider on its own: priority order, circuit breaker, streams, events, usage."""

from __future__ import annotations

import asyncio

import pytest

from selectools import Agent, AgentObserver, FallbackProvider, LocalProvider, ProviderError
from selectools.testing import Fault, ScriptedProvider, tool_call
from selectools.types import Message, Role, ToolCall
from selectools.usage import UsageStats

from .conftest import make_provider

pytestmark = pytest.mark.timeout(30)

MESSAGES = [Message(role=Role.USER, content="hi")]
DOWN = ProviderError("HTTP 503 (service unavailable)", status_code=503)
DENIED = ProviderError("HTTP 401 (authentication failed)", status_code=401, retryable=False)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def scripted(name, replies=(), **options):
    return ScriptedProvider(list(replies), name=name, model=f"{name}-model", **options)


def complete(provider, **kwargs):
    return provider.complete(model="", system_prompt="", messages=MESSAGES, **kwargs)


async def collect(iterator):
    return [item async for item in iterator]


def test_first_healthy_provider_answers():
    first, second = scripted("a", ["from a"]), scripted("b", ["from b"])
    message, usage = complete(FallbackProvider([first, second]))
    assert message.content == "from a" and usage.provider == "a"
    assert second.calls == 0


def test_retryable_failures_fall_through_and_report_the_switch():
    switches = []
    provider = FallbackProvider(
        [scripted("a", [DOWN]), scripted("b", ["from b"])],
        on_fallback=lambda name, error: switches.append((name, error)),
    )
    message, usage = complete(provider)
    assert message.content == "from b" and usage.provider == "b"
    assert switches == [("a", DOWN)]


@pytest.mark.parametrize(
    "error", [TimeoutError("read timed out"), ConnectionError("refused"), DOWN]
)
def test_timeouts_and_connection_errors_fall_through(error):
    provider = FallbackProvider([scripted("a", [error]), scripted("b", ["ok"])])
    assert complete(provider)[0].content == "ok"


def test_non_retryable_errors_are_raised_not_hidden():
    second = scripted("b", ["never"])
    provider = FallbackProvider([scripted("a", [DENIED]), second])
    with pytest.raises(ProviderError) as caught:
        complete(provider)
    assert caught.value is DENIED and second.calls == 0
    with pytest.raises(ValueError, match="bug"):
        complete(FallbackProvider([scripted("a", [ValueError("a bug")]), second]))


def test_circuit_opens_after_max_failures_and_closes_after_cooldown():
    clock = Clock()
    first = scripted("a", [DOWN, DOWN, "a is back"])
    second = scripted("b", default="from b")
    provider = FallbackProvider([first, second], max_failures=2, cooldown_seconds=60, clock=clock)
    for _ in range(2):
        assert complete(provider)[0].content == "from b"
    assert provider.circuit_open(0) and first.calls == 2
    clock.now += 59
    assert complete(provider)[0].content == "from b"
    assert first.calls == 2  # skipped while open
    clock.now += 2
    assert not provider.circuit_open(0)
    assert complete(provider)[0].content == "a is back"
    assert first.calls == 3


def test_a_failure_after_cooldown_reopens_at_once():
    clock = Clock()
    first = scripted("a", [DOWN, DOWN, DOWN])
    provider = FallbackProvider(
        [first, scripted("b", default="b")], max_failures=2, cooldown_seconds=10, clock=clock
    )
    complete(provider)
    complete(provider)
    clock.now += 11
    complete(provider)
    assert provider.circuit_open(0) and first.calls == 3


def test_a_success_resets_the_failure_count():
    clock = Clock()
    first = scripted("a", [DOWN, "ok", DOWN, "ok"])
    provider = FallbackProvider([first, scripted("b", default="b")], max_failures=2, clock=clock)
    for _ in range(4):
        complete(provider)
    assert not provider.circuit_open(0)


def test_all_providers_down_lists_each_failure():
    provider = FallbackProvider([scripted("a", [DOWN]), scripted("b", [TimeoutError("slow")])])
    with pytest.raises(ProviderError) as caught:
        complete(provider)
    text = str(caught.value)
    assert text.startswith("All 2 providers failed")
    assert "a: HTTP 503" in text and "b: slow" in text
    assert caught.value.provider == "fallback"


def test_all_circuits_open_fails_fast_with_a_retry_hint():
    clock = Clock()
    provider = FallbackProvider(
        [scripted("a", default=DOWN)], max_failures=1, cooldown_seconds=30, clock=clock
    )
    with pytest.raises(ProviderError):
        complete(provider)
    clock.now += 10
    with pytest.raises(ProviderError, match="circuit open") as caught:
        complete(provider)
    assert caught.value.retryable and caught.value.retry_after == pytest.approx(20)


def test_each_provider_gets_its_own_default_model():
    first, second = scripted("a", [DOWN]), scripted("b", ["ok"])
    provider = FallbackProvider([first, second])
    assert provider.default_model == "a-model"
    provider.complete(model="a-model", system_prompt="", messages=MESSAGES)
    assert first.requests[0].model == "a-model" and second.requests[0].model == "b-model"
    third = scripted("c", ["ok"])
    FallbackProvider([third]).complete(model="explicit", system_prompt="", messages=MESSAGES)
    assert third.requests[0].model == "explicit"


def test_capabilities_are_those_of_any_child():
    provider = FallbackProvider([LocalProvider(), scripted("a")])
    assert provider.name == "fallback"
    assert provider.supports_streaming and provider.supports_async
    assert provider.supports_native_tools  # the scripted child has native tools


def test_construction_errors_are_clear():
    with pytest.raises(ValueError, match="at least one"):
        FallbackProvider([])
    with pytest.raises(TypeError, match="not a provider"):
        FallbackProvider(["gpt-4o"])
    with pytest.raises(ValueError, match="max_failures"):
        FallbackProvider([LocalProvider()], max_failures=0)
    with pytest.raises(ValueError, match="cooldown"):
        FallbackProvider([LocalProvider()], cooldown_seconds=-1)


def test_acomplete_falls_through():
    provider = FallbackProvider([scripted("a", [DOWN]), scripted("b", ["async b"])])
    message, usage = asyncio.run(provider.acomplete(model="", system_prompt="", messages=MESSAGES))
    assert message.content == "async b" and usage.provider == "b"


def test_stream_falls_through_before_the_first_item():
    provider = FallbackProvider([scripted("a", [DOWN]), scripted("b", ["streamed from b"])])
    items = list(provider.stream(model="", system_prompt="", messages=MESSAGES))
    assert "".join(i for i in items if isinstance(i, str)) == "streamed from b"
    assert isinstance(items[-1], UsageStats) and items[-1].provider == "b"


class BreaksMidStream:
    """A streaming provider that yields some text, then fails."""

    name = "breaks"
    supports_streaming = True
    supports_async = True
    default_model = "m"

    def complete(self, **kwargs):
        raise AssertionError("not used")

    def stream(self, **kwargs):
        yield "partial "
        raise DOWN

    async def astream(self, **kwargs):
        yield "partial "
        raise DOWN


def test_stream_failure_after_output_is_raised_not_spliced():
    clock = Clock()
    backup = scripted("b", ["never"])
    provider = FallbackProvider([BreaksMidStream(), backup], max_failures=1, clock=clock)
    received = []
    stream = provider.stream(model="", system_prompt="", messages=MESSAGES)
    received.append(next(stream))
    with pytest.raises(ProviderError):
        next(stream)
    assert received == ["partial "] and backup.calls == 0
    assert provider.circuit_open(0)  # the failure still counts

    async def go():
        return await collect(provider.astream(model="", system_prompt="", messages=MESSAGES))

    clock.now += 1000
    with pytest.raises(ProviderError):
        asyncio.run(go())


def test_astream_adapts_children_without_astream():
    class CompleteOnly:
        name = "plain"
        supports_streaming = False
        default_model = "plain-model"

        def complete(self, **kwargs):
            call = ToolCall("lookup", {"q": "x"}, id="c1")
            return Message(role=Role.ASSISTANT, content="hello", tool_calls=[call]), None

    provider = FallbackProvider([scripted("a", [DOWN]), CompleteOnly()])
    items = asyncio.run(collect(provider.astream(model="", system_prompt="", messages=MESSAGES)))
    assert items[0] == "hello" and isinstance(items[1], ToolCall)
    assert isinstance(items[-1], UsageStats) and items[-1].provider == "plain"
    sync_items = list(
        FallbackProvider([CompleteOnly()]).stream(model="", system_prompt="", messages=MESSAGES)
    )
    assert sync_items[0] == "hello" and sync_items[-1].provider == "plain"


class FallbackRecorder(AgentObserver):
    def __init__(self) -> None:
        self.events = []

    def on_provider_fallback(self, run_id, failed_provider, next_provider, error):
        self.events.append((run_id, failed_provider, next_provider, error))


@pytest.mark.parametrize("entry", ["run", "arun", "stream", "astream"])
def test_agent_runs_report_the_switch_and_the_provider_used(entry):
    recorder = FallbackRecorder()
    provider = FallbackProvider(
        [
            scripted("a", default=DOWN),
            scripted("b", [tool_call("echo", text="x"), "done by b"]),
        ]
    )

    def echo(text: str) -> str:
        """Echo."""
        return text

    from selectools.agent import AgentConfig

    agent = Agent(tools=[echo], provider=provider, config=AgentConfig(observers=[recorder]))
    if entry == "run":
        result = agent.run("go")
    elif entry == "arun":
        result = asyncio.run(agent.arun("go"))
    elif entry == "stream":
        result = list(agent.stream("go"))[-1]
    else:
        result = asyncio.run(collect(agent.astream("go")))[-1]
    assert result.content == "done by b"
    assert result.provider_used == "b"
    # one switch per model call (the tool turn and the answer)
    assert [(e[1], e[2]) for e in recorder.events] == [("a", "b"), ("a", "b")]
    assert recorder.events[0][0] == result.run_id and recorder.events[0][3] is DOWN


def test_a_model_of_another_vendor_is_replaced_by_the_childs_default(server):
    openai, anthropic = make_provider("openai", server), make_provider("anthropic", server)
    server.add(Fault.unavailable(), "from claude")
    provider = FallbackProvider([openai, anthropic])
    message, usage = provider.complete(model="gpt-4o-mini", system_prompt="", messages=MESSAGES)
    assert message.content == "from claude"
    assert server.requests[0].json["model"] == "gpt-4o-mini"
    assert server.requests[1].json["model"] == anthropic.default_model
    assert usage.model == anthropic.default_model
