"""Time limits that hold, through the real SDK clients against the fake server.

* a provider's own ``timeout`` beats the agent-wide ``AgentConfig.request_timeout``;
* ``AgentConfig.run_timeout`` bounds the whole run: model calls, retries, tools;
* a short ``Retry-After`` is honoured (not replaced by our longer cooldown), a
  long one past ``max_retry_after_seconds`` is not waited for.

Deadlines are asserted with wide margins (a loaded 2-core machine); the old
behaviour took >= 20 s in each case.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import pytest

from selectools import Agent, AgentConfig, AgentObserver, tool
from selectools.exceptions import ProviderError
from selectools.testing import FakeLLMServer, FakeReply, Fault, ScriptedProvider, tool_call
from selectools.types import Message, Role

from .conftest import VENDORS, make_provider
from .test_faults import drive

STALL = 25.0  # the server goes silent this long: longer than any limit under test


@pytest.fixture
def fresh_server() -> Iterator[FakeLLMServer]:
    """A server of its own: closing it releases a stalled response at once."""
    with FakeLLMServer() as server:
        yield server


class Retries(AgentObserver):
    def __init__(self) -> None:
        self.delays: list[float] = []

    def on_llm_retry(self, run_id, attempt, max_retries, error, backoff_seconds):  # type: ignore[no-untyped-def]
        self.delays.append(backoff_seconds)


@pytest.mark.parametrize("vendor", VENDORS)
def test_the_providers_own_timeout_beats_the_agent_default(
    vendor: str, fresh_server: FakeLLMServer
) -> None:
    provider = make_provider(vendor, fresh_server, timeout=1.0)
    fresh_server.add(Fault.stall(STALL))
    agent = Agent(provider=provider, config=AgentConfig(request_timeout=30, max_retries=0))
    started = time.monotonic()
    result = agent.run("hi")
    elapsed = time.monotonic() - started
    assert elapsed < 10, f"{vendor}: timeout=1 ran {elapsed:.1f}s"
    assert result.stop_reason == "provider_error"
    assert "timed out after 1s" in str(result.error)


def test_a_per_call_timeout_beats_the_providers(fresh_server: FakeLLMServer) -> None:
    provider = make_provider("openai", fresh_server, timeout=30.0)
    fresh_server.add(Fault.stall(STALL))
    started = time.monotonic()
    with pytest.raises(ProviderError, match="timed out after 1s"):
        provider.complete(messages=[Message(Role.USER, "hi")], timeout=1.0)
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("stream", [False, True])
def test_run_timeout_bounds_a_run_that_keeps_retrying(
    fresh_server: FakeLLMServer, stream: bool
) -> None:
    for _ in range(6):
        fresh_server.add(Fault.stall(STALL))
    provider = make_provider("openai", fresh_server)
    config = AgentConfig(request_timeout=30, max_retries=5, run_timeout=2.0, stream=stream)
    started = time.monotonic()
    result = Agent(provider=provider, config=config).run("hi")
    elapsed = time.monotonic() - started
    assert elapsed < 10, f"run_timeout=2 ran {elapsed:.1f}s"
    assert result.stop_reason == "run_timeout"
    assert "run_timeout=2s" in result.content
    steps = result.trace.filter(type="budget_exceeded")
    assert len(steps) == 1 and "run_timeout" in steps[0].summary


def test_run_timeout_bounds_tool_calls_too() -> None:
    release = threading.Event()

    @tool
    def wait_for_ever() -> str:
        """Blocks until the test ends."""
        release.wait(60)
        return "late"

    provider = ScriptedProvider([tool_call("wait_for_ever"), "never reached"])
    config = AgentConfig(run_timeout=1.5)
    agent = Agent(tools=[wait_for_ever], provider=provider, config=config)
    started = time.monotonic()
    try:
        result = agent.run("go")
    finally:
        release.set()
    elapsed = time.monotonic() - started
    assert elapsed < 8, f"run_timeout=1.5 ran {elapsed:.1f}s"
    assert result.stop_reason == "run_timeout"
    assert provider.calls == 1  # no model call after the deadline


def test_run_timeout_holds_for_arun_too(fresh_server: FakeLLMServer) -> None:
    for _ in range(3):
        fresh_server.add(Fault.stall(STALL))
    agent = Agent(
        provider=make_provider("anthropic", fresh_server),
        config=AgentConfig(max_retries=2, run_timeout=1.5),
    )
    started = time.monotonic()
    result = asyncio.run(agent.arun("hi"))
    assert time.monotonic() - started < 8
    assert result.stop_reason == "run_timeout"


@pytest.mark.parametrize("vendor", ["openai", "anthropic"])
def test_a_short_retry_after_is_honoured(vendor: str, fresh_server: FakeLLMServer) -> None:
    fresh_server.add(Fault.rate_limit(retry_after=0.1), Fault.rate_limit(retry_after=0.1), "ok")
    retries = Retries()
    agent = Agent(
        provider=make_provider(vendor, fresh_server), config=AgentConfig(observers=[retries])
    )
    started = time.monotonic()
    result = agent.run("hi")
    elapsed = time.monotonic() - started
    assert result.content == "ok"
    assert elapsed < 5, f"two 429s with Retry-After: 0.1 took {elapsed:.1f}s"
    assert len(retries.delays) == 2
    assert all(0.1 <= d <= 0.1 * 1.25 for d in retries.delays), retries.delays


def test_a_retry_after_past_the_cap_is_not_waited_for(fresh_server: FakeLLMServer) -> None:
    fresh_server.add(Fault.rate_limit(retry_after=3600), "ok")
    agent = Agent(
        provider=make_provider("openai", fresh_server),
        config=AgentConfig(max_retry_after_seconds=60),
    )
    started = time.monotonic()
    result = agent.run("hi")
    assert time.monotonic() - started < 5
    assert result.stop_reason == "provider_error"
    assert "Retry after 3600s" in str(result.error)
    assert len(fresh_server.requests) == 1


@pytest.mark.parametrize("entry", ["run", "arun", "stream", "astream"])
def test_run_timeout_cuts_a_stream_that_drips(fresh_server: FakeLLMServer, entry: str) -> None:
    """Each chunk arrives well within the read timeout, but the whole reply would take 30 s."""
    words = [f"w{i} " for i in range(100)]
    fresh_server.add(FakeReply(text="".join(words), chunks=words, chunk_latency=0.3))
    agent = Agent(
        provider=make_provider("openai", fresh_server),
        config=AgentConfig(stream=True, run_timeout=1.5),
    )
    started = time.monotonic()
    result = drive(agent, entry)
    elapsed = time.monotonic() - started
    assert elapsed < 8, f"{entry}: run_timeout=1.5 ran {elapsed:.1f}s on a dripping stream"
    assert result.stop_reason == "run_timeout"
    assert "w0" in result.content  # the partial text is kept


@pytest.mark.parametrize(
    ("knob", "value"),
    [("run_timeout", 0), ("run_timeout", -1), ("max_retry_after_seconds", -0.5)],
)
def test_bad_time_limits_are_refused(knob: str, value: float) -> None:
    with pytest.raises(ValueError, match=knob):
        AgentConfig(**{knob: value})


@pytest.fixture
def dripping_openai() -> Iterator[str]:
    """A loopback server that answers OpenAI chat completions one byte every 0.2 s (~40 s)."""
    import json
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    body = json.dumps(
        {
            "id": "drip",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-4o",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "slow"},
                    "finish_reason": "stop",
                }
            ],
        }
    ).encode()
    stop = threading.Event()

    class Drip(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                for byte in body:
                    if stop.wait(0.2):
                        return
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
            except OSError:
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Drip)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.mark.parametrize("entry", ["run", "arun"])
def test_run_timeout_cuts_a_reply_that_drips(dripping_openai: str, entry: str) -> None:
    """Every byte comes well within the read timeout; only the run's deadline can stop it."""
    from selectools import OpenAIProvider

    provider = OpenAIProvider(api_key="test-key", base_url=dripping_openai)
    agent = Agent(provider=provider, config=AgentConfig(run_timeout=1.5, max_retries=0))
    started = time.monotonic()
    result = drive(agent, entry)
    elapsed = time.monotonic() - started
    assert elapsed < 8, f"{entry}: run_timeout=1.5 ran {elapsed:.1f}s on a dripping reply"
    assert result.stop_reason == "run_timeout"


@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("entry", ["stream", "astream", "run", "arun"])
def test_the_timeout_holds_while_the_headers_drip(
    vendor: str, entry: str, fresh_server: FakeLLMServer
) -> None:
    """Status line and headers a byte every 0.2 s (13+ minutes): each read is quick, the reply never ends.

    The provider's timeout is a total deadline for the response's head, streamed or not.
    """
    provider = make_provider(vendor, fresh_server, timeout=1.0)
    fresh_server.add(Fault.drip_headers(0.2))
    agent = Agent(
        provider=provider,
        config=AgentConfig(max_retries=0, stream=entry in ("stream", "astream")),
    )
    started = time.monotonic()
    result = drive(agent, entry)
    elapsed = time.monotonic() - started
    assert elapsed < 10, f"{vendor}/{entry}: timeout=1 ran {elapsed:.1f}s on dripping headers"
    assert result.stop_reason == "provider_error"
    assert "timed out after 1s" in str(result.error)


@pytest.mark.parametrize("entry", ["run", "arun"])
def test_the_timeout_holds_for_a_non_streamed_body_that_drips(
    dripping_openai: str, entry: str
) -> None:
    """No run_timeout: the provider's own timeout is a total deadline for the reply's body."""
    from selectools import OpenAIProvider

    provider = OpenAIProvider(api_key="test-key", base_url=dripping_openai, timeout=1.0)
    agent = Agent(provider=provider, config=AgentConfig(max_retries=0))
    started = time.monotonic()
    result = drive(agent, entry)
    elapsed = time.monotonic() - started
    assert elapsed < 10, f"{entry}: timeout=1 ran {elapsed:.1f}s on a dripping body"
    assert result.stop_reason == "provider_error"
    assert "timed out after 1s" in str(result.error)


def test_a_memory_extraction_call_keeps_the_agents_request_timeout(
    fresh_server: FakeLLMServer,
) -> None:
    # the extraction request is built by the memory, not the run: it must still get the run's limits
    from selectools.entity_memory import EntityMemory

    fresh_server.add(Fault.stall(STALL))
    memory = EntityMemory(provider=make_provider("openai", fresh_server), extraction_model="tiny")
    agent = Agent(
        provider=ScriptedProvider(["hello"]),
        config=AgentConfig(entity_memory=memory, request_timeout=1.0, max_retries=0),
    )
    started = time.monotonic()
    result = agent.run("Alice met Bob in Paris")
    elapsed = time.monotonic() - started
    assert elapsed < 10, f"the extraction call ran {elapsed:.1f}s past request_timeout=1"
    assert result.content == "hello"  # extraction fails open: the answer stands
