"""Who may call a local server: the request guard, framing policy and the sign-in attempt limiter.

Any web page the user opens is an attacker until the request says otherwise. A page
can POST "simple" cross-site requests (``text/plain``, form bodies) without a CORS
preflight, and a DNS-rebinding page reaches ``127.0.0.1`` under its own host name
as a same-origin request. :class:`RequestGuard` refuses all three before any route
runs: a ``Host`` that is neither an IP literal, ``localhost``, the bound name nor a
configured host (403); an ``Origin`` that is neither the server's own nor a
configured one (403); a POST body that is not declared as JSON (415, which also
forces browsers into a preflight that CORS, off by default, refuses). Clients
that are not browsers send no ``Origin`` and pass.
"""

from __future__ import annotations

import ipaddress
import json
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

__all__ = ["LOOPBACK_FRAME_ANCESTORS", "AttemptLimiter", "RequestGuard", "frame_ancestors"]

#: a local Jupyter (any port on this machine) may embed the pages
LOOPBACK_FRAME_ANCESTORS = (
    "http://127.0.0.1:*",
    "http://localhost:*",
    "https://127.0.0.1:*",
    "https://localhost:*",
)
_DEFAULT_PORTS = {"http": "80", "https": "443"}
_DECISIONS = 1024  # the most remembered decisions; the table starts afresh when full
_UNDECIDED = object()


def frame_ancestors(origins: Iterable[str] = ()) -> str:
    """The CSP ``frame-ancestors`` directive: the page itself, a local Jupyter and ``origins``."""
    sources = ["'self'", *LOOPBACK_FRAME_ANCESTORS, *(o.rstrip("/") for o in origins)]
    return "frame-ancestors " + " ".join(dict.fromkeys(sources))


def _host_name(host: str) -> str:
    """``Host`` header → the name alone: ``[::1]:80`` → ``::1``, ``Example.com.:80`` → ``example.com``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        host = host.partition(":")[0]
    return host.rstrip(".")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _netloc(origin: str) -> str | None:
    """``https://Example.com:443`` → ``example.com``; None for ``null`` or anything unparsable."""
    try:
        parts = urlsplit(origin.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    name = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    if port is None or str(port) == _DEFAULT_PORTS[parts.scheme]:
        return name
    return f"{name}:{port}"


def _host_netloc(host: str) -> str:
    host = host.strip().lower()
    for default in _DEFAULT_PORTS.values():
        if host.endswith(f":{default}") and not host.endswith("]"):
            return host[: -len(default) - 1]
    return host


async def _refuse(send: Any, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"x-content-type-options", b"nosniff"),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class RequestGuard:
    """ASGI middleware: Host, Origin and Content-Type checks in front of every route."""

    def __init__(
        self,
        app: Any,
        *,
        allowed_hosts: Iterable[str] = (),
        allowed_origins: Iterable[str] = (),
    ) -> None:
        self.app = app
        self.allowed_hosts = {_host_name(h) for h in allowed_hosts} | {"localhost"}
        self.allowed_origins = {n for o in allowed_origins if (n := _netloc(o)) is not None}
        self.any_origin = "*" in allowed_origins
        #: the refusal (or None) for each (method, Host, Origin, Content-Type) seen lately:
        #: the check is a pure function of those four, and clients repeat them
        self._decided: dict[tuple[Any, ...], Any] = {}

    @property
    def state(self) -> Any:
        """The wrapped app's ``state`` (Starlette's), e.g. the builder's ``auth_token``."""
        return self.app.state

    def allow_host(self, host: str) -> None:
        """Also answer to ``host`` (the name the server was bound to)."""
        self.allowed_hosts.add(_host_name(host))
        self._decided.clear()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = origin = media = None
        for name, value in scope["headers"]:
            if name == b"host":
                host = value
            elif name == b"origin":
                origin = value
            elif name == b"content-type":
                media = value
        key = (scope["method"], host, origin, media)
        refusal = self._decided.get(key, _UNDECIDED)
        if refusal is _UNDECIDED:
            refusal = self._refusal(
                scope["method"],
                {
                    name: value.decode("latin-1")
                    for name, value in (("host", host), ("origin", origin), ("content-type", media))
                    if value is not None
                },
            )
            if len(self._decided) >= _DECISIONS:
                self._decided.clear()
            self._decided[key] = refusal
        if refusal is None:
            await self.app(scope, receive, send)
        else:
            await _refuse(send, *refusal)

    def _refusal(self, method: str, headers: dict[str, str]) -> tuple[int, str, str] | None:
        host = headers.get("host", "")
        name = _host_name(host)
        if host and not ("*" in self.allowed_hosts or _is_ip(name) or name in self.allowed_hosts):
            return (
                403,
                "host_not_allowed",
                f"this server does not answer to the host name {name!r} (a page on another site "
                "could reach it under that name: DNS rebinding). It answers to IP addresses, "
                f"{', '.join(sorted(self.allowed_hosts))}; to reach it by that name, pass "
                f"allowed_hosts=[{name!r}]",
            )
        origin = headers.get("origin")
        if origin is not None and not self.any_origin:
            netloc = _netloc(origin)
            own = netloc is not None and netloc == _host_netloc(host)
            if not own and netloc not in self.allowed_origins:
                return (
                    403,
                    "origin_not_allowed",
                    f"requests from web pages at {origin!r} are refused: a page may call this "
                    "server only from its own origin or from an origin listed in "
                    "cors_origins (selectools serve --cors-origin)",
                )
        if method == "POST":
            declared = headers.get("content-type", "")
            media = declared.partition(";")[0].strip().lower()
            if media != "application/json":
                shown = repr(declared) if declared else "no Content-Type"
                return (
                    415,
                    "unsupported_media_type",
                    f"send the body as JSON with 'Content-Type: application/json' (got {shown})",
                )
        return None


class AttemptLimiter:
    """Wrong tokens per client address: after ``attempts`` in ``window`` seconds, it must wait.

    While an address is over the limit every token it sends is refused unchecked,
    so guessing gets nowhere; the table of addresses is bounded.
    """

    def __init__(self, attempts: int = 10, window: float = 60.0, max_clients: int = 4096) -> None:
        self.attempts = attempts
        self.window = window
        self._max_clients = max_clients
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def wait_seconds(self, client: str, now: float | None = None) -> float:
        """0 when ``client`` may try a token now, else how long until it may."""
        now = time.monotonic() if now is None else now
        with self._lock:
            failures = self._failures.get(client)
            if failures is None:
                return 0.0
            while failures and failures[0] <= now - self.window:
                failures.popleft()
            if len(failures) < self.attempts:
                return 0.0
            return failures[0] + self.window - now

    def failed(self, client: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            failures = self._failures.setdefault(client, deque(maxlen=self.attempts))
            failures.append(now)
            self._failures.move_to_end(client)
            while len(self._failures) > self._max_clients:
                self._failures.popitem(last=False)
