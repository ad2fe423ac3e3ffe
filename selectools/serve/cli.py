"""The ``selectools`` command: ``serve``, ``doctor``, ``templates``, ``eval`` and ``view``.

``selectools serve <config.yaml|template|module:agent>`` serves an agent from a
YAML config, a built-in template (provider picked from the environment, the
offline ``local`` provider when no key is set) or a Python module, with
``--workers N`` processes; ``selectools doctor`` reports what is
installed, which API keys are set (never their values) and whether the providers
answer; ``selectools templates`` lists the built-in templates; ``selectools eval
run|compare`` is ``python -m selectools.evals``; ``selectools view FILE`` writes a
saved trace or eval report as a self-contained page and opens it in the browser.
Errors print one line naming what was wrong and exit with status 2.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import re
import sys
from collections.abc import Sequence
from typing import Any

from .._version import __version__
from ._uvicorn import DEFAULT_MAX_CONNECTIONS, DEFAULT_REQUEST_TIMEOUT, server_options

__all__ = ["main"]

KEY_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY")
OPTIONAL_DEPENDENCIES = (
    ("starlette", "Starlette serving"),
    ("uvicorn", "uvicorn ASGI server"),
    ("yaml", "YAML agent configs"),
    ("fastapi", "FastAPI serving"),
    ("flask", "Flask serving"),
    ("redis", "Redis cache/sessions"),
    ("chromadb", "Chroma vector store"),
    ("openai", "OpenAI provider"),
    ("anthropic", "Anthropic provider"),
    ("httpx", "Gemini/Ollama providers, web tools"),
    ("mcp", "MCP client/server"),
    ("IPython", "notebook magics"),
)


class CliError(Exception):
    """A usage problem reported as one line on stderr."""


# -- serve -------------------------------------------------------------------------------


def _session_store(spec: str) -> Any:
    from ..memory.sessions import JsonFileSessionStore, RedisSessionStore, SQLiteSessionStore

    if spec.startswith(("redis://", "rediss://", "unix://")):
        return RedisSessionStore(url=spec)
    if spec.endswith((".db", ".sqlite", ".sqlite3")):
        return SQLiteSessionStore(spec)
    return JsonFileSessionStore(spec)


_IMPORT_PATH = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")


def _import_agent(path: str) -> Any:
    """``module:name``: an Agent, or a function returning one (imported from the current directory)."""
    from ..agent.core import Agent

    module_name, _, attribute = path.partition(":")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        found: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise CliError(f"cannot import {module_name!r} for {path!r}: {exc}") from None
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise CliError(f"{module_name!r} has no {attribute!r}")
        found = getattr(found, part)
    if callable(found) and not isinstance(found, Agent):
        found = found()
    if not isinstance(found, Agent):
        raise CliError(
            f"{path!r} is a {type(found).__name__}; it must be an Agent or a function returning one"
        )
    return found


def _load_agent(config: str, *, quiet: bool = False) -> Any:
    from ..templates import (
        TemplateConfigError,
        auto_provider_name,
        from_yaml,
        list_templates,
        load_template,
        make_provider,
    )

    try:
        if config in list_templates():
            name = auto_provider_name()
            if name == "local" and not quiet:
                print(
                    "note: no OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_API_KEY/GEMINI_API_KEY "
                    "set: serving with the offline LocalProvider (it echoes; no model is called)",
                    file=sys.stderr,
                )
            return load_template(config, provider=make_provider(name))
        if config.endswith((".yaml", ".yml")) or os.path.exists(config):
            return from_yaml(config)
        if _IMPORT_PATH.fullmatch(config):
            return _import_agent(config)
    except (TemplateConfigError, ValueError) as exc:
        raise CliError(str(exc)) from None
    raise CliError(
        f"{config!r} is neither a YAML file nor a template (nor module:agent); "
        f"templates: {', '.join(list_templates())}"
    )


def _build_app(options: dict[str, Any], *, quiet: bool = False) -> Any:
    """The served app from the command line's options (in the parent, and in each worker)."""
    from . import create_app

    agent = _load_agent(options["config"], quiet=quiet)
    store = _session_store(options["session_store"]) if options["session_store"] else None
    return create_app(
        agent,
        playground=options["playground"],
        host=options["host"],
        port=options["port"],
        auth_token=options["auth_token"],
        cors_origins=options["cors_origins"],
        allowed_hosts=options["allowed_hosts"],
        session_store=store,
        request_timeout=options["request_timeout"],
        max_connections=options["max_connections"],
    )


def worker_app(options: dict[str, Any]) -> Any:
    """One worker's app: uvicorn calls this (a partial of it) in each worker process."""
    app = _build_app(options, quiet=True)
    app.asgi.allow_host(options["host"])
    return app


def _serve(args: argparse.Namespace) -> int:
    import functools

    if args.builder:
        return _serve_builder(args)
    if args.config is None:
        raise CliError("serve needs a config: selectools serve <config.yaml|template|module:agent>")
    if args.workers < 1:
        raise CliError(f"--workers must be at least 1, got {args.workers}")
    token = args.auth_token
    if token is None:
        token = os.environ.get("SELECTOOLS_AUTH_TOKEN") or None
    options = {
        "config": args.config,
        "session_store": args.session_store,
        "playground": not args.no_playground,
        "host": args.host,
        "port": args.port,
        "auth_token": token,
        "cors_origins": args.cors_origin or None,
        "allowed_hosts": tuple(args.allowed_host or ()),
        "request_timeout": args.request_timeout,
        "max_connections": args.max_connections,
    }
    if args.workers > 1 and not args.session_store:
        print(
            f"note: {args.workers} workers and no --session-store: each worker keeps its own "
            "sessions, so a conversation may not continue on another worker; pass "
            "--session-store redis://... (or a .db file) to share them",
            file=sys.stderr,
        )
    try:
        app = _build_app(options)
        if args.workers == 1:
            app.serve()
        else:
            app.serve_workers(functools.partial(worker_app, options), args.workers)
    except (OSError, ValueError) as exc:
        raise CliError(str(exc)) from None
    except KeyboardInterrupt:
        pass
    return 0


def _serve_builder(args: argparse.Namespace) -> int:
    import secrets

    from ._builder_app import create_builder_app
    from ._uvicorn import limited_server
    from .app import _bind
    from .builder import builder_token

    try:
        configured = builder_token(args.auth_token)
        token = configured or secrets.token_urlsafe(32)
        if args.reload:
            return _serve_builder_reloading(args, token, configured is None)
        app = create_builder_app(
            auth_token=token, allowed_hosts=[args.host, *(args.allowed_host or ())]
        )
        server = limited_server(
            app, request_timeout=args.request_timeout, max_connections=args.max_connections
        )
        sock = _bind(args.host, args.port)
    except (OSError, ValueError) as exc:
        raise CliError(str(exc)) from None
    wildcard = args.host in ("0.0.0.0", "::", "")
    if wildcard:
        print(
            f"warning: listening on {args.host}: the builder is reachable from other machines",
            file=sys.stderr,
        )
    shown = "127.0.0.1" if wildcard else f"[{args.host}]" if ":" in args.host else args.host
    base = f"http://{shown}:{sock.getsockname()[1]}"
    print(f"Selectools builder at {base}/builder", flush=True)
    if configured is None:
        print("  no auth token configured, so this run made one; open this URL to sign in:")
    else:
        print("  sign in at /login with your auth token, or open:")
    print(f"  {base}/?token={token}", flush=True)
    print("\nPress Ctrl+C to stop.", flush=True)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0


def _serve_builder_reloading(args: argparse.Namespace, token: str, made: bool) -> int:
    """``--builder --reload``: uvicorn restarts the app when a file changes (the token carries over)."""
    from pathlib import Path

    import uvicorn

    os.environ["BUILDER_AUTH_TOKEN"] = token  # the reloaded worker reads it
    shown = f"[{args.host}]" if ":" in args.host else args.host
    base = f"http://{shown}:{args.port}"
    print(f"Selectools builder at {base}/builder (reloading on changes)", flush=True)
    print(
        f"  {'this run made a token; ' if made else ''}sign in: {base}/?token={token}", flush=True
    )
    uvicorn.run(
        "selectools.serve._starlette_app:create_builder_app",
        factory=True,
        reload=True,
        reload_dirs=[str(Path.cwd()), str(Path(__file__).resolve().parents[1])],
        host=args.host,
        port=args.port,
        proxy_headers=server_options()["proxy_headers"],  # uvicorn's reload output stays as it is
    )
    return 0


# -- doctor ------------------------------------------------------------------------------


def _probe(name: str, key: str) -> str:
    """Ask the provider's model list (costs nothing); the key goes in a header, never printed."""
    import httpx

    if name == "OpenAI":
        base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
        url, headers = f"{base}/models", {"Authorization": f"Bearer {key}"}
    elif name == "Anthropic":
        base = os.environ.get("ANTHROPIC_BASE_URL", "https://api.anthropic.com").rstrip("/")
        url = f"{base}/v1/models"
        headers = {"x-api-key": key, "anthropic-version": "2023-06-01"}
    else:
        base = os.environ.get(
            "GEMINI_BASE_URL", "https://generativelanguage.googleapis.com/v1beta"
        ).rstrip("/")
        url, headers = f"{base}/models", {"x-goog-api-key": key}
    try:
        response = httpx.get(url, headers=headers, timeout=8)
    except httpx.HTTPError as exc:
        return f"FAILED (unreachable: {type(exc).__name__})"
    if response.status_code == 200:
        return "OK (connected)"
    if response.status_code in (401, 403):
        return f"FAILED (key rejected, HTTP {response.status_code})"
    return f"FAILED (HTTP {response.status_code})"


def _doctor(args: argparse.Namespace) -> int:
    from .._env import env_value

    print("Selectools Doctor")
    print("=" * 40)
    print(f"Version: {__version__}")
    print(f"Python: {platform.python_version()}")
    print()
    print("API Keys:")
    for var in KEY_VARS:
        print(f"  {var}: {'OK' if env_value(var) else 'MISSING'}")
    print()
    print("Optional Dependencies:")
    for module, purpose in OPTIONAL_DEPENDENCIES:
        found = importlib.util.find_spec(module) is not None
        print(f"  {module}: {'OK' if found else 'not installed'} ({purpose})")
    print()
    print("Provider Connectivity:")
    have_httpx = importlib.util.find_spec("httpx") is not None
    for name, variables in (
        ("OpenAI", ("OPENAI_API_KEY",)),
        ("Anthropic", ("ANTHROPIC_API_KEY",)),
        ("Gemini", ("GOOGLE_API_KEY", "GEMINI_API_KEY")),
    ):
        key = env_value(*variables)
        if not key:
            status = "skipped (no key)"
        elif args.offline:
            status = "skipped (--offline)"
        elif not have_httpx:
            status = "skipped (pip install httpx to check)"
        else:
            status = _probe(name, key)
        print(f"  {name}: {status}")
    print()
    print("Diagnosis complete.")
    return 0


def _templates(args: argparse.Namespace) -> int:
    from ..templates import list_templates

    for name in list_templates():
        print(name)
    return 0


def _view(args: argparse.Namespace) -> int:
    import tempfile
    import webbrowser
    from pathlib import Path

    from .._storage import atomic_write_text
    from .._view.page import SavedFileError, page_for_file

    source = Path(args.file)
    try:
        kind, page = page_for_file(source)
    except FileNotFoundError:
        raise CliError(f"no such file: {source}") from None
    except SavedFileError as exc:
        raise CliError(str(exc)) from None
    if args.output:
        target = Path(args.output)
    else:
        target = Path(tempfile.gettempdir()) / f"selectools-view-{source.stem}.html"
    atomic_write_text(target, page)
    url = target.resolve().as_uri()
    print(f"{kind} page: {url}")
    if not args.no_browser and not webbrowser.open(url):
        print("(no browser could be opened: open the page above yourself)", file=sys.stderr)
    return 0


# -- entry point -------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="selectools", description="selectools command line")
    parser.add_argument("--version", action="version", version=f"selectools {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", help="serve an agent over HTTP")
    serve.add_argument(
        "config",
        nargs="?",
        help="a YAML config file, a template name, or module:agent (an Agent or a function "
        "returning one, imported from the current directory)",
    )
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 = any free)")
    serve.add_argument(
        "--host", default="127.0.0.1", help="bind address (default 127.0.0.1; 0.0.0.0 = all)"
    )
    serve.add_argument("--no-playground", action="store_true", help="do not serve /playground")
    serve.add_argument("--builder", action="store_true", help="serve the visual builder")
    serve.add_argument(
        "--reload", action="store_true", help="with --builder: restart when a file changes"
    )
    serve.add_argument(
        "--auth-token",
        help="require 'Authorization: Bearer TOKEN' (else SELECTOOLS_AUTH_TOKEN); the builder "
        "always needs one: this, else BUILDER_AUTH_TOKEN, ~/.selectools/auth_token, or one it "
        "makes and prints as a login URL",
    )
    serve.add_argument(
        "--session-store",
        help="where sessions live: redis://..., a .db file (SQLite) or a directory (JSON files)",
    )
    serve.add_argument(
        "--cors-origin", action="append", help="a browser origin allowed to call the API"
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        help="a host name the server answers to besides IP addresses and localhost",
    )
    serve.add_argument(
        "--request-timeout",
        type=float,
        default=DEFAULT_REQUEST_TIMEOUT,
        help="seconds a client has to send a whole request (default %(default)s)",
    )
    serve.add_argument(
        "--max-connections",
        type=int,
        default=DEFAULT_MAX_CONNECTIONS,
        help="open connections at most; more get 503 (default %(default)s)",
    )
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        help="worker processes (default 1); share sessions between them with --session-store",
    )
    serve.set_defaults(run=_serve)

    doctor = commands.add_parser("doctor", help="check keys, dependencies and providers")
    doctor.add_argument("--offline", action="store_true", help="do not contact the providers")
    doctor.set_defaults(run=_doctor)

    templates = commands.add_parser("templates", help="list the built-in templates")
    templates.set_defaults(run=_templates)

    commands.add_parser(
        "eval",
        help="run an eval dataset or compare it with a baseline (selectools eval run --help)",
        add_help=False,
    )

    view = commands.add_parser("view", help="open a saved trace or eval report in the browser")
    view.add_argument("file", help="a trace_to_json(...) file or an EvalReport.to_json(...) file")
    view.add_argument("--output", "-o", help="where to write the page (default: a temp file)")
    view.add_argument("--no-browser", action="store_true", help="write the page, do not open it")
    view.set_defaults(run=_view)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["eval"]:  # the eval command line is the evals package's own
        from ..evals.cli import main as eval_main

        return eval_main(arguments[1:], prog="selectools eval")
    parser = _parser()
    args = parser.parse_args(arguments)
    try:
        return int(args.run(args))
    except CliError as exc:
        print(f"selectools {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
