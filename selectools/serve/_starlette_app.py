"""The Starlette ASGI app behind :func:`selectools.serve.create_app`.

Routes (all under the optional prefix): ``POST /invoke``, ``POST /stream`` (SSE
through sse-starlette), ``GET /health``, ``GET /schema``, ``GET /playground``
(+ its script and stylesheet, shipped in ``_static``) and ``GET /`` (a redirect
to the playground). The security a user expects from a local server is built
in: the :class:`~._guard.RequestGuard` (Host, Origin and JSON-only bodies), a
bearer token checked in constant time when one is configured (wrong guesses
rate-limited), a cap on the request body and its nesting, JSON errors that say
what was wrong and never carry a traceback, CORS only for the origins the caller
lists, and a run cancelled when its client goes away.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
import sys
from collections.abc import AsyncIterator, Awaitable, Sequence
from importlib import resources
from typing import Any, TypeVar

from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ._guard import AttemptLimiter, RequestGuard, frame_ancestors
from .models import BadRequest
from .router import AgentRouter, RunFailed

__all__ = ["build_app", "create_builder_app", "error_response", "static_text"]

log = logging.getLogger("selectools.serve")
T = TypeVar("T")

_STATIC_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
_SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}
#: JSON bodies nest no deeper than this (the API's own shapes need 3 levels)
MAX_JSON_DEPTH = 32


def static_text(name: str) -> str:
    """A file shipped in ``selectools/serve/_static``."""
    return resources.files("selectools.serve").joinpath("_static").joinpath(name).read_text("utf-8")


def error_response(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status, headers=_SECURITY_HEADERS
    )


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


def too_many_attempts(seconds: float) -> JSONResponse:
    wait = max(int(seconds) + 1, 1)
    return JSONResponse(
        {
            "error": {
                "code": "too_many_attempts",
                "message": f"too many wrong tokens from this address; try again in {wait} s",
            }
        },
        status_code=429,
        headers={"Retry-After": str(wait), **_SECURITY_HEADERS},
    )


def _bearer(request: Request) -> str | None:
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    return given.strip() if scheme.lower() == "bearer" and given.strip() else None


class _Auth:
    """Bearer-token check (constant time, wrong guesses rate-limited); no token means open."""

    def __init__(self, token: str | None, limiter: AttemptLimiter) -> None:
        self._token = token.encode() if token else None
        self._limiter = limiter

    def denied(self, request: Request) -> JSONResponse | None:
        if self._token is None:
            return None
        given = _bearer(request)
        if given is not None:
            if (wait := self._limiter.wait_seconds(_client(request))) > 0:
                return too_many_attempts(wait)
            if hmac.compare_digest(given.encode(), self._token):
                return None
            self._limiter.failed(_client(request))
        return JSONResponse(
            {
                "error": {
                    "code": "unauthorized",
                    "message": "this server needs a token: send 'Authorization: Bearer <token>'",
                }
            },
            status_code=401,
            headers={"WWW-Authenticate": 'Bearer realm="selectools"', **_SECURITY_HEADERS},
        )


async def _read_json(request: Request, max_body_bytes: int) -> Any:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_body_bytes:
        raise BadRequest(
            f"the request body is {declared} bytes; this server accepts at most {max_body_bytes}",
            status=413,
            code="body_too_large",
        )
    body = bytearray()
    async for part in request.stream():
        body.extend(part)
        if len(body) > max_body_bytes:
            raise BadRequest(
                f"the request body is over {max_body_bytes} bytes, the most this server accepts",
                status=413,
                code="body_too_large",
            )
    if not body:
        raise BadRequest('empty body: send JSON like {"prompt": "..."}', code="empty_body")
    try:
        value = json.loads(body, parse_constant=_no_constant)
    except RecursionError:
        raise _too_deep() from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        message = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
        raise BadRequest(
            f'the body is not valid JSON ({message}); send {{"prompt": "..."}}',
            code="invalid_json",
        ) from None
    except ValueError:  # Python refuses to convert integers of more than 4,300 digits
        raise BadRequest(
            f"the body has a number with more than {sys.get_int_max_str_digits()} digits",
            code="invalid_json",
        ) from None
    if _depth(value) > MAX_JSON_DEPTH:
        raise _too_deep()
    return value


def _no_constant(name: str) -> Any:
    raise BadRequest(
        f"the body is not valid JSON ({name} is not a JSON number)", code="invalid_json"
    )


def _too_deep() -> BadRequest:
    return BadRequest(f"the body is nested more than {MAX_JSON_DEPTH} levels deep", code="too_deep")


def _depth(value: Any) -> int:
    """How deeply ``value`` nests lists and objects (without recursion)."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, level = pending.pop()
        if isinstance(item, dict):
            items: Any = item.values()
        elif isinstance(item, list):
            items = item
        else:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_JSON_DEPTH:
            return deepest
        pending.extend((child, level + 1) for child in items)
    return deepest


async def _unless_disconnected(request: Request, work: Awaitable[T]) -> T | None:
    """``work``'s result, or None once the client closed the connection (``work`` is cancelled).

    One watcher task per request cancels this one; the body must be read already,
    so the next ASGI message is the disconnect. (An anyio task group did the same
    at a measured 0.35 ms more CPU per request.)
    """
    this = asyncio.current_task()
    assert this is not None
    left = False

    async def watch() -> None:
        nonlocal left
        while (await request.receive())["type"] != "http.disconnect":
            pass
        left = True
        this.cancel()

    watcher = asyncio.ensure_future(watch())
    try:
        return await work
    except asyncio.CancelledError:
        if not left:
            raise
        if hasattr(this, "uncancel"):  # Python 3.11+: this cancel is handled here
            this.uncancel()
        log.info("selectools serve: the client left; its run was cancelled")
        return None
    finally:
        watcher.cancel()


def build_app(
    router: AgentRouter,
    *,
    auth_token: str | None = None,
    cors_origins: Sequence[str] | None = None,
    allowed_hosts: Sequence[str] = (),
    max_body_bytes: int = 1_000_000,
) -> tuple[Any, RequestGuard]:
    """The ASGI app serving ``router``'s agent, and its guard (to add the bound host)."""
    auth = _Auth(auth_token, AttemptLimiter())
    prefix = router.prefix
    origins = list(cors_origins or ())

    async def invoke(request: Request) -> Response:
        if (denied := auth.denied(request)) is not None:
            return denied
        try:
            parsed = router.parse(await _read_json(request, max_body_bytes))
            router.agent_for(parsed)  # bad overrides fail here, before the run
        except BadRequest as exc:
            return error_response(exc.status, exc.code, str(exc))
        try:
            response = await _unless_disconnected(request, router.ainvoke(parsed))
        except RunFailed as exc:
            return error_response(502, "run_failed", exc.public_message)
        if response is None:  # nobody is listening any more
            return Response(status_code=499)
        return JSONResponse(response, headers=_SECURITY_HEADERS)

    async def stream(request: Request) -> Response:
        if (denied := auth.denied(request)) is not None:
            return denied
        try:
            parsed = router.parse(await _read_json(request, max_body_bytes))
            router.agent_for(parsed)  # bad overrides fail here, before the stream starts
        except BadRequest as exc:
            return error_response(exc.status, exc.code, str(exc))

        async def events() -> AsyncIterator[dict[str, str]]:
            async for data in router.astream_events(parsed):
                yield {"data": data}

        return EventSourceResponse(events(), headers=_SECURITY_HEADERS, sep="\n", ping=15)

    async def health(request: Request) -> Response:
        if (denied := auth.denied(request)) is not None:
            return denied
        return JSONResponse(router.handle_health(), headers=_SECURITY_HEADERS)

    async def schema(request: Request) -> Response:
        if (denied := auth.denied(request)) is not None:
            return denied
        return JSONResponse(router.handle_schema(), headers=_SECURITY_HEADERS)

    playground_html = (
        static_text("playground.html")
        .replace("{{PREFIX}}", prefix)
        .replace("{{AUTH}}", "required" if auth_token else "none")
    )

    async def playground(request: Request) -> Response:
        return Response(
            playground_html,
            media_type="text/html",
            headers={
                **_SECURITY_HEADERS,
                "Content-Security-Policy": "default-src 'self'; connect-src 'self'; "
                f"img-src 'self' data:; {frame_ancestors(origins)}",
            },
        )

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in {"playground.js", "playground.css"}:
            return error_response(404, "not_found", f"no asset {name!r}")
        suffix = name[name.rfind(".") :]
        return Response(
            static_text(name), media_type=_STATIC_TYPES[suffix], headers=_SECURITY_HEADERS
        )

    async def root(request: Request) -> Response:
        return RedirectResponse(f"{prefix}/playground", status_code=307)

    routes = [
        Route(f"{prefix}/invoke", invoke, methods=["POST"]),
        Route(f"{prefix}/stream", stream, methods=["POST"]),
        Route(f"{prefix}/health", health, methods=["GET"]),
        Route(f"{prefix}/schema", schema, methods=["GET"]),
    ]
    if router.enable_playground:
        routes += [
            Route(f"{prefix}/playground", playground, methods=["GET"]),
            Route(f"{prefix}/playground/{{name}}", asset, methods=["GET"]),
            Route(f"{prefix}/", root, methods=["GET"])
            if prefix
            else Route("/", root, methods=["GET"]),
        ]

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        message = {
            404: f"no endpoint {request.url.path}",
            405: f"{request.method} is not allowed on {request.url.path}",
        }.get(exc.status_code, str(exc.detail))
        return error_response(exc.status_code, code, message)

    async def server_error(request: Request, exc: Exception) -> Response:
        log.exception("selectools serve: unexpected error", exc_info=exc)
        return error_response(500, "internal_error", "the server failed; details are in its log")

    middleware = []
    if origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=origins,
                allow_methods=["GET", "POST"],
                allow_headers=["Authorization", "Content-Type"],
            )
        )
    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={HTTPException: http_error, Exception: server_error},
    )
    guard = RequestGuard(app, allowed_hosts=allowed_hosts, allowed_origins=origins)
    return guard, guard


def create_builder_app(
    provider: Any = None, auth_token: str | None = None, allowed_hosts: Sequence[str] = ()
) -> Any:
    """The visual builder as an ASGI app (``uvicorn ... --factory``).

    ``provider`` runs the workflows' agents (default: the first provider with a
    key in the environment, else the offline one). Every builder route needs a
    sign-in, always: ``auth_token`` (default: the ``BUILDER_AUTH_TOKEN`` variable,
    then ``~/.selectools/auth_token``, else one made for this process and printed
    once) is traded at ``/login`` or with ``/?token=...`` for a signed cookie.
    The token is ``app.state.auth_token``; wrong tokens are rate-limited per
    client address. ``allowed_hosts`` as for :func:`~selectools.serve.create_app`.
    """
    from .builder import (
        COOKIE,
        SESSION_SECONDS,
        builder_token,
        plan_chain,
        run_workflow_events,
        sign_session,
        valid_session,
    )

    token = builder_token(auth_token)
    if token is None:
        token = secrets.token_urlsafe(32)
        print(
            "selectools builder: no auth token configured (--auth-token, BUILDER_AUTH_TOKEN or "
            f"~/.selectools/auth_token), so this process made one; sign in with /?token={token}",
            file=sys.stderr,
            flush=True,
        )
    limiter = AttemptLimiter()
    if provider is None:
        from ..templates import make_provider

        provider = make_provider("auto")
    provider_name = str(getattr(provider, "name", type(provider).__name__))
    page = static_text("builder.html").replace("{{PROVIDER}}", provider_name)
    csp = {
        **_SECURITY_HEADERS,
        "Content-Security-Policy": f"default-src 'self'; img-src 'self' data:; {frame_ancestors()}",
    }

    def token_matches(request: Request, given: str) -> bool | JSONResponse:
        """A wrong guess counts against the client's address; over the limit nothing is checked."""
        if (wait := limiter.wait_seconds(_client(request))) > 0:
            return too_many_attempts(wait)
        if hmac.compare_digest(given.encode(), token.encode()):
            return True
        limiter.failed(_client(request))
        return False

    def signed_in(request: Request) -> bool | JSONResponse:
        if valid_session(token, request.cookies.get(COOKIE)):
            return True
        given = _bearer(request)
        return False if given is None else token_matches(request, given)

    def denied(request: Request) -> Response | None:
        verdict = signed_in(request)
        if isinstance(verdict, Response):
            return verdict
        return None if verdict else error_response(401, "unauthorized", "sign in at /login first")

    def with_session(response: Response) -> Response:
        response.set_cookie(
            COOKIE, sign_session(token), max_age=SESSION_SECONDS, httponly=True, samesite="strict"
        )
        return response

    def token_in_url(request: Request) -> Response | None:
        """``?token=...``: sign in and drop the token from the address bar; None if absent."""
        given = request.query_params.get("token")
        if given is None:
            return None
        verdict = token_matches(request, given)
        if isinstance(verdict, Response):
            return verdict
        if not verdict:
            return RedirectResponse("/login", status_code=303)
        return with_session(RedirectResponse("/builder", status_code=303))

    async def builder(request: Request) -> Response:
        if (signed := token_in_url(request)) is not None:
            return signed
        verdict = signed_in(request)
        if isinstance(verdict, Response):
            return verdict
        if not verdict:
            return RedirectResponse("/login", status_code=303)
        return Response(page, media_type="text/html", headers=csp)

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        public = {"login.js", "builder.css"}
        if name not in {"builder.js", *public}:
            return error_response(404, "not_found", f"no asset {name!r}")
        if name not in public and (refused := denied(request)) is not None:
            return refused
        suffix = name[name.rfind(".") :]
        return Response(
            static_text(name), media_type=_STATIC_TYPES[suffix], headers=_SECURITY_HEADERS
        )

    async def login_page(request: Request) -> Response:
        if (signed := token_in_url(request)) is not None:
            return signed
        return Response(static_text("login.html"), media_type="text/html", headers=csp)

    async def login(request: Request) -> Response:
        try:
            body = await _read_json(request, 10_000)
        except BadRequest as exc:
            return error_response(exc.status, exc.code, str(exc))
        given = body.get("token") if isinstance(body, dict) else None
        if not isinstance(given, str):
            return error_response(400, "invalid_body", 'send {"token": "..."}')
        verdict = token_matches(request, given)
        if isinstance(verdict, Response):
            return verdict
        if not verdict:
            return error_response(401, "unauthorized", "that token is not right")
        return with_session(JSONResponse({"ok": True}, headers=_SECURITY_HEADERS))

    async def run(request: Request) -> Response:
        if (refused := denied(request)) is not None:
            return refused
        try:
            body = await _read_json(request, 200_000)
            if not isinstance(body, dict):
                raise BadRequest('send {"workflow": {...}, "prompt": "..."}', code="invalid_body")
            prompt = body.get("prompt")
            if not isinstance(prompt, str) or not prompt.strip():
                raise BadRequest('"prompt" must be a non-empty string', code="invalid_prompt")
            chain = plan_chain(body.get("workflow"))
        except BadRequest as exc:
            return error_response(exc.status, exc.code, str(exc))

        async def events() -> AsyncIterator[dict[str, str]]:
            async for data in run_workflow_events(chain, prompt, provider):
                yield {"data": data}

        return EventSourceResponse(events(), headers=_SECURITY_HEADERS, sep="\n", ping=15)

    async def info(request: Request) -> Response:
        if (refused := denied(request)) is not None:
            return refused
        return JSONResponse({"provider": provider_name, "auth": True})

    async def root(request: Request) -> Response:
        if (signed := token_in_url(request)) is not None:
            return signed
        return RedirectResponse("/builder", status_code=307)

    routes = [
        Route("/", root, methods=["GET"]),
        Route("/builder", builder, methods=["GET"]),
        Route("/builder/info", info, methods=["GET"]),
        Route("/builder/run", run, methods=["POST"]),
        Route("/builder/static/{name}", asset, methods=["GET"]),
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
    ]

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return error_response(exc.status_code, "http_error", f"{exc.detail}: {request.url.path}")

    async def server_error(request: Request, exc: Exception) -> Response:
        log.exception("selectools builder: unexpected error", exc_info=exc)
        return error_response(500, "internal_error", "the server failed; details are in its log")

    app = Starlette(
        routes=routes, exception_handlers={HTTPException: http_error, Exception: server_error}
    )
    app.state.auth_token = token
    return RequestGuard(app, allowed_hosts=allowed_hosts)
