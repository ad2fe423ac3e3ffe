"""uvicorn with the two limits it lacks: a deadline for receiving a request and a connection cap.

uvicorn (0.30-0.54) arms no timer while a request arrives: its keep-alive timer
starts only after a response and the next byte cancels it, so a client that
connects and sends nothing, or drips its headers or body a byte at a time, holds
its socket (and, once the headers are in, a task) forever; and
``limit_concurrency`` answers 503 only once a request's headers are complete,
which a slow client never sends. The protocol class made here (a subclass of
whichever HTTP protocol uvicorn would pick, h11 or httptools) closes a connection
whose request (headers and body) is not complete ``request_timeout`` seconds
after its first byte (or after connecting), whatever it drips meanwhile, and
answers 503 and closes a connection over ``max_connections`` as soon as it is
accepted. The response may take as long as the run does.
"""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Any

__all__ = [
    "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_REQUEST_TIMEOUT",
    "check_limits",
    "limited_server",
    "protocol_class",
    "server_options",
]

DEFAULT_REQUEST_TIMEOUT = 10.0
DEFAULT_MAX_CONNECTIONS = 500
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: 35\r\n\r\ntoo many connections; try it again\n"
)


def protocol_class(
    request_timeout: float, max_connections: int, http: str
) -> type[asyncio.Protocol]:
    if http == "httptools" or (http == "auto" and importlib.util.find_spec("httptools")):
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
    else:
        from uvicorn.protocols.http.h11_impl import H11Protocol as base  # type: ignore[assignment]

    class LimitedProtocol(base):
        _request_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                transport.write(_BUSY)
                transport.close()
                return
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if not self._receiving():
                self._disarm()
            elif self._request_timer is None:
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _receiving(self) -> bool:
            """Between requests, or headers or body still on the way."""
            cycle = self.cycle
            return cycle is None or bool(cycle.response_complete) or bool(cycle.more_body)

        def _arm(self) -> None:
            self._request_timer = self.loop.call_later(request_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._request_timer is not None:
                self._request_timer.cancel()
                self._request_timer = None

        def _too_slow(self) -> None:
            self._request_timer = None
            if self._receiving() and not self.transport.is_closing():
                self.transport.close()

    return LimitedProtocol


def server_options() -> dict[str, Any]:
    """The uvicorn settings every selectools server runs with (one worker or several).

    ``proxy_headers`` is off: uvicorn would otherwise take the client's address from
    ``X-Forwarded-For`` sent from 127.0.0.1, so any local process could pose as a new
    address for each wrong token and never meet the attempt limiter.
    """
    return {"log_level": "warning", "access_log": False, "lifespan": "off", "proxy_headers": False}


def check_limits(request_timeout: float, max_connections: int) -> None:
    if not request_timeout > 0:
        raise ValueError(
            f"request_timeout must be a positive number of seconds, got {request_timeout!r}"
        )
    if max_connections < 1:
        raise ValueError(f"max_connections must be at least 1, got {max_connections!r}")


def limited_server(
    asgi: Any,
    *,
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    http: str = "auto",
) -> Any:
    """A ``uvicorn.Server`` for ``asgi`` with both limits (run it with ``sockets=[...]``).

    ``http`` picks uvicorn's HTTP parser as its ``--http`` option does: ``auto``
    (httptools when installed), ``h11`` or ``httptools``.
    """
    import uvicorn

    check_limits(request_timeout, max_connections)
    config = uvicorn.Config(
        asgi, http=protocol_class(request_timeout, max_connections, http), **server_options()
    )
    return uvicorn.Server(config)
