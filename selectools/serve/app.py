"""``create_app`` and ``AgentServer``: an agent as an HTTP API in three lines.

``AgentServer`` is an ASGI app (``uvicorn module:app`` serves it, with
``--workers``) that also runs itself: ``serve()`` blocks on uvicorn, and
``serve(background=True)`` runs it on a thread and returns a
:class:`ServerHandle` to stop it, which a notebook shows as the playground in an
IFrame. It binds 127.0.0.1 unless told otherwise and says so when it listens on
every interface.
"""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._display import RichDisplay
from ._uvicorn import DEFAULT_MAX_CONNECTIONS, DEFAULT_REQUEST_TIMEOUT, limited_server
from .models import DEFAULT_OVERRIDES
from .router import AgentRouter

if TYPE_CHECKING:
    from ..agent.core import Agent
    from ..memory.sessions import SessionStore

__all__ = ["AgentServer", "ServerHandle", "create_app", "serve_in_background"]

_ENDPOINTS = [
    ("POST", "/invoke", "single prompt"),
    ("POST", "/stream", "SSE streaming"),
    ("GET ", "/health", "health check"),
    ("GET ", "/schema", "tool schemas"),
]


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no 40 ms Nagle/delayed-ACK stall
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise OSError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


class ServerHandle(RichDisplay):
    """A server running on a background thread: ``url``, ``stop()``; shows the playground."""

    def __init__(self, server: Any, thread: threading.Thread, url: str, playground: bool) -> None:
        self._server = server
        self._thread = thread
        self.url = url
        self.playground_url = f"{url}/playground" if playground else None

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server and wait for its thread (idempotent)."""
        self._server.should_exit = True
        self._thread.join(timeout)

    def __enter__(self) -> ServerHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"ServerHandle({self.url!r}, {state})"


class AgentServer:
    """An ASGI app serving one agent, which can also start its own uvicorn server."""

    def __init__(
        self,
        router: AgentRouter,
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        auth_token: str | None = None,
        cors_origins: Sequence[str] | None = None,
        allowed_hosts: Sequence[str] = (),
        max_body_bytes: int = 1_000_000,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
    ) -> None:
        from ._starlette_app import build_app

        if auth_token is not None and not auth_token.strip():
            raise ValueError(
                "auth_token is empty, which would protect nothing: pass a real secret "
                "(e.g. secrets.token_urlsafe(32)), or leave it out (None) for no token"
            )
        self.router = router
        self.host = host
        self.port = port
        self.auth_required = auth_token is not None
        self.request_timeout = request_timeout
        self.max_connections = max_connections
        self.asgi = build_app(
            router,
            auth_token=auth_token,
            cors_origins=cors_origins,
            allowed_hosts=[host, *allowed_hosts],
            max_body_bytes=max_body_bytes,
        )

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.asgi(scope, receive, send)

    def banner(self, host: str, port: int) -> str:
        prefix = self.router.prefix
        lines = [f"Selectools agent serving at http://{host}:{port}{prefix}"]
        endpoints = list(_ENDPOINTS)
        if self.router.enable_playground:
            endpoints.append(("GET ", "/playground", "chat UI"))
        lines += [f"  {m} {p:<9} -- {d}" for m, p, d in endpoints]
        if self.auth_required:
            lines.append("  (bearer token required: Authorization: Bearer <token>)")
        lines += ["", "Press Ctrl+C to stop."]
        return "\n".join(lines)

    def _uvicorn(self) -> Any:
        return limited_server(
            self.asgi, request_timeout=self.request_timeout, max_connections=self.max_connections
        )

    def _warn_public(self, host: str) -> None:
        if host in ("0.0.0.0", "::", ""):
            print(
                f"warning: listening on {host or 'every interface'}: the agent is reachable from "
                "other machines"
                + ("" if self.auth_required else " and has no auth token")
                + "; it answers to IP addresses, localhost and the names in allowed_hosts",
                file=sys.stderr,
            )

    def serve(
        self, port: int | None = None, *, host: str | None = None, background: bool = False
    ) -> ServerHandle | None:
        """Start the server on ``host:port`` (port 0 picks a free one).

        Blocks until Ctrl+C, or with ``background=True`` returns a
        :class:`ServerHandle` once the server accepts connections.
        """
        host = self.host if host is None else host
        sock = _bind(host, self.port if port is None else port)
        self.asgi.allow_host(host)
        actual = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        self._warn_public(host)
        server = self._uvicorn()
        if not background:
            print(self.banner(shown, actual), flush=True)
            try:
                server.run(sockets=[sock])
            finally:
                sock.close()
            return None
        return _background(
            server,
            sock,
            f"http://{shown}:{actual}{self.router.prefix}",
            self.router.enable_playground,
        )


def _background(server: Any, sock: socket.socket, url: str, playground: bool) -> ServerHandle:
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="selectools-serve", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    if not server.started:
        server.should_exit = True
        raise RuntimeError("the server did not start within 15 s")
    return ServerHandle(server, thread, url, playground)


def serve_in_background(
    asgi: Any,
    port: int = 0,
    host: str = "127.0.0.1",
    *,
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    http: str = "auto",
) -> ServerHandle:
    """Any ASGI app (the builder's, for one) on uvicorn in a background thread."""
    sock = _bind(host, port)
    server = limited_server(
        asgi, request_timeout=request_timeout, max_connections=max_connections, http=http
    )
    shown = f"[{host}]" if ":" in host else host
    return _background(server, sock, f"http://{shown}:{sock.getsockname()[1]}", False)


def create_app(
    agent: Agent,
    prefix: str = "",
    playground: bool = True,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    auth_token: str | None = None,
    cors_origins: Sequence[str] | None = None,
    allowed_hosts: Sequence[str] = (),
    session_store: SessionStore | None = None,
    max_body_bytes: int = 1_000_000,
    max_prompt_chars: int = 32_000,
    allowed_overrides: frozenset[str] | set[str] = DEFAULT_OVERRIDES,
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
) -> AgentServer:
    """Serve ``agent`` over HTTP: ``create_app(agent).serve(port=8000)``.

    ``auth_token`` requires ``Authorization: Bearer <token>`` on the API (an
    empty one is refused); ``cors_origins`` lists the other browser origins
    allowed to call it and to frame the playground (none by default: pages of
    other sites are refused with 403); ``allowed_hosts`` adds host names the
    server answers to besides IP addresses, ``localhost`` and ``host`` (other
    names are refused: DNS rebinding); ``session_store`` holds the sessions
    requests name with ``session_id`` (share one Redis store between workers);
    the two size limits bound a request, ``request_timeout`` drops a client whose
    request (headers and body) takes longer to arrive, and ``max_connections`` caps open sockets
    (``serve()`` only: under your own uvicorn, use its options).
    """
    router = AgentRouter(
        agent,
        prefix=prefix,
        enable_playground=playground,
        session_store=session_store,
        max_prompt_chars=max_prompt_chars,
        allowed_overrides=allowed_overrides,
    )
    return AgentServer(
        router,
        host=host,
        port=port,
        auth_token=auth_token,
        cors_origins=cors_origins,
        allowed_hosts=allowed_hosts,
        max_body_bytes=max_body_bytes,
        request_timeout=request_timeout,
        max_connections=max_connections,
    )
