"""A total deadline for one HTTP exchange, held at the socket.

httpx's ``timeout`` is per operation: each connect, each write, each read may
take that long, so a server that sends one byte a second keeps a request open
for as long as it likes (headers included). :class:`DeadlineTransport` is an
httpx transport over httpcore's public connection pool whose network backend
clamps every socket operation's timeout to what is left of one deadline, so
connect, TLS handshake, headers and body together end when the deadline does.

httpx has no public way to give its own transport a network backend, hence
this small transport (the request/response mapping httpx's does, nothing more).

Model replies use the same socket clamp per request (:func:`reply_transport`:
one pooled transport for many requests; its async form cancels the exchange
instead; built for ``httpx`` and for ``httpx2``, which the vendor SDKs use):
the request's read timeout is a total deadline for the
connection and the response's head, and for a non-streamed body too. A
streamed body (``text/event-stream``, ``application/x-ndjson``) keeps the
per-read timeout between events: a long answer may take longer than the
timeout, and ``run_timeout`` cuts a stream between events.
"""

from __future__ import annotations

import contextvars
import ssl
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from types import ModuleType
from typing import Any

import httpcore
import httpx

__all__ = ["DeadlineTransport", "reply_transport"]

#: the deadline of the reply being read in this context (ReplyDeadlineTransport)
_REPLY_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "selectools_reply_deadline", default=None
)
_STREAMED = ("text/event-stream", "application/x-ndjson")

_CORE_ERRORS = (
    httpcore.TimeoutException,
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.UnsupportedProtocol,
    httpcore.ProxyError,
)


class _Clock:
    __slots__ = ("fixed",)

    def __init__(self, deadline: float | None = None) -> None:
        self.fixed = deadline

    @property
    def deadline(self) -> float | None:
        """The fixed deadline, else the current reply's (none: per-operation timeouts only)."""
        return self.fixed if self.fixed is not None else _REPLY_DEADLINE.get()

    def clamp(self, timeout: float | None, error: type[Exception]) -> float | None:
        """``timeout`` cut to the time left; ``error`` once none is left."""
        deadline = self.deadline
        if deadline is None:
            return timeout
        left = deadline - time.monotonic()
        if left <= 0:
            raise error("the request's total deadline passed")
        return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream, clock: _Clock) -> None:
        self._inner = inner
        self._clock = clock

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._clock.clamp(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._clock.clamp(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        wait = self._clock.clamp(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, wait), self._clock)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self, clock: _Clock) -> None:
        self._inner = httpcore.SyncBackend()
        self._clock = clock

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        wait = self._clock.clamp(timeout, httpcore.ConnectTimeout)
        stream = self._inner.connect_tcp(host, port, wait, local_address, socket_options)
        return _Stream(stream, self._clock)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise httpcore.UnsupportedProtocol("unix sockets are not used by the web tools")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def _mapped(exc: Exception) -> Exception:
    """httpx's exception of the same name (httpx mirrors httpcore's names)."""
    kind = getattr(httpx, type(exc).__name__, httpx.TransportError)
    if not (isinstance(kind, type) and issubclass(kind, httpx.TransportError)):
        kind = httpx.TransportError
    return kind(str(exc) or type(exc).__name__)


class _Body(httpx.SyncByteStream):
    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __iter__(self) -> Iterator[bytes]:
        try:
            yield from self._inner
        except _CORE_ERRORS as exc:
            raise _mapped(exc) from None

    def close(self) -> None:
        self._inner.close()


def _core_request(request: httpx.Request) -> httpcore.Request:
    return httpcore.Request(
        method=request.method,
        url=httpcore.URL(
            scheme=request.url.raw_scheme,
            host=request.url.raw_host,
            port=request.url.port,
            target=request.url.raw_path,
        ),
        headers=request.headers.raw,
        content=request.stream,
        extensions=request.extensions,
    )


def _reply_timeout(request: httpx.Request) -> float | None:
    """The request's read timeout: the total a model reply's head may take."""
    timeout = request.extensions.get("timeout") or {}
    value = timeout.get("read")
    return float(value) if value is not None else None


def _is_streamed(headers: Any) -> bool:
    for name, value in headers.raw if hasattr(headers, "raw") else headers:
        if name.lower() == b"content-type":
            return bool(value.split(b";")[0].strip().lower().decode() in _STREAMED)
    return False


class DeadlineTransport(httpx.BaseTransport):
    """An httpx transport whose exchanges all end by ``deadline`` (``time.monotonic()``)."""

    def __init__(self, deadline: float, ssl_context: ssl.SSLContext | None = None) -> None:
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context or httpx.create_ssl_context(),
            network_backend=_Backend(_Clock(deadline)),
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        try:
            response = self._pool.handle_request(_core_request(request))
        except _CORE_ERRORS as exc:
            raise _mapped(exc) from None
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_Body(response.stream),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._pool.close()


def reply_transport(http: ModuleType, context: ssl.SSLContext, *, asynchronous: bool) -> Any:
    """A transport for model replies for ``http`` (``httpx``, or ``httpx2`` the SDKs use).

    Sync: a pool whose sockets clamp each operation to the reply's deadline;
    async: the library's own transport, cancelled at the deadline.
    """
    sync_class, async_class = _reply_classes(http)
    if asynchronous:
        return async_class(http.AsyncHTTPTransport(verify=context))
    return sync_class(context)


_CLASSES: dict[str, tuple[type, type]] = {}


def _reply_classes(http: ModuleType) -> tuple[type, type]:
    """The reply transport classes over ``http``'s base classes (built once per library)."""
    if http.__name__ in _CLASSES:
        return _CLASSES[http.__name__]

    def mapped(exc: Exception) -> Exception:
        kind = getattr(http, type(exc).__name__, http.TransportError)
        if not (isinstance(kind, type) and issubclass(kind, http.TransportError)):
            kind = http.TransportError
        return kind(str(exc) or type(exc).__name__)  # type: ignore[no-any-return]

    class Body(http.SyncByteStream):  # type: ignore[name-defined,misc]
        """A reply's body; with ``deadline``, each read is clamped to it."""

        def __init__(self, inner: Any, deadline: float | None) -> None:
            self._inner = inner
            self._deadline = deadline

        def __iter__(self) -> Iterator[bytes]:
            chunks = iter(self._inner)
            while True:
                token = _REPLY_DEADLINE.set(self._deadline)
                try:
                    chunk = next(chunks)
                except StopIteration:
                    return
                except _CORE_ERRORS as exc:
                    raise mapped(exc) from None
                finally:
                    _REPLY_DEADLINE.reset(token)
                yield chunk

        def close(self) -> None:
            self._inner.close()

    class ReplyDeadlineTransport(http.BaseTransport):  # type: ignore[name-defined,misc]
        """A pooled transport whose request read timeout is a total deadline (module docstring)."""

        def __init__(self, context: ssl.SSLContext) -> None:
            self._pool = httpcore.ConnectionPool(
                ssl_context=context,
                max_connections=100,
                max_keepalive_connections=20,
                keepalive_expiry=5.0,
                network_backend=_Backend(_Clock()),
            )

        def handle_request(self, request: Any) -> Any:
            timeout = _reply_timeout(request)
            deadline = None if timeout is None else time.monotonic() + timeout
            token = _REPLY_DEADLINE.set(deadline)
            try:
                response = self._pool.handle_request(_core_request(request))
            except _CORE_ERRORS as exc:
                raise mapped(exc) from None
            finally:
                _REPLY_DEADLINE.reset(token)
            body_deadline = None if _is_streamed(response.headers) else deadline
            return http.Response(
                status_code=response.status,
                headers=response.headers,
                stream=Body(response.stream, body_deadline),
                extensions=response.extensions,
            )

        def close(self) -> None:
            self._pool.close()

    class AsyncBody(http.AsyncByteStream):  # type: ignore[name-defined,misc]
        def __init__(self, inner: Any, deadline: float) -> None:
            self._inner = inner
            self._deadline = deadline

        async def __aiter__(self) -> AsyncIterator[bytes]:
            import anyio

            chunks = self._inner.__aiter__()
            while True:
                try:
                    with anyio.fail_after(max(self._deadline - time.monotonic(), 0)):
                        chunk = await chunks.__anext__()
                except StopAsyncIteration:
                    return
                except TimeoutError:
                    raise http.ReadTimeout("the reply's total deadline passed") from None
                yield chunk

        async def aclose(self) -> None:
            await self._inner.aclose()

    class AsyncReplyDeadlineTransport(http.AsyncBaseTransport):  # type: ignore[name-defined,misc]
        """The library's async transport, its exchange cancelled at the request's deadline."""

        def __init__(self, inner: Any) -> None:
            self._inner = inner

        async def handle_async_request(self, request: Any) -> Any:
            import anyio

            timeout = _reply_timeout(request)
            if timeout is None:
                return await self._inner.handle_async_request(request)
            deadline = time.monotonic() + timeout
            try:
                with anyio.fail_after(timeout):
                    response = await self._inner.handle_async_request(request)
            except TimeoutError:
                raise http.ReadTimeout(
                    "the reply's total deadline passed", request=request
                ) from None
            if not _is_streamed(response.headers):
                response.stream = AsyncBody(response.stream, deadline)
            return response

        async def aclose(self) -> None:
            await self._inner.aclose()

    _CLASSES[http.__name__] = (ReplyDeadlineTransport, AsyncReplyDeadlineTransport)
    return _CLASSES[http.__name__]
