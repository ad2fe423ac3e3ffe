"""The visual builder as an ASGI app: its page, sign-in, and running a workflow as SSE.

It never runs open: every route but the sign-in page needs a session cookie or the
token as a bearer header, and with no token configured one is made at start-up.
The workflow logic lives in :mod:`.builder`; the shared HTTP pieces (JSON bodies,
errors, the guard) in :mod:`._starlette_app` and :mod:`._guard`.
"""

from __future__ import annotations

import hmac
import logging
import secrets
import sys
from collections.abc import AsyncIterator, Sequence
from typing import Any

from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ..providers.base import provider_label
from ._guard import AttemptLimiter, RequestGuard, frame_ancestors
from ._starlette_app import (
    SECURITY_HEADERS,
    STATIC_TYPES,
    bearer_token,
    client_address,
    error_response,
    read_json,
    static_text,
    too_many_attempts,
)
from .models import BadRequest

__all__ = ["create_builder_app"]

log = logging.getLogger("selectools.serve")


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
    provider_name = provider_label(provider)
    page = static_text("builder.html").replace("{{PROVIDER}}", provider_name)
    csp = {
        **SECURITY_HEADERS,
        "Content-Security-Policy": f"default-src 'self'; img-src 'self' data:; {frame_ancestors()}",
    }

    def token_matches(request: Request, given: str) -> bool | JSONResponse:
        """A wrong guess counts against the client's address; over the limit nothing is checked."""
        if (wait := limiter.wait_seconds(client_address(request))) > 0:
            return too_many_attempts(wait)
        if hmac.compare_digest(given.encode(), token.encode()):
            return True
        limiter.failed(client_address(request))
        return False

    def signed_in(request: Request) -> bool | JSONResponse:
        if valid_session(token, request.cookies.get(COOKIE)):
            return True
        given = bearer_token(request)
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
        if name not in {"builder.js", "sse.js", *public}:
            return error_response(404, "not_found", f"no asset {name!r}")
        if name not in public and (refused := denied(request)) is not None:
            return refused
        suffix = name[name.rfind(".") :]
        return Response(
            static_text(name), media_type=STATIC_TYPES[suffix], headers=SECURITY_HEADERS
        )

    async def login_page(request: Request) -> Response:
        if (signed := token_in_url(request)) is not None:
            return signed
        return Response(static_text("login.html"), media_type="text/html", headers=csp)

    async def login(request: Request) -> Response:
        try:
            body = await read_json(request, 10_000)
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
        return with_session(JSONResponse({"ok": True}, headers=SECURITY_HEADERS))

    async def run(request: Request) -> Response:
        if (refused := denied(request)) is not None:
            return refused
        try:
            body = await read_json(request, 200_000)
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

        return EventSourceResponse(events(), headers=SECURITY_HEADERS, sep="\n", ping=15)

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
