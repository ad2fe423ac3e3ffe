"""Deadlines that hold on a real uvicorn server: slow headers, too many sockets, a client that leaves.

Raw sockets play the slow client; deadlines are generous (a loaded 2-core machine) and
the assertions are exact.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from selectools import Agent, AgentConfig, tool
from selectools.serve import ServerHandle, create_app
from selectools.serve.app import serve_in_background
from selectools.testing import ScriptedProvider, tool_call

RAN: list[float] = []


@tool
def spend(step: int) -> str:
    """Costs money every time it runs."""
    RAN.append(time.monotonic())
    return f"spent {step}"


def looping_agent() -> Agent:
    """Calls the paid tool forever, each model turn taking 0.1 s."""
    return Agent(
        [spend],
        provider=ScriptedProvider(default=tool_call("spend", step=1), latency=0.1),
        config=AgentConfig(max_iterations=10_000),
    )


def address(handle: ServerHandle) -> tuple[str, int]:
    host, port = handle.url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def closed_within(sock: socket.socket, seconds: float) -> bytes | None:
    """What the server sent before closing, or None if it still holds the socket."""
    sock.settimeout(seconds)
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return received


@pytest.fixture(params=["h11", "httptools"])
def limited(request: pytest.FixtureRequest) -> Iterator[ServerHandle]:
    """The API on each of uvicorn's HTTP parsers (httptools when installed, h11 otherwise)."""
    if request.param == "httptools":
        pytest.importorskip("httptools", reason="uvicorn uses h11 without httptools")
    app = create_app(Agent(provider=ScriptedProvider(default="ok")))
    handle = serve_in_background(
        app.asgi, request_timeout=1.0, max_connections=150, http=request.param
    )
    try:
        yield handle
    finally:
        handle.stop()


def test_slow_clients_are_dropped_after_the_request_timeout(limited):
    sockets = []
    try:
        started = time.monotonic()
        for _ in range(100):
            sock = socket.create_connection(address(limited), timeout=10)
            sock.sendall(b"POST /invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow-")
            sockets.append(sock)
        # a dripping client: one more header byte every 0.2 s does not reset the deadline
        drip = socket.create_connection(address(limited), timeout=10)
        sockets.append(drip)
        drip.sendall(b"GET /health HTTP/1.1\r\n")
        for _ in range(5):
            time.sleep(0.2)
            drip.sendall(b"X")
        silent = socket.create_connection(address(limited), timeout=10)  # sends nothing at all
        sockets.append(silent)
        # headers complete, then the body drips: the deadline covers the whole request
        body_drip = socket.create_connection(address(limited), timeout=10)
        sockets.append(body_drip)
        body_drip.sendall(
            b"POST /invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n{"
        )
        for _ in range(5):
            time.sleep(0.2)
            body_drip.sendall(b" ")
        held = [s for s in sockets if closed_within(s, 20.0) is None]
        elapsed = time.monotonic() - started
        assert held == []
        assert elapsed < 20.0
        # the server still answers a normal client
        assert httpx.get(f"{limited.url}/health").json()["status"] == "ok"
    finally:
        for sock in sockets:
            sock.close()


def test_a_complete_request_is_not_cut_by_the_request_timeout():
    agent = Agent(provider=ScriptedProvider(default="slow answer", latency=2.0))
    app = create_app(agent, request_timeout=0.5)
    # keep-alive: the second request reuses the socket
    with app.serve(port=0, background=True) as handle, httpx.Client() as client:
        for _ in range(2):
            r = client.post(f"{handle.url}/invoke", json={"prompt": "hi"}, timeout=30)
            assert r.json()["content"] == "slow answer"


def test_sockets_past_the_connection_limit_are_refused_at_once():
    agent = Agent(provider=ScriptedProvider(default="ok"))
    app = create_app(agent, request_timeout=60.0, max_connections=20)
    with app.serve(port=0, background=True) as handle:
        held = [socket.create_connection(address(handle), timeout=10) for _ in range(20)]
        try:
            time.sleep(0.5)
            extra = socket.create_connection(address(handle), timeout=10)
            try:
                answer = closed_within(extra, 10.0)
            finally:
                extra.close()
            assert answer is not None  # closed, not held for the 60 s header timeout
            assert answer.startswith(b"HTTP/1.1 503")
        finally:
            for sock in held:
                sock.close()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # the slots come back once the sockets close
            try:
                if httpx.get(f"{handle.url}/health").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        assert httpx.get(f"{handle.url}/health").status_code == 200


def test_invoke_stops_the_run_when_the_client_disconnects():
    RAN.clear()
    with create_app(looping_agent()).serve(port=0, background=True) as handle:
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(f"{handle.url}/invoke", json={"prompt": "go"}, timeout=1.5)
        assert len(RAN) >= 2  # it was running
        time.sleep(1.0)  # let the server notice
        count = len(RAN)
        time.sleep(2.0)
        assert len(RAN) == count  # nothing more was spent


def test_stream_stops_the_run_when_the_client_disconnects():
    RAN.clear()
    with create_app(looping_agent()).serve(port=0, background=True) as handle:
        done = threading.Event()

        def read_a_little() -> None:
            with httpx.stream("POST", f"{handle.url}/stream", json={"prompt": "go"}) as r:
                for _ in zip(range(3), r.iter_lines()):
                    pass
            done.set()

        threading.Thread(target=read_a_little, daemon=True).start()
        assert done.wait(20)
        time.sleep(1.0)
        count = len(RAN)
        time.sleep(2.0)
        assert len(RAN) == count
