"""The fault matrix: every injected failure, on every provider, through the real Agent.

Each run must end one of three ways — the agent retries and recovers, a
FallbackProvider switches to the next provider, or the run ends with a typed
error on ``result.error`` — and never hang, leak an SDK exception, or run a
half-built tool call.
"""

from __future__ import annotations

import asyncio

import pytest

from selectools import Agent, FallbackProvider, ProviderError, tool
from selectools.testing import FakeReply, FakeToolCall, Fault, tool_call

from .conftest import PROVIDER_NAMES, VENDORS, fast_config, make_provider

pytestmark = pytest.mark.timeout(60)

ENTRIES = ["run", "arun", "stream", "astream"]
TEXT = "Partial answer that will be cut off by the fault"


def drive(agent, entry, prompt="What does the phone cost?"):
    if entry == "run":
        return agent.run(prompt)
    if entry == "arun":
        return asyncio.run(agent.arun(prompt))
    if entry == "stream":
        return list(agent.stream(prompt))[-1]

    async def collect():
        return [item async for item in agent.astream(prompt)]

    return asyncio.run(collect())[-1]


def _timeout(fault_name: str) -> float:
    """Short for the stall faults (they must time out), generous otherwise."""
    return 0.3 if fault_name.startswith("stall") else 5.0


# fault name -> (fault, streamed entries only?)
RECOVERABLE = {
    "rate_limit_429": (Fault.rate_limit(retry_after=1), False),
    "server_error_500": (Fault.server_error(), False),
    "unavailable_503": (Fault.unavailable(), False),
    "overloaded_529": (Fault.status_code(529, "Overloaded"), False),
    "reset_before_reply": (Fault.reset(), False),
    "stall_past_timeout": (Fault.stall(5), False),
    "malformed_json": (Fault.malformed_json(), False),
    "truncated": (Fault.truncated_stream(after_chunks=1), False),
    "reset_mid_stream": (FakeReply(TEXT, fault=Fault.reset(after_chunks=2)), True),
    "stall_mid_stream": (FakeReply(TEXT, fault=Fault.stall(5, after_chunks=2)), True),
    "malformed_mid_stream": (Fault.malformed_json(after_chunks=2), True),
    "error_event_mid_stream": (Fault.status_code(500, "boom", after_chunks=2), True),
}


# a mid-stream fault only happens on a streamed request
RECOVERABLE_CASES = [
    (name, entry)
    for name, (_, stream_only) in RECOVERABLE.items()
    for entry in ENTRIES
    if not stream_only or "stream" in entry
]


@pytest.mark.parametrize(("fault_name", "entry"), RECOVERABLE_CASES)
@pytest.mark.parametrize("vendor", VENDORS)
def test_agent_retries_and_recovers(vendor, fault_name, entry, server, fake_sleep):
    fault, _ = RECOVERABLE[fault_name]
    server.add(fault, "Recovered.")
    config = fast_config(request_timeout=_timeout(fault_name))
    result = drive(Agent(provider=make_provider(vendor, server), config=config), entry)
    assert result.content == "Recovered."
    assert result.stop_reason == "final" and result.error is None
    assert len(server.requests) == 2
    failed = result.trace.filter(type="llm_call", status="error")
    assert len(failed) == 1 and failed[0].error
    if fault_name == "rate_limit_429":
        # the server's Retry-After, honoured (stretched by up to a fifth of jitter)
        assert len(fake_sleep) == 1 and 1.0 <= fake_sleep[0] <= 1.2
    assert server.errors == []


NOT_RETRYABLE = [400, 401, 403, 404, 422]


@pytest.mark.parametrize("status", NOT_RETRYABLE)
@pytest.mark.parametrize("vendor", VENDORS)
def test_client_errors_end_the_run_with_a_typed_error(vendor, status, server):
    server.add(Fault.status_code(status, "nope"), "never used")
    result = drive(Agent(provider=make_provider(vendor, server), config=fast_config()), "run")
    assert result.stop_reason == "provider_error"
    assert isinstance(result.error, ProviderError)
    assert result.error.status_code == status and result.error.retryable is False
    assert result.error.provider == PROVIDER_NAMES[vendor]
    assert f"HTTP {status}" in str(result.error) and "nope" in str(result.error)
    assert len(server.requests) == 1
    assert result.trace.filter(type="error")


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("vendor", VENDORS)
def test_exhausted_retries_end_with_the_last_error(vendor, entry, server, fake_sleep):
    server.default = Fault.server_error(503, "still down")
    result = drive(Agent(provider=make_provider(vendor, server), config=fast_config()), entry)
    assert result.stop_reason == "provider_error"
    assert isinstance(result.error, ProviderError) and result.error.status_code == 503
    assert len(server.requests) == 3  # max_retries=2 -> three attempts
    assert "still down" in result.content


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("vendor", VENDORS)
def test_half_built_tool_calls_are_never_executed(vendor, entry, server):
    runs: list[str] = []

    @tool()
    def get_price(product: str) -> str:
        """Price of a product."""
        runs.append(product)
        return "$699"

    server.add(
        FakeReply(tool_calls=[FakeToolCall("get_price", '{"product": "ph')]),
        "Sorry, I sent broken arguments.",
    )
    agent = Agent(tools=[get_price], provider=make_provider(vendor, server), config=fast_config())
    result = drive(agent, entry)
    assert runs == []
    assert result.content == "Sorry, I sent broken arguments."
    assert "Could not read the arguments" in server.requests[1].body.decode()


@pytest.mark.parametrize("entry", ["stream", "astream"])
@pytest.mark.parametrize("vendor", VENDORS)
def test_a_stream_cut_inside_a_tool_call_runs_nothing(vendor, entry, server):
    runs: list[str] = []

    @tool()
    def get_price(product: str) -> str:
        """Price of a product."""
        runs.append(product)
        return "$699"

    cut = FakeReply(tool_calls=[FakeToolCall("get_price", {"product": "phone"})])
    cut.fault = Fault.reset(after_chunks=1)
    server.add(cut, tool_call("get_price", product="laptop"), "Done.")
    agent = Agent(tools=[get_price], provider=make_provider(vendor, server), config=fast_config())
    result = drive(agent, entry)
    assert runs == ["laptop"]
    assert result.content == "Done."


def _other(vendor: str) -> str:
    return "openai" if vendor == "ollama" else "ollama"


FALLBACK_FAULTS = {
    "rate_limit_429": Fault.rate_limit(retry_after=1),
    "server_error_500": Fault.server_error(),
    "unavailable_503": Fault.unavailable(),
    "reset": Fault.reset(),
    "stall_past_timeout": Fault.stall(5),
    "malformed_json": Fault.malformed_json(),
    "truncated": Fault.truncated_stream(after_chunks=0),
}


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("fault_name", list(FALLBACK_FAULTS))
@pytest.mark.parametrize("vendor", VENDORS)
def test_fallback_provider_switches_on_failure(vendor, fault_name, entry, server):
    switched: list[tuple[str, BaseException]] = []
    # the backup's own timeout wins over the 0.3 s that makes the primary's stall fail:
    # on a loaded machine a healthy answer can take longer than that (seen in CI)
    backup = make_provider(_other(vendor), server, timeout=5.0)
    provider = FallbackProvider(
        [make_provider(vendor, server), backup],
        on_fallback=lambda name, error: switched.append((name, error)),
    )
    server.add(FALLBACK_FAULTS[fault_name], "Answer from the backup.")
    config = fast_config(max_retries=0, request_timeout=_timeout(fault_name))
    agent = Agent(provider=provider, config=config)
    result = drive(agent, entry)
    assert result.content == "Answer from the backup."
    assert result.provider_used == PROVIDER_NAMES[_other(vendor)]
    assert [name for name, _ in switched] == [PROVIDER_NAMES[vendor]]
    assert isinstance(switched[0][1], ProviderError)
    assert [r.vendor for r in server.requests] == [
        "azure" if vendor == "azure" else vendor,
        _other(vendor),
    ]


@pytest.mark.parametrize("entry", ["stream", "astream"])
@pytest.mark.parametrize("vendor", VENDORS)
def test_fallback_does_not_switch_once_text_was_streamed(vendor, entry, server):
    switched: list[str] = []
    provider = FallbackProvider(
        [make_provider(vendor, server), make_provider(_other(vendor), server)],
        on_fallback=lambda name, error: switched.append(name),
    )
    server.add(FakeReply(TEXT, fault=Fault.reset(after_chunks=2)), "Recovered.")
    agent = Agent(provider=provider, config=fast_config(max_retries=1))
    result = drive(agent, entry)
    # the fallback raised instead of splicing in another provider; the agent retried
    assert switched == []
    assert result.content == "Recovered."
    assert result.provider_used == PROVIDER_NAMES[vendor]


@pytest.mark.parametrize("vendor", VENDORS)
def test_fallback_does_not_hide_client_errors(vendor, server):
    provider = FallbackProvider(
        [make_provider(vendor, server), make_provider(_other(vendor), server)]
    )
    server.add(Fault.status_code(401, "bad key"), "never used")
    result = Agent(provider=provider, config=fast_config()).run("hi")
    assert result.stop_reason == "provider_error"
    assert result.error.status_code == 401
    assert len(server.requests) == 1


def test_when_every_provider_is_down_the_error_lists_each(server, fake_sleep):
    provider = FallbackProvider(
        [make_provider(v, server) for v in ("openai", "anthropic", "gemini")]
    )
    server.default = Fault.unavailable("region outage")
    result = Agent(provider=provider, config=fast_config(max_retries=0)).run("hi")
    assert result.stop_reason == "provider_error"
    message = str(result.error)
    assert message.startswith("All 3 providers failed")
    for name in ("openai", "anthropic", "gemini"):
        assert f"{name}: " in message
    assert result.error.retryable is True
