"""``EvalDashboard``: a local page that follows a running ``EvalSuite`` case by case.

The dashboard watches a suite (:meth:`EvalSuite.watch`) and keeps the events of
its latest run: ``start`` (name, total), one ``case`` per finished case, ``end``
(the report's counts and final verdicts, which include snapshot failures).
``serve()`` runs it on the serve stack (Starlette + uvicorn, Server-Sent Events
as ``selectools serve`` sends them) on 127.0.0.1 in a background thread; a page that
connects late replays the run so far. The page is a plain ES module and a stylesheet
shipped in ``selectools/evals/_static`` (no CDN, no build step).

A browser page on the same machine is an attacker until proven otherwise, so
every route checks the ``Host`` header (a DNS-rebinding page names its own host)
and a cross-site ``Origin``, and the page and its event stream need the random
token that ``serve()`` puts in the URL (compared in constant time). Case text is
untrusted: the page only ever sets it as text.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import secrets
import threading
from collections.abc import AsyncIterator
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .._display import RichDisplay
from .._install import install_hint
from ..stability import beta
from .case import CaseResult

if TYPE_CHECKING:
    from ..serve.app import ServerHandle
    from .report import EvalReport
    from .suite import EvalSuite

__all__ = ["DashboardServer", "EvalDashboard"]

_LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
_ASSETS = {"dashboard.js": "text/javascript; charset=utf-8", "dashboard.css": "text/css"}
_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
}
_PAGE_HEADERS = {
    **_HEADERS,
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'",
}
_POLL_S = 0.05  # how often an open stream looks for new events


def _asset(name: str) -> str:
    return resources.files("selectools.evals").joinpath("_static").joinpath(name).read_text("utf-8")


def _reasons(result: CaseResult) -> list[str]:
    reasons = [f"{f.evaluator}: {f.message}" for f in result.failures]
    if result.error and not reasons:
        reasons.append(result.error)
    return [r if len(r) <= 400 else r[:399] + "…" for r in reasons[:3]]


def _case_event(index: int, result: CaseResult) -> dict[str, Any]:
    return {
        "type": "case",
        "index": index,
        "label": result.case.label,
        "verdict": result.verdict.value,
        "latency_ms": round(result.latency_ms, 1),
        "why": _reasons(result),
    }


@beta
class EvalDashboard:
    """Follows ``suite`` (or any suite that ``watch``-es it) and serves a live page of its runs.

    ``with EvalDashboard(suite).serve() as server: print(server.url); suite.run()``
    """

    def __init__(self, suite: EvalSuite | None = None, *, token: str | None = None) -> None:
        if token is not None and len(token) < 16:
            raise ValueError("the dashboard token must be at least 16 characters (or None)")
        self.token = token or secrets.token_urlsafe(24)
        self._lock = threading.Lock()
        self._run = 0
        self._events: list[dict[str, Any]] = []
        self._closing = threading.Event()  # set by DashboardServer.stop: open streams end
        if suite is not None:
            suite.watch(self)

    def __repr__(self) -> str:
        return f"EvalDashboard(run={self._run}, events={len(self._events)})"

    # -- SuiteWatcher ----------------------------------------------------------------
    def suite_started(self, suite: EvalSuite, total: int) -> None:
        with self._lock:
            self._run += 1
            self._events = [{"type": "start", "run": self._run, "name": suite.name, "total": total}]

    def case_finished(self, index: int, result: CaseResult) -> None:
        with self._lock:
            self._events.append(_case_event(index, result))

    def suite_finished(self, report: EvalReport) -> None:
        event = {
            "type": "end",
            "accuracy": report.accuracy,
            "total": report.total_cases,
            "pass": report.pass_count,
            "fail": report.fail_count,
            "error": report.error_count,
            "skip": report.skip_count,
            "cases": [_case_event(i, r) for i, r in enumerate(report.results)],
        }
        with self._lock:
            self._events.append(event)

    def events(self) -> tuple[int, list[dict[str, Any]]]:
        """The latest run's number and its events so far (a copy)."""
        with self._lock:
            return self._run, list(self._events)

    # -- the web app -------------------------------------------------------------------
    def app(self, host: str = "127.0.0.1") -> Any:
        """The Starlette app: ``/`` (the page), ``/events`` (SSE), ``/static/<asset>``."""
        try:
            from starlette.applications import Starlette
            from starlette.requests import Request
            from starlette.responses import PlainTextResponse, Response
            from starlette.routing import Route

            from ..serve._sse import EventStream
        except ImportError as exc:
            raise ImportError(
                f"the eval dashboard needs the serve stack ({exc.name} is missing): "
                f"{install_hint('serve')}"
            ) from exc

        allowed_hosts = _LOCAL_HOSTS | {host.strip("[]").lower()}
        token = self.token.encode()

        def refused(request: Request, needs_token: bool) -> Response | None:
            named = urlsplit(f"//{request.headers.get('host', '')}").hostname or ""
            if named.lower() not in allowed_hosts:
                return PlainTextResponse(
                    f"this dashboard answers only as {', '.join(sorted(allowed_hosts))}",
                    403,
                    headers=_HEADERS,
                )
            origin = request.headers.get("origin")
            if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
                return PlainTextResponse("cross-site requests are refused", 403, headers=_HEADERS)
            given = request.query_params.get("token", "").encode()
            if needs_token and not hmac.compare_digest(given, token):
                return PlainTextResponse(
                    "open the URL that EvalDashboard.serve() printed: it carries ?token=...",
                    401,
                    headers=_HEADERS,
                )
            return None

        async def page(request: Request) -> Response:
            if (denied := refused(request, True)) is not None:
                return denied
            return Response(_asset("dashboard.html"), media_type="text/html", headers=_PAGE_HEADERS)

        async def asset(request: Request) -> Response:
            if (denied := refused(request, False)) is not None:
                return denied
            name = request.path_params["name"]
            if name not in _ASSETS:
                return PlainTextResponse(f"no asset {name!r}", 404, headers=_HEADERS)
            return Response(_asset(name), media_type=_ASSETS[name], headers=_HEADERS)

        async def no_icon(request: Request) -> Response:
            return Response(status_code=204, headers=_HEADERS)

        async def stream(request: Request) -> Response:
            if (denied := refused(request, True)) is not None:
                return denied

            async def events() -> AsyncIterator[tuple[str, str]]:
                run, sent = -1, 0
                while True:
                    closing = self._closing.is_set()  # read first: what follows is flushed
                    current, pending = self.events()
                    if current != run:  # a new run (or the first look): replay it from its start
                        run, sent = current, 0
                    for event in pending[sent:]:
                        yield event["type"], json.dumps(event)
                    sent = len(pending)
                    if closing:
                        return
                    await asyncio.sleep(_POLL_S)

            return EventStream(events(), headers=_HEADERS, ping=15)

        return Starlette(
            routes=[
                Route("/", page, methods=["GET"]),
                Route("/events", stream, methods=["GET"]),
                Route("/static/{name}", asset, methods=["GET"]),
                Route("/favicon.ico", no_icon, methods=["GET"]),  # browsers ask; nothing to show
            ]
        )

    def serve(self, port: int = 0, host: str = "127.0.0.1") -> DashboardServer:
        """Serve the page in a background thread (port 0 picks a free one); stop it when done."""
        from ..serve.app import serve_in_background

        self._closing.clear()
        return DashboardServer(serve_in_background(self.app(host), port=port, host=host), self)


@beta
class DashboardServer(RichDisplay):
    """A running dashboard: ``url`` (with its token), ``stop()``; a context manager."""

    def __init__(self, handle: ServerHandle, dashboard: EvalDashboard) -> None:
        self._handle = handle
        self._dashboard = dashboard
        self.base_url = handle.url
        self.url = f"{handle.url}/?token={dashboard.token}"

    @property
    def running(self) -> bool:
        return self._handle.running

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving (open event streams end) and wait for the server thread (idempotent)."""
        self._dashboard._closing.set()
        self._handle.stop(timeout)

    def __enter__(self) -> DashboardServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"DashboardServer({self.base_url!r}, {'running' if self.running else 'stopped'})"
