"""``selectools serve --workers N``: uvicorn's worker processes, each building its own app.

uvicorn starts its workers with ``spawn``, so everything it hands them is pickled:
the app must be a factory (a module-level function with plain arguments, rebuilt
in each worker) and the protocol class with our limits (made per server in
:mod:`._uvicorn`) cannot travel; :class:`_LimitedConfig` carries the limits as
plain values and makes the class in the worker. The parent binds the socket once
and every worker accepts on it; uvicorn's supervisor restarts a worker that dies
and stops them all on Ctrl+C or SIGTERM.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import uvicorn
from uvicorn.supervisors import Multiprocess

from ._uvicorn import protocol_class, server_options

__all__ = ["run_workers"]


class _LimitedConfig(uvicorn.Config):
    """A uvicorn config whose HTTP protocol (with our two limits) is made where it loads."""

    def __init__(
        self, app: Any, *, request_timeout: float, max_connections: int, **options: Any
    ) -> None:
        self.request_timeout = request_timeout
        self.max_connections = max_connections
        super().__init__(app, **options)

    def load(self) -> None:
        if isinstance(self.http, str):
            self.http = protocol_class(self.request_timeout, self.max_connections, self.http)
        super().load()


def run_workers(
    factory: Callable[[], Any],
    sock: socket.socket,
    workers: int,
    *,
    request_timeout: float,
    max_connections: int,
) -> None:
    """Serve ``factory()`` (picklable; called once in each worker) on ``sock`` with ``workers`` processes."""
    config = _LimitedConfig(
        factory,
        factory=True,
        workers=workers,
        request_timeout=request_timeout,
        max_connections=max_connections,
        **server_options(),
    )
    Multiprocess(config, sockets=[sock]).run()
