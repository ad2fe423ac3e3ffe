"""uvicorn with the two limits it lacks: a deadline for request headers and a connection cap.

uvicorn (0.30-0.54) arms no timer while a request's headers arrive: its keep-alive
timer starts only after a response and the next byte cancels it, so a client that
connects and sends nothing, or drips a header a byte at a time, holds its socket
forever; and ``limit_concurrency`` answers 503 only once a request's headers are
complete, which a slow client never sends. The protocol class made here (a subclass
of whichever HTTP protocol uvicorn would pick, h11 or httptools) closes a
connection whose request headers are not complete ``header_timeout`` seconds after
its first byte (or after connecting), whatever it drips meanwhile, and answers 503
and closes a connection over ``max_connections`` as soon as it is accepted.
"""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Any

__all__ = ["DEFAULT_HEADER_TIMEOUT", "DEFAULT_MAX_CONNECTIONS", "limited_server"]

DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_MAX_CONNECTIONS = 500
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: 35\r\n\r\ntoo many connections; try it again\n"
)


def _protocol_class(
    header_timeout: float, max_connections: int, http: str
) -> type[asyncio.Protocol]:
    if http == "httptools" or (http == "auto" and importlib.util.find_spec("httptools")):
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
    else:
        from uvicorn.protocols.http.h11_impl import H11Protocol as base  # type: ignore[assignment]

    class LimitedProtocol(base):
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                transport.write(_BUSY)
                transport.close()
                return
            self._arm_header_timer()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._awaiting_headers():
                if self._header_timer is None:
                    self._arm_header_timer()
            else:
                self._disarm_header_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm_header_timer()
            super().connection_lost(exc)

        def _awaiting_headers(self) -> bool:
            cycle = self.cycle
            return cycle is None or bool(cycle.response_complete)

        def _arm_header_timer(self) -> None:
            self._header_timer = self.loop.call_later(header_timeout, self._headers_too_slow)

        def _disarm_header_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_slow(self) -> None:
            self._header_timer = None
            if self._awaiting_headers() and not self.transport.is_closing():
                self.transport.close()

    return LimitedProtocol


def limited_server(
    asgi: Any,
    *,
    header_timeout: float = DEFAULT_HEADER_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    http: str = "auto",
) -> Any:
    """A ``uvicorn.Server`` for ``asgi`` with both limits (run it with ``sockets=[...]``).

    ``http`` picks uvicorn's HTTP parser as its ``--http`` option does: ``auto``
    (httptools when installed), ``h11`` or ``httptools``.
    """
    import uvicorn

    if not header_timeout > 0:
        raise ValueError(
            f"header_timeout must be a positive number of seconds, got {header_timeout!r}"
        )
    if max_connections < 1:
        raise ValueError(f"max_connections must be at least 1, got {max_connections!r}")
    config = uvicorn.Config(
        asgi,
        log_level="warning",
        access_log=False,
        lifespan="off",
        http=_protocol_class(header_timeout, max_connections, http),
    )
    return uvicorn.Server(config)
