"""The Starlette ASGI app behind :func:`selectools.serve.create_app`.

Routes (all under the optional prefix): ``POST /invoke``, ``POST /stream`` (SSE
through sse-starlette), ``GET /health``, ``GET /schema``, ``GET /playground``
(+ its script and stylesheet, shipped in ``_static``) and ``GET /`` (a redirect
to the playground). The security a user expects from a local server is built
in: a bearer token checked in constant time when one is configured, a cap on
the request body, JSON errors that say what was wrong and never carry a
traceback, and CORS only for the origins the caller lists.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import AsyncIterator, Sequence
from importlib import resources
from typing import Any

from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from .models import BadRequest
from .router import AgentRouter, RunFailed

__all__ = ["build_app", "error_response", "static_text"]

log = logging.getLogger("selectools.serve")

_STATIC_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
_SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}


def static_text(name: str) -> str:
    """A file shipped in ``selectools/serve/_static``."""
    return resources.files("selectools.serve").joinpath("_static").joinpath(name).read_text("utf-8")


def error_response(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status, headers=_SECURITY_HEADERS
    )


class _Auth:
    """Bearer-token check (constant time); no token configured means open."""

    def __init__(self, token: str | None) -> None:
        self._token = token.encode() if token else None

    def denied(self, request: Request) -> JSONResponse | None:
        if self._token is None:
            return None
        header = request.headers.get("authorization", "")
        scheme, _, given = header.partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), self._token):
            return None
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
        return json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        message = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
        raise BadRequest(
            f'the body is not valid JSON ({message}); send {{"prompt": "..."}}',
            code="invalid_json",
        ) from None


def build_app(
    router: AgentRouter,
    *,
    auth_token: str | None = None,
    cors_origins: Sequence[str] | None = None,
    max_body_bytes: int = 1_000_000,
    extra_routes: Sequence[Route] = (),
) -> Starlette:
    """The ASGI app serving ``router``'s agent."""
    auth = _Auth(auth_token)
    prefix = router.prefix

    async def invoke(request: Request) -> Response:
        if (denied := auth.denied(request)) is not None:
            return denied
        try:
            parsed = router.parse(await _read_json(request, max_body_bytes))
            return JSONResponse(await router.ainvoke(parsed), headers=_SECURITY_HEADERS)
        except BadRequest as exc:
            return error_response(exc.status, exc.code, str(exc))
        except RunFailed as exc:
            return error_response(502, "run_failed", exc.public_message)

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
                "img-src 'self' data:; frame-ancestors *",
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
        *extra_routes,
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
    if cors_origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(cors_origins),
                allow_methods=["GET", "POST"],
                allow_headers=["Authorization", "Content-Type"],
            )
        )
    return Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={HTTPException: http_error, Exception: server_error},
    )


def create_builder_app(provider: Any = None, auth_token: str | None = None) -> Starlette:
    """The visual builder as an ASGI app (``uvicorn ... --factory``).

    ``provider`` runs the workflows' agents (default: the first provider with a
    key in the environment, else the offline one); ``auth_token`` (default: the
    ``BUILDER_AUTH_TOKEN`` variable, then ``~/.selectools/auth_token``) puts
    every builder route behind ``/login``.
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
    if provider is None:
        from ..templates import make_provider

        provider = make_provider("auto")
    provider_name = str(getattr(provider, "name", type(provider).__name__))
    page = static_text("builder.html").replace("{{PROVIDER}}", provider_name)
    csp = {
        **_SECURITY_HEADERS,
        "Content-Security-Policy": "default-src 'self'; img-src 'self' data:",
    }

    def signed_in(request: Request) -> bool:
        if token is None:
            return True
        if valid_session(token, request.cookies.get(COOKIE)):
            return True
        header = request.headers.get("authorization", "")
        scheme, _, given = header.partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(given.encode(), token.encode())

    async def builder(request: Request) -> Response:
        if not signed_in(request):
            return RedirectResponse("/login", status_code=303)
        return Response(page, media_type="text/html", headers=csp)

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        public = {"login.js", "builder.css"}
        if name not in {"builder.js", *public}:
            return error_response(404, "not_found", f"no asset {name!r}")
        if name not in public and not signed_in(request):
            return error_response(401, "unauthorized", "sign in at /login first")
        suffix = name[name.rfind(".") :]
        return Response(
            static_text(name), media_type=_STATIC_TYPES[suffix], headers=_SECURITY_HEADERS
        )

    async def login_page(request: Request) -> Response:
        if token is None:
            return RedirectResponse("/builder", status_code=303)
        return Response(static_text("login.html"), media_type="text/html", headers=csp)

    async def login(request: Request) -> Response:
        if token is None:
            return JSONResponse({"ok": True})
        try:
            body = await _read_json(request, 10_000)
        except BadRequest as exc:
            return error_response(exc.status, exc.code, str(exc))
        given = body.get("token") if isinstance(body, dict) else None
        if not isinstance(given, str) or not hmac.compare_digest(given.encode(), token.encode()):
            return error_response(401, "unauthorized", "that token is not right")
        response = JSONResponse({"ok": True}, headers=_SECURITY_HEADERS)
        response.set_cookie(
            COOKIE, sign_session(token), max_age=SESSION_SECONDS, httponly=True, samesite="strict"
        )
        return response

    async def run(request: Request) -> Response:
        if not signed_in(request):
            return error_response(401, "unauthorized", "sign in at /login first")
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
        if not signed_in(request):
            return error_response(401, "unauthorized", "sign in at /login first")
        return JSONResponse({"provider": provider_name, "auth": token is not None})

    async def root(request: Request) -> Response:
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

    return Starlette(routes=routes, exception_handlers={HTTPException: http_error})
