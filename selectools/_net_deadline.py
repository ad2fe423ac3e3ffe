"""A total deadline for one HTTP exchange, held at the socket.

httpx's ``timeout`` is per operation: each connect, each write, each read may
take that long, so a server that sends one byte a second keeps a request open
for as long as it likes (headers included). :class:`DeadlineTransport` is an
httpx transport over httpcore's public connection pool whose network backend
clamps every socket operation's timeout to what is left of one deadline, so
connect, TLS handshake, headers and body together end when the deadline does.

httpx has no public way to give its own transport a network backend, hence
this small transport (the request/response mapping httpx's does, nothing more).
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterable, Iterator
from typing import Any

import httpcore
import httpx

__all__ = ["DeadlineTransport"]

_CORE_ERRORS = (
    httpcore.TimeoutException,
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.UnsupportedProtocol,
    httpcore.ProxyError,
)


class _Clock:
    __slots__ = ("deadline",)

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline

    def clamp(self, timeout: float | None, error: type[Exception]) -> float:
        """``timeout`` cut to the time left; ``error`` once none is left."""
        left = self.deadline - time.monotonic()
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


class DeadlineTransport(httpx.BaseTransport):
    """An httpx transport whose exchanges all end by ``deadline`` (``time.monotonic()``)."""

    def __init__(self, deadline: float, ssl_context: ssl.SSLContext | None = None) -> None:
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context or httpx.create_ssl_context(),
            network_backend=_Backend(_Clock(deadline)),
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        core = httpcore.Request(
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
        try:
            response = self._pool.handle_request(core)
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
