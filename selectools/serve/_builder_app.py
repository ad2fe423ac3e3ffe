"""The visual builder as an ASGI app: its page, sign-in, and the API the page calls.

It never runs open: every route but the sign-in pages needs a session cookie or
the token as a bearer header (with no token configured, one is made at start-up),
and the :class:`~._guard.RequestGuard` refuses other sites' pages (Origin, Host,
JSON-only bodies) before any route runs. The workflow logic lives in
:mod:`selectools.builder`, runs in :mod:`._builder_runs`, GitHub sign-in in
:mod:`._github_oauth`; the shared HTTP pieces in :mod:`._starlette_app`.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import re
import secrets
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from .._version import __version__
from ..providers.base import provider_label
from ._guard import AttemptLimiter, RequestGuard, frame_ancestors
from ._sse import EventStream
from ._starlette_app import (
    SECURITY_HEADERS,
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
STATIC = Path(__file__).resolve().parent / "_static"
PAGE_DIR = STATIC / "builder"
ASSET_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".md": "text/plain; charset=utf-8",
    ".LICENSE": "text/plain; charset=utf-8",
}
PUBLIC_ASSETS = {"login.js", "builder.css"}  # the sign-in page's
MAX_BODY = 2_000_000
WATCH_INTERVAL_S = 0.25
Handler = Callable[[Request], Awaitable[Response]]


def _ai_available(provider: Any) -> bool:
    """Whether Generate/Copilot can ask a model: a real provider was given or a key is set."""
    if provider is not None:
        return provider_label(provider) != "local"
    from ..templates import auto_provider_name

    return auto_provider_name() != "local"


def create_builder_app(
    provider: Any = None,
    auth_token: str | None = None,
    allowed_hosts: Sequence[str] = (),
    *,
    workdir: str | Path | None = None,
) -> Any:
    """The visual builder as an ASGI app (``uvicorn ... --factory``).

    ``provider`` runs every agent of every workflow (the tests' ScriptedProvider,
    say); without one each agent uses the provider it names, and those naming none
    the first provider with a key in the environment, else the offline one. Every
    route needs a sign-in: ``auth_token`` (default: ``BUILDER_AUTH_TOKEN``, then
    ``~/.selectools/auth_token``, else one made for this process and printed once)
    is traded at ``/login`` or with ``/?token=...`` for a signed cookie; GitHub
    sign-in works too when configured (see :mod:`._github_oauth`). ``workdir``
    (default: the current directory) bounds File → Watch. ``allowed_hosts`` as for
    :func:`~selectools.serve.create_app`.
    """
    from .. import builder as wf
    from ._builder_runs import BuilderRuns
    from ._github_oauth import STATE_COOKIE, GitHubOAuth, OAuthFailed
    from .builder import COOKIE, SESSION_SECONDS, builder_token, sign_session, valid_session

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
    runs = BuilderRuns(provider, force_provider=provider is not None)
    github = GitHubOAuth.from_env()
    watch_root = Path(workdir or Path.cwd()).resolve()
    page_csp = {
        **SECURITY_HEADERS,
        "Content-Security-Policy": f"default-src 'self'; img-src 'self' data:; {frame_ancestors()}",
    }

    # -- sign-in ------------------------------------------------------------------------
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

    def guarded(handler: Handler) -> Handler:
        async def route(request: Request) -> Response:
            verdict = signed_in(request)
            if isinstance(verdict, Response):
                return verdict
            if not verdict:
                return error_response(401, "unauthorized", "sign in at /login first")
            try:
                return await handler(request)
            except BadRequest as exc:
                return error_response(exc.status, exc.code, str(exc))

        return route

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

    async def login_page(request: Request) -> Response:
        if (signed := token_in_url(request)) is not None:
            return signed
        page = static_text("login.html")
        if github is not None:  # the second way in, offered only when it is configured
            page = page.replace(
                "<!--github-->", '<a id="github" href="/auth/github">Sign in with GitHub</a>'
            )
        return Response(page, media_type="text/html", headers=page_csp)

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

    async def logout(request: Request) -> Response:
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(COOKIE)
        return response

    def callback_url(request: Request) -> str:
        return str(request.url_for("github_callback"))

    async def github_start(request: Request) -> Response:
        if github is None:
            return error_response(
                404,
                "not_configured",
                "GitHub sign-in needs GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET",
            )
        url, state = github.authorize_url(callback_url(request))
        response = RedirectResponse(url, status_code=303)
        response.set_cookie(STATE_COOKIE, state, max_age=600, httponly=True, samesite="lax")
        return response

    async def github_callback(request: Request) -> Response:
        if github is None:
            return error_response(404, "not_configured", "GitHub sign-in is not configured")
        code, state = request.query_params.get("code", ""), request.query_params.get("state", "")
        if not code or not state:
            return error_response(400, "oauth_failed", "GitHub sent no code or state")
        try:
            login_name = await github.user(
                code, state, request.cookies.get(STATE_COOKIE), callback_url(request)
            )
        except OAuthFailed as exc:
            return error_response(403, "oauth_failed", str(exc))
        log.info("selectools builder: GitHub user %s signed in", login_name)
        response = with_session(RedirectResponse("/builder", status_code=303))
        response.delete_cookie(STATE_COOKIE)
        return response

    # -- the page ----------------------------------------------------------------------------
    async def builder_page(request: Request) -> Response:
        if (signed := token_in_url(request)) is not None:
            return signed
        verdict = signed_in(request)
        if isinstance(verdict, Response):
            return verdict
        if not verdict:
            return RedirectResponse("/login", status_code=303)
        html = (PAGE_DIR / "index.html").read_text("utf-8")
        html = html.replace('<base href="./">', '<base href="/builder/static/">', 1)
        return Response(html, media_type="text/html", headers=page_csp)

    async def asset(request: Request) -> Response:
        path = request.path_params["path"]
        if path not in PUBLIC_ASSETS and not valid_session(token, request.cookies.get(COOKIE)):
            verdict = signed_in(request)
            if verdict is not True:
                return (
                    verdict
                    if isinstance(verdict, Response)
                    else error_response(401, "unauthorized", "sign in at /login first")
                )
        found = _asset_file(path)
        if found is None:
            return error_response(404, "not_found", f"no asset {path[:80]!r}")
        media = ASSET_TYPES[next(s for s in ASSET_TYPES if found.name.endswith(s))]
        return Response(found.read_bytes(), media_type=media, headers=SECURITY_HEADERS)

    async def root(request: Request) -> Response:
        if (signed := token_in_url(request)) is not None:
            return signed
        return RedirectResponse("/builder", status_code=307)

    # -- the API -------------------------------------------------------------------------------
    def ok(value: Any, status: int = 200) -> JSONResponse:
        return JSONResponse(value, status_code=status, headers=SECURITY_HEADERS)

    async def body_of(request: Request, *keys: str) -> dict[str, Any]:
        body = await read_json(request, MAX_BODY)
        if not isinstance(body, dict) or any(k not in body for k in keys):
            raise BadRequest(f"send a JSON object with {', '.join(keys)}", code="invalid_body")
        return body

    async def health(request: Request) -> Response:
        return ok(
            {
                "backend": True,
                "version": __version__,
                "ai": _ai_available(provider),
                "github_oauth": github is not None,
            }
        )

    async def template_list(request: Request) -> Response:
        return ok(wf.templates())

    async def template_one(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in wf.TEMPLATES:
            return error_response(
                404, "not_found", f"no template {name[:80]!r}; see /builder/api/templates"
            )
        return ok(wf.template(name))

    async def example(request: Request) -> Response:
        return ok(wf.example())

    async def code(request: Request) -> Response:
        body = await body_of(request, "workflow")
        return ok(wf.code_view(body["workflow"]))

    async def import_route(request: Request) -> Response:
        body = await body_of(request, "text")
        text, form = body["text"], body.get("format", "auto")
        if not isinstance(text, str) or not isinstance(form, str):
            raise BadRequest(
                'send {"text": "...", "format": "auto"|"python"|"yaml"}', code="invalid_body"
            )
        try:
            return ok({"workflow": wf.import_text(text, form)})
        except wf.WorkflowError as exc:
            return JSONResponse(
                {"error": {"code": "import_error", "message": exc.message, "line": exc.line}},
                status_code=400,
                headers=SECURITY_HEADERS,
            )

    async def run(request: Request) -> Response:
        prepared = runs.prepare(await read_json(request, MAX_BODY))

        async def events() -> AsyncIterator[str]:
            async for event in runs.events(prepared):
                yield json.dumps(event)
            yield "[DONE]"

        return EventStream(events(), headers=SECURITY_HEADERS)

    async def resume(request: Request) -> Response:
        body = await body_of(request, "run_id", "node", "option")
        runs.resume(body["run_id"], body["node"], body["option"])
        return ok({"ok": True})

    async def ask_model(system: str, prompt: str) -> dict[str, Any]:
        from ..agent.config import AgentConfig
        from ..agent.core import Agent
        from ..builder.runtime import provider_named

        model = provider if provider is not None else provider_named("")
        agent = Agent(provider=model, config=AgentConfig(system_prompt=system, max_iterations=1))
        try:
            answer = (await agent.arun(prompt)).content
        except Exception as exc:
            raise BadRequest(
                f"the model call failed ({type(exc).__name__})", status=502, code="ai_failed"
            ) from None
        found = re.search(r"\{.*\}", answer[:200_000], flags=re.DOTALL)
        try:
            reply = json.loads(found.group(0)) if found else None
            workflow = wf.validate(
                reply.get("workflow", reply) if isinstance(reply, dict) else None
            )
        except (ValueError, wf.WorkflowError) as exc:
            raise BadRequest(
                f"the model's workflow was not usable: {str(exc)[:300]}",
                status=502,
                code="ai_invalid",
            ) from None
        wf.layout(workflow)
        message = reply.get("message", "") if isinstance(reply, dict) else ""
        return {"workflow": workflow, "message": message if isinstance(message, str) else ""}

    async def generate(request: Request) -> Response:
        body = await body_of(request, "description")
        description = body["description"]
        if not isinstance(description, str) or not description.strip() or len(description) > 4000:
            raise BadRequest(
                '"description" must be text of at most 4000 characters', code="invalid_body"
            )
        if not _ai_available(provider):
            return ok({"fallback": True})
        made = await ask_model(_GENERATE_PROMPT, description)
        return ok({"workflow": made["workflow"], "source": "ai"})

    async def copilot(request: Request) -> Response:
        body = await body_of(request, "workflow", "instruction")
        instruction = body["instruction"]
        if not isinstance(instruction, str) or not instruction.strip() or len(instruction) > 4000:
            raise BadRequest(
                '"instruction" must be text of at most 4000 characters', code="invalid_body"
            )
        current = wf.validate(body["workflow"])
        if not _ai_available(provider):
            return error_response(
                503,
                "no_ai",
                "the copilot needs a model: set OPENAI_API_KEY (or another provider's key)",
            )
        made = await ask_model(
            _COPILOT_PROMPT, f"Workflow:\n{json.dumps(current)}\n\nChange: {instruction}"
        )
        return ok(
            {"workflow": made["workflow"], "message": made["message"] or "Updated the workflow."}
        )

    async def watch(request: Request) -> Response:
        body = await body_of(request, "path")
        target = _watched_file(watch_root, body["path"])

        async def events() -> AsyncIterator[str]:
            seen: tuple[float, int] | None = None
            while True:
                try:
                    stat = target.stat()
                    now = (stat.st_mtime, stat.st_size)
                except OSError:
                    now = (-1.0, -1)
                if now != seen:
                    seen = now
                    yield json.dumps(_watch_event(target))
                await asyncio.sleep(WATCH_INTERVAL_S)

        return EventStream(events(), headers=SECURITY_HEADERS)

    async def trace(request: Request) -> Response:
        body = await body_of(request, "trace_json")
        try:
            return ok({"steps": wf.trace_steps(body["trace_json"])})
        except ValueError as exc:
            raise BadRequest(str(exc), code="invalid_trace") from None

    api = {
        "/builder/api/health": (health, "GET"),
        "/builder/api/templates": (template_list, "GET"),
        "/builder/api/templates/{name}": (template_one, "GET"),
        "/builder/api/example": (example, "GET"),
        "/builder/api/code": (code, "POST"),
        "/builder/api/import": (import_route, "POST"),
        "/builder/api/run": (run, "POST"),
        "/builder/api/resume": (resume, "POST"),
        "/builder/api/generate": (generate, "POST"),
        "/builder/api/copilot": (copilot, "POST"),
        "/builder/api/watch": (watch, "POST"),
        "/builder/api/trace": (trace, "POST"),
    }
    routes = [
        Route("/", root, methods=["GET"]),
        Route("/builder", builder_page, methods=["GET"]),
        Route("/builder/static/{path:path}", asset, methods=["GET"]),
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["GET"]),
        Route("/auth/github", github_start, methods=["GET"]),
        Route("/auth/github/callback", github_callback, methods=["GET"], name="github_callback"),
        *(
            Route(path, guarded(handler), methods=[method])
            for path, (handler, method) in api.items()
        ),
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


def _asset_file(path: str) -> Path | None:
    """A file of the page's folder (the sign-in script from the folder above); None for anything else."""
    if "\\" in path or "\x00" in path or any(part in ("", ".", "..") for part in path.split("/")):
        return None
    candidates = [PAGE_DIR / path]
    if path == "login.js":
        candidates.insert(0, STATIC / path)
    for candidate in candidates:
        resolved = candidate.resolve()
        if (
            resolved.is_relative_to(STATIC.resolve())
            and resolved.is_file()
            and any(resolved.name.endswith(s) for s in ASSET_TYPES)
        ):
            return resolved
    return None


def _watched_file(root: Path, given: Any) -> Path:
    """``given`` as a ``.py`` file under ``root`` (symlinks resolved); BadRequest otherwise."""
    if not isinstance(given, str) or not given.strip() or "\x00" in given or len(given) > 1000:
        raise BadRequest('"path" must name a .py file', code="invalid_path")
    target = (root / given).resolve()
    if not target.is_relative_to(root):
        raise BadRequest(
            f"only files under the server's directory ({root}) can be watched",
            status=403,
            code="path_not_allowed",
        )
    if target.suffix != ".py":
        raise BadRequest("only .py files can be watched", code="invalid_path")
    if not target.is_file():
        raise BadRequest(f"no file {given[:200]!r} under {root}", status=404, code="not_found")
    return target


def _watch_event(target: Path) -> dict[str, Any]:
    from .. import builder as wf

    try:
        text = target.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return {
            "type": "error",
            "message": f"cannot read {target.name} ({type(exc).__name__})",
            "line": None,
        }
    try:
        return {"type": "workflow", "workflow": wf.from_python(text)}
    except wf.WorkflowError as exc:
        return {"type": "error", "message": exc.message, "line": exc.line}


_FORMAT = (
    'A workflow is JSON: {"name": identifier, "nodes": [...], "edges": [...]}. Node types: '
    "start, end, agent (name, system_prompt, tools: []), loop (name, max_iterations, "
    "exit_condition; output ports body and done), hitl (name, prompt, options; one output port per "
    'option). Every node has a unique id; names are Python identifiers. Edges: {"id", "from", '
    '"from_port", "to", "to_port": "in", "condition": ""}; start\'s port is out, agents\' '
    "out. Exactly one start with one edge; connect the last node to end."
)
_GENERATE_PROMPT = f"You design agent workflows. {_FORMAT} Reply with the JSON only."
_COPILOT_PROMPT = (
    f"You edit agent workflows. {_FORMAT} Reply with JSON only: "
    '{"workflow": the whole changed workflow, "message": one sentence saying what changed}.'
)
