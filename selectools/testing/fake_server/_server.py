"""``FakeLLMServer``: a local HTTP server that speaks the LLM vendors' wire protocols.

Point a real SDK (or a selectools provider) at it and it answers like OpenAI,
Azure OpenAI, Anthropic, Gemini or Ollama would: JSON or streamed (SSE /
NDJSON) replies, tool calls, usage, and errors in each vendor's shape. Replies
are scripted per test and faults injected on demand, so retry, fallback and
timeout behaviour can be tested end to end without a network::

    from selectools.testing import FakeLLMServer, Fault

    with FakeLLMServer() as server:
        server.add(Fault.rate_limit(retry_after=1), "Hello!")
        provider = OpenAIProvider(api_key="test", base_url=server.openai_base_url)
        ...
        assert server.requests[0].header("authorization") == "Bearer test"

In pytest, a fixture is two lines::

    @pytest.fixture
    def llm_server():
        with FakeLLMServer() as server:
            yield server
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import traceback
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ._dialect import Dialect, RenderContext
from ._routes import Route, embedding_inputs, match_route
from ._script import FakeReply, Fault, RecordedRequest, as_reply, fake_embedding
from ._wire import end_chunks, reset, send_chunk, send_json, send_raw

__all__ = ["FakeLLMServer"]

_FILLER = "This reply comes from FakeLLMServer after an injected fault, word by word."
_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError, OSError)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64
    fake: FakeLLMServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, _GONE):
            return
        self.fake._record_error(traceback.format_exc())


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeLLMServer/1.0"
    timeout = 60
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        # headers and body go out as separate writes: without TCP_NODELAY, Nagle holds the
        # body until the client's delayed ACK (~40 ms per request on Linux)
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:
        self.server.fake._handle(self)

    def do_GET(self) -> None:
        self.server.fake._handle(self)

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: tests assert on ``server.requests`` instead."""


class FakeLLMServer:
    """A scripted, wire-compatible LLM server on ``127.0.0.1`` (an ephemeral port by default).

    ``replies`` is a sequence of reply-likes, or one function called with each
    :class:`RecordedRequest` that returns one. A reply-like is a ``str``, a
    ``ToolCall``/``FakeToolCall`` (or a list: parallel calls), a
    :class:`FakeReply` or a :class:`Fault`. Every chat request consumes the
    next one, whichever vendor it speaks; when the script runs out, ``default``
    is replayed, or the request fails with HTTP 400 saying the script ran out.
    Embedding requests get deterministic vectors of ``embedding_dimensions``
    unless :meth:`add_embeddings` scripted something else. With ``api_key``
    set, requests without that key in the vendor's auth header get a 401.
    """

    def __init__(
        self,
        replies: Iterable[Any] | Callable[[RecordedRequest], Any] = (),
        *,
        default: Any = None,
        api_key: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        embedding_dimensions: int = 8,
    ) -> None:
        if embedding_dimensions < 1:
            raise ValueError(f"embedding_dimensions must be >= 1, got {embedding_dimensions}")
        self._responder = replies if callable(replies) else None
        self._queue: deque[Any] = deque(() if callable(replies) else replies)
        self._embedding_queue: deque[Any] = deque()
        self.default = default
        self.api_key = api_key
        self.embedding_dimensions = embedding_dimensions
        self._host = host
        self._requested_port = port
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._requests: list[RecordedRequest] = []
        self._played = 0
        self.errors: list[str] = []
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------
    def start(self) -> FakeLLMServer:
        """Bind and serve in a background thread (idempotent)."""
        if self._httpd is not None:
            return self
        httpd = _HTTPServer((self._host, self._requested_port), _Handler)
        httpd.fake = self
        self._closing.clear()
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.01},
            daemon=True,
            name=f"FakeLLMServer:{self.port}",
        )
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving; stalled responses are released at once."""
        httpd = self._httpd
        if httpd is None:
            return
        self._closing.set()
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = self.url if self._httpd is not None else "stopped"
        return f"FakeLLMServer({state}, scripted={self.remaining}, requests={len(self._requests)})"

    # -- addresses --------------------------------------------------------------
    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError(
                "FakeLLMServer is not running; use `with FakeLLMServer() as s:` or .start()"
            )
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{self._host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """For ``OpenAI(base_url=...)`` / ``OPENAI_BASE_URL``."""
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """For ``Anthropic(base_url=...)`` / ``ANTHROPIC_BASE_URL``."""
        return self.url

    @property
    def gemini_base_url(self) -> str:
        """For ``GeminiProvider(base_url=...)`` / ``GEMINI_BASE_URL``."""
        return self.url

    @property
    def ollama_host(self) -> str:
        """For ``OllamaProvider(host=...)`` / ``OLLAMA_HOST``."""
        return self.url

    @property
    def azure_endpoint(self) -> str:
        """For ``AzureOpenAI(azure_endpoint=...)`` / ``AZURE_OPENAI_ENDPOINT``."""
        return self.url

    def env(self, api_key: str = "fake-key", deployment: str = "gpt-4o") -> dict[str, str]:
        """Environment variables that point every selectools provider (and SDK) here."""
        return {
            "OPENAI_BASE_URL": self.openai_base_url,
            "OPENAI_API_KEY": api_key,
            "ANTHROPIC_BASE_URL": self.anthropic_base_url,
            "ANTHROPIC_API_KEY": api_key,
            "GEMINI_BASE_URL": self.gemini_base_url,
            "GEMINI_API_KEY": api_key,
            "OLLAMA_HOST": self.ollama_host,
            "AZURE_OPENAI_ENDPOINT": self.azure_endpoint,
            "AZURE_OPENAI_API_KEY": api_key,
            "AZURE_OPENAI_DEPLOYMENT": deployment,
        }

    # -- scripting --------------------------------------------------------------
    def add(self, *replies: Any) -> FakeLLMServer:
        """Queue chat replies (checked now, so a typo fails in the test, not the server)."""
        for item in replies:
            if not callable(item):
                as_reply(item)
        with self._lock:
            self._queue.extend(replies)
        return self

    def add_embeddings(self, *items: list[list[float]] | Fault) -> FakeLLMServer:
        """Queue answers for embedding requests: explicit vectors (one list per input) or faults."""
        for item in items:
            if not isinstance(item, (Fault, list)):
                raise TypeError(
                    f"add_embeddings takes lists of vectors or Faults, got {type(item).__name__}"
                )
        with self._lock:
            self._embedding_queue.extend(items)
        return self

    def reset(self) -> None:
        """Forget the script, the queued embeddings and the recorded requests."""
        with self._lock:
            self._queue.clear()
            self._embedding_queue.clear()
            self._requests.clear()
            self._played = 0
            self.errors.clear()

    @property
    def remaining(self) -> int:
        """Scripted chat replies not yet played."""
        return len(self._queue)

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, oldest first (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def last_request(self) -> RecordedRequest:
        with self._lock:
            if not self._requests:
                raise LookupError("FakeLLMServer has not received any request yet")
            return self._requests[-1]

    def _record_error(self, text: str) -> None:
        with self._lock:
            self.errors.append(text)
        sys.stderr.write(f"FakeLLMServer internal error:\n{text}\n")

    # -- serving ------------------------------------------------------------------
    def _handle(self, h: _Handler) -> None:
        url = urlsplit(h.path)
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        try:
            data = json.loads(body) if body else None
        except ValueError:
            data = None
        route = match_route(url.path, data) if h.command == "POST" else None
        if route is None:
            message = f"FakeLLMServer serves no {h.command} {url.path}"
            send_json(h, 404, {"error": {"message": message, "type": "not_found"}})
            return
        record = RecordedRequest(
            vendor=route.vendor,
            route=route.kind,
            method=h.command,
            path=url.path,
            query=dict(parse_qsl(url.query)),
            headers={k.lower(): v for k, v in h.headers.items()},
            body=body,
            json=data,
            stream=route.stream,
            model=route.model,
        )
        with self._lock:
            self._requests.append(record)
        if self.api_key is not None and _credential(record) != self.api_key:
            self._send_error(h, route.dialect, 401, "Incorrect API key provided.", None)
            return
        if route.kind == "embeddings":
            self._embeddings(h, route, record)
        else:
            self._chat(h, route, record)

    def _drip_headers(self, h: _Handler, interval: float) -> None:
        """A status line and headers, a byte at a time, then the connection closed."""
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Drip: "
        h.close_connection = True
        try:
            for byte in head + b"." * 4000 + b"\r\n\r\n":
                if self._pause(h, interval):
                    return
                h.wfile.write(bytes([byte]))
        except OSError:  # the client gave up
            pass

    def _pause(self, h: _Handler, seconds: float) -> bool:
        """Wait ``seconds``; True (and the connection dropped) if the server closes meanwhile."""
        if self._closing.wait(seconds):
            h.close_connection = True
            return True
        return False

    def _next(self, record: RecordedRequest) -> FakeReply | Fault | None:
        with self._lock:
            if self._responder is not None:
                item: Any = self._responder
            elif self._queue:
                item = self._queue.popleft()
            elif self.default is not None:
                item = self.default
            else:
                return None
            self._played += 1
        if callable(item) and not isinstance(item, (FakeReply, Fault)):
            item = item(record)
        return as_reply(item)

    def _chat(self, h: _Handler, route: Route, record: RecordedRequest) -> None:
        dialect = route.dialect
        scripted = self._next(record)
        if scripted is None:
            message = (
                f"FakeLLMServer has no scripted reply left ({self._played} played); "
                "add more with server.add(...) or pass default=..."
            )
            self._send_error(h, dialect, 400, message, None)
            return
        fault: Fault | None
        if isinstance(scripted, Fault):
            reply, fault = FakeReply(text=_FILLER), scripted
        else:
            reply, fault = scripted, scripted.fault
        ctx = RenderContext(route.model or "fake-model", len(record.body), record.json)
        if reply.latency and self._pause(h, reply.latency):
            return
        early = (
            fault
            if fault is not None and (fault.after_chunks is None or not route.stream)
            else None
        )
        if early is not None and self._fault_before(h, dialect, early, reply, ctx, route.stream):
            return
        if route.stream:
            mid = None
            if fault is not None and fault.after_chunks is not None:
                mid = fault
            elif fault is not None and fault.kind in ("malformed", "truncate"):
                mid = replace(fault, after_chunks=0)
            self._stream(h, dialect, reply, ctx, mid, record)
        else:
            send_json(h, 200, dialect.reply_json(reply, ctx))

    def _fault_before(
        self,
        h: _Handler,
        dialect: Dialect,
        fault: Fault,
        reply: FakeReply,
        ctx: RenderContext,
        stream: bool,
    ) -> bool:
        """Apply a fault before any response byte; True when the request is answered."""
        if fault.kind == "status":
            self._send_error(h, dialect, fault.status, fault.message or "error", fault.retry_after)
            return True
        if fault.kind == "reset":
            reset(h)
            return True
        if fault.kind == "stall":
            # a pause, then the normal reply (if the client is still there)
            return self._pause(h, fault.seconds)
        if fault.kind == "drip":
            self._drip_headers(h, fault.seconds)
            return True
        if fault.kind == "malformed" and not stream:
            send_raw(h, 200, b'{"id": "broken", "choices": [{"message": {"content": "unterm')
            return True
        if fault.kind == "truncate" and not stream:
            whole = json.dumps(dialect.reply_json(reply, ctx)).encode()
            send_raw(h, 200, whole[: len(whole) // 2])
            return True
        return False

    def _stream(
        self,
        h: _Handler,
        dialect: Dialect,
        reply: FakeReply,
        ctx: RenderContext,
        fault: Fault | None,
        record: RecordedRequest,
    ) -> None:
        events = list(dialect.stream_events(reply, ctx))
        if record.vendor == "gemini" and record.query.get("alt") != "sse":
            send_json(h, 200, [json.loads(e[0].decode()[6:]) for e in events])
            return
        cut = len(events)
        if fault is not None:
            cut = _cut_point(events, fault.after_chunks or 0)
        h.send_response(200)
        h.send_header("Content-Type", dialect.stream_content_type)
        h.send_header("Cache-Control", "no-cache")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        for data, is_content in events[:cut]:
            send_chunk(h, data)
            if is_content and reply.chunk_latency and self._pause(h, reply.chunk_latency):
                return
        if fault is None:
            end_chunks(h)
            return
        if fault.kind == "reset":
            reset(h)
            return
        if fault.kind == "stall":
            if self._pause(h, fault.seconds):
                return
            for data, _ in events[cut:]:
                send_chunk(h, data)
        elif fault.kind == "status":
            send_chunk(h, dialect.error_event(fault.status, fault.message or "error"))
        elif fault.kind == "malformed":
            send_chunk(h, dialect.malformed_event())
        end_chunks(h)

    def _embeddings(self, h: _Handler, route: Route, record: RecordedRequest) -> None:
        dialect = route.dialect
        texts = embedding_inputs(route.vendor, record.json)
        with self._lock:
            scripted = self._embedding_queue.popleft() if self._embedding_queue else None
        if isinstance(scripted, Fault):
            if not self._fault_before(
                h, dialect, scripted, FakeReply(), _ctx(route, texts, record), False
            ):
                vectors = [fake_embedding(t, self.embedding_dimensions) for t in texts]
                send_json(h, 200, dialect.embeddings_json(vectors, _ctx(route, texts, record)))
            return
        vectors = (
            scripted
            if scripted is not None
            else [fake_embedding(text, self.embedding_dimensions) for text in texts]
        )
        send_json(h, 200, dialect.embeddings_json(vectors, _ctx(route, texts, record)))

    def _send_error(
        self, h: _Handler, dialect: Dialect, status: int, message: str, retry_after: float | None
    ) -> None:
        headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
        send_json(h, status, dialect.error_json(status, message, retry_after), headers)


def _ctx(route: Route, texts: list[str], record: RecordedRequest) -> RenderContext:
    return RenderContext(route.model or "fake-embedding", sum(len(t) for t in texts), record.json)


def _credential(record: RecordedRequest) -> str | None:
    headers = record.headers
    bearer = headers.get("authorization", "")
    token = bearer[7:] if bearer.lower().startswith("bearer ") else None
    if record.vendor == "azure":
        return headers.get("api-key") or token
    if record.vendor == "anthropic":
        return headers.get("x-api-key") or token
    if record.vendor == "gemini":
        return headers.get("x-goog-api-key") or record.query.get("key")
    if record.vendor == "ollama":
        return token
    return token


def _cut_point(events: list[tuple[bytes, bool]], after: int) -> int:
    """Index of the event before which a fault after ``after`` content events strikes."""
    seen = 0
    last_content = 0
    for index, (_, is_content) in enumerate(events):
        if is_content:
            if seen == after:
                return index
            seen += 1
            last_content = index + 1
    return last_content
