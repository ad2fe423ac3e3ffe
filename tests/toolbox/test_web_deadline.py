"""Network tools keep a total deadline: a server that drips bytes cannot hold a tool past it.

The slow-drip server is real (a thread on 127.0.0.1) and sends one byte every
0.2 s: with a per-read timeout a request to it would last as long as the server
liked (~30 s here); with a total deadline it ends at the stated timeout.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from selectools.exceptions import ToolExecutionError
from selectools.rag import DocumentLoader
from selectools.toolbox import NetPolicy, get_tools_by_category
from selectools.toolbox.web_tools import MAX_TIMEOUT_SECONDS

DRIP_BYTES = 150  # x 0.2 s = 30 s for the whole response
ALLOW = NetPolicy(allow_hosts=("127.0.0.1",))


def _dripper(stop: threading.Event) -> type[BaseHTTPRequestHandler]:
    class Drip(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _drip(self, data: bytes) -> None:
            for byte in data:
                if stop.wait(0.2):
                    return
                self.wfile.write(bytes([byte]))
                self.wfile.flush()

        def do_GET(self) -> None:
            try:
                if self.path == "/headers":  # the status line, then headers one byte at a time
                    self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                    self._drip(b"X-Pad: " + b"x" * DRIP_BYTES + b"\r\nContent-Length: 2\r\n\r\nok")
                else:  # headers at once, then the body one byte at a time
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain")
                    self.send_header("Content-Length", str(DRIP_BYTES))
                    self.end_headers()
                    self._drip(b"y" * DRIP_BYTES)
            except OSError:  # the client gave up and closed the connection
                pass

        do_POST = do_GET

    return Drip


@pytest.fixture
def drip_server() -> Iterator[str]:
    stop = threading.Event()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _dripper(stop))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


def _web(net: NetPolicy = ALLOW) -> dict:
    return {t.name: t for t in get_tools_by_category("web", net=net)}


def _elapsed_of_failure(fn, *args) -> tuple[float, str]:  # type: ignore[no-untyped-def]
    started = time.monotonic()
    with pytest.raises(Exception) as caught:
        fn(*args)
    return time.monotonic() - started, str(caught.value)


@pytest.mark.parametrize("path", ["/body", "/headers"])
def test_http_get_timeout_is_a_total_deadline(drip_server: str, path: str) -> None:
    elapsed, message = _elapsed_of_failure(
        _web()["http_get"].execute, {"url": drip_server + path, "timeout": 1.5}
    )
    assert elapsed < 6, f"http_get(timeout=1.5) ran {elapsed:.1f}s"
    assert "did not finish within 1.5s" in message


def test_http_post_timeout_is_a_total_deadline(drip_server: str) -> None:
    elapsed, message = _elapsed_of_failure(
        _web()["http_post"].execute, {"url": drip_server + "/body", "data": "{}", "timeout": 1.5}
    )
    assert elapsed < 6, f"http_post(timeout=1.5) ran {elapsed:.1f}s"
    assert "did not finish within 1.5s" in message


def test_the_model_cannot_raise_the_timeout_past_the_cap(drip_server: str) -> None:
    capped = NetPolicy(allow_hosts=("127.0.0.1",), max_timeout=1.5)
    elapsed, message = _elapsed_of_failure(
        _web(capped)["http_get"].execute, {"url": drip_server + "/body", "timeout": 3600}
    )
    assert elapsed < 6, f"the cap of 1.5s did not hold: {elapsed:.1f}s"
    assert "did not finish within 1.5s" in message
    assert NetPolicy().max_timeout == MAX_TIMEOUT_SECONDS == 30.0


def test_a_web_loader_keeps_the_same_deadline(drip_server: str) -> None:
    elapsed, _ = _elapsed_of_failure(
        lambda: DocumentLoader.from_url(drip_server + "/body", policy=ALLOW, timeout=1.5)
    )
    assert elapsed < 6, f"DocumentLoader.from_url(timeout=1.5) ran {elapsed:.1f}s"


def test_bad_timeouts_are_refused() -> None:
    with pytest.raises(ToolExecutionError, match="timeout must be a number of seconds > 0"):
        _web()["http_get"].execute({"url": "http://127.0.0.1:9/", "timeout": 0})
    with pytest.raises(ValueError, match="max_timeout must be > 0"):
        NetPolicy(max_timeout=0)


def test_a_quick_server_still_answers(drip_server: str) -> None:
    # the deadline does not cut a normal exchange short: a listening socket that answers at once
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def answer() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")

    worker = threading.Thread(target=answer, daemon=True)
    worker.start()
    try:
        assert _web()["http_get"].execute({"url": f"http://127.0.0.1:{port}/", "timeout": 5}) == (
            "hello"
        )
    finally:
        listener.close()
        worker.join(5)


def test_a_slow_dns_answer_counts_against_the_deadline() -> None:
    """The name lookup is part of the request: a resolver that stalls cannot hold the tool."""
    release = threading.Event()

    def stalling_resolver(host: str, port: int) -> list[str]:
        release.wait(20)
        return ["127.0.0.1"]

    slow_dns = NetPolicy(allow_hosts=("127.0.0.1", "slow.test"), resolver=stalling_resolver)
    try:
        elapsed, message = _elapsed_of_failure(
            _web(slow_dns)["http_get"].execute, {"url": "http://slow.test:9/", "timeout": 1.5}
        )
    finally:
        release.set()
    assert elapsed < 6, f"a stalled DNS lookup held http_get(timeout=1.5) {elapsed:.1f}s"
    assert "did not finish within 1.5s" in message
