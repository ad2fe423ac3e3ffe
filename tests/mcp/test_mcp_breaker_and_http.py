"""Circuit breaker states, retry backoff, and the streamable HTTP transport (incl. a crash)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_support import ServerThread, count, free_port

from selectools.mcp import (
    CircuitBreaker,
    MCPCircuitOpenError,
    MCPClient,
    MCPConnectionError,
    MCPServerConfig,
    MCPTimeoutError,
    _client,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_breaker_opens_at_the_threshold_then_lets_one_trial_through() -> None:
    clock = Clock()
    breaker = CircuitBreaker(threshold=2, cooldown=60, clock=clock)
    assert breaker.state == "closed"
    breaker.record_failure()
    assert breaker.allow()
    breaker.record_failure()
    assert breaker.state == "open"
    assert not breaker.allow()
    assert breaker.retry_in() == 60
    clock.now += 59.5
    assert not breaker.allow()
    clock.now += 1
    assert breaker.state == "half_open"
    assert breaker.allow()  # the single trial
    assert not breaker.allow()  # everyone else still fails fast
    breaker.record_failure()  # the trial failed: open again for a full cooldown
    assert breaker.state == "open"
    assert breaker.retry_in() == 60
    clock.now += 60
    assert breaker.allow()
    breaker.record_success()
    assert breaker.state == "closed"
    assert breaker.failures == 0


def test_a_failing_server_opens_the_circuit_and_calls_fail_fast(stdio_config, state: Path) -> None:
    clock = Clock()
    config = stdio_config(timeout=0.5, circuit_breaker_threshold=2, circuit_breaker_cooldown=30)
    with MCPClient(config) as client:
        client.circuit.clock = clock
        for _ in range(2):
            with pytest.raises(MCPTimeoutError):
                client.call_tool_sync("slow", {"seconds": 30})
        assert client.circuit.state == "open"
        started = count(state, "slow_started")
        with pytest.raises(MCPCircuitOpenError) as caught:
            client.call_tool_sync("slow", {"seconds": 30})
        assert caught.value.retry_in == 30
        assert "circuit opened after 2 failure(s)" in str(caught.value)
        assert count(state, "slow_started") == started  # never reached the server
        with pytest.raises(MCPCircuitOpenError):
            client.call_tool_sync("add", {"a": 1, "b": 1})  # every tool of the server
        clock.now += 30  # half-open: one trial call; it succeeds and closes the circuit
        assert client.call_tool_sync("add", {"a": 1, "b": 1}) == "2"
        assert client.circuit.state == "closed"


def test_a_failed_half_open_trial_reopens_the_circuit(stdio_config) -> None:
    clock = Clock()
    config = stdio_config(timeout=0.5, circuit_breaker_threshold=1, circuit_breaker_cooldown=10)
    with MCPClient(config) as client:
        client.circuit.clock = clock
        with pytest.raises(MCPTimeoutError):
            client.call_tool_sync("slow", {"seconds": 30})
        clock.now += 10
        with pytest.raises(MCPTimeoutError):  # the trial call is let through, and fails
            client.call_tool_sync("slow", {"seconds": 30})
        with pytest.raises(MCPCircuitOpenError):
            client.call_tool_sync("add", {"a": 1, "b": 1})


def test_tool_errors_do_not_count_against_the_server(stdio_config) -> None:
    with MCPClient(stdio_config(circuit_breaker_threshold=1)) as client:
        for _ in range(3):
            with pytest.raises(Exception, match="failed"):
                client.call_tool_sync("boom", {"reason": "bad input"})
        assert client.circuit.state == "closed"


def test_reconnect_retries_wait_with_exponential_backoff(
    stdio_config, monkeypatch: pytest.MonkeyPatch
) -> None:
    waits: list[float] = []

    async def backoff(delay: float) -> None:
        waits.append(delay)

    config = stdio_config(max_retries=3, retry_backoff=1.0)
    with MCPClient(config) as client:
        with pytest.raises(MCPConnectionError):
            client.call_tool_sync("crash", {})
        monkeypatch.setattr(_client, "_backoff", backoff)
        # every restart now fails: the "server" exits before the handshake
        client.config.command = sys.executable
        client.config.args = ["-c", "import sys; sys.exit('not today')"]
        with pytest.raises(MCPConnectionError, match="not today"):
            client.call_tool_sync("add", {"a": 1, "b": 1})
        assert waits == [1.0, 2.0, 4.0]
        # a missing command is not retried: waiting cannot fix it
        waits.clear()
        client.config.command = "selectools-no-such-server"
        client.config.args = []
        with pytest.raises(MCPConnectionError, match="could not connect"):
            client.call_tool_sync("add", {"a": 1, "b": 1})
        assert waits == []


def test_connection_retries_back_off_1_2_4(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []

    async def backoff(delay: float) -> None:
        waits.append(delay)

    monkeypatch.setattr(_client, "_backoff", backoff)

    config = MCPServerConfig(
        url=f"http://127.0.0.1:{free_port()}/mcp",  # nothing listens there
        transport="streamable-http",
        max_retries=3,
        retry_backoff=1.0,
        timeout=5,
    )
    with pytest.raises(MCPConnectionError, match="could not connect"):
        MCPClient(config).connect()
    assert waits == [1.0, 2.0, 4.0]


# -- streamable HTTP ---------------------------------------------------------------------
def test_http_server_tools_and_a_crash_mid_call(http_server, state: Path) -> None:
    url = http_server()
    config = MCPServerConfig(url=url, transport="streamable-http", timeout=10, max_retries=0)
    assert config.name == "127_0_0_1"
    with MCPClient(config) as client:
        names = {t.name for t in client.list_tools_sync()}
        assert {"add", "slow", "crash"} <= names
        assert client.call_tool_sync("add", {"a": 19, "b": 23}) == "42"
        with pytest.raises(MCPConnectionError) as caught:
            client.call_tool_sync("crash", {})
        assert "during the call to 'crash'" in str(caught.value)
        assert count(state, "crash") == 1


def test_http_slow_tool_times_out(http_server) -> None:
    config = MCPServerConfig(
        url=http_server(), transport="streamable-http", timeout=1.0, connect_timeout=30
    )
    with MCPClient(config) as client:
        with pytest.raises(MCPTimeoutError):
            client.call_tool_sync("slow", {"seconds": 30})
        assert client.call_tool_sync("add", {"a": 1, "b": 2}) == "3"


def test_http_headers_are_sent(state: Path) -> None:
    from mcp.server.mcpserver import MCPServer as SDKServer

    sdk = SDKServer("guarded")

    @sdk.tool()
    def whoami() -> str:
        """Say who is calling."""
        return "authorised caller"

    inner = sdk.streamable_http_app(host="127.0.0.1")

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            if headers.get(b"authorization") != b"Bearer s3cret":
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"no"})
                return
        await inner(scope, receive, send)

    with ServerThread(app) as server:
        anonymous = MCPServerConfig(
            url=server.url, transport="streamable-http", name="api", max_retries=0, timeout=5
        )
        with pytest.raises(MCPConnectionError, match="could not connect to MCP server 'api'"):
            MCPClient(anonymous).connect()
        config = MCPServerConfig(
            url=server.url,
            transport="streamable-http",
            headers={"Authorization": "Bearer s3cret"},
            name="api",
        )
        with MCPClient(config) as client:
            assert client.call_tool_sync("whoami") == "authorised caller"
