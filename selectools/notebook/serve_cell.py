"""``%selectools serve NAME``: serve a notebook agent in the background, show its playground.

``NAME`` is a notebook variable holding an Agent, a built-in template name or a
YAML config path. The server runs on a background thread of the kernel
(``create_app(...).serve(background=True)``) on 127.0.0.1 and a free port unless
``--port``/``--host`` say otherwise; the magic returns its
:class:`~selectools.serve.ServerHandle`, which renders as the playground in an
IFrame. ``--stop`` stops it; ``%selectools serve`` lists the running servers.
Serving the same name again replaces the earlier server.
"""

from __future__ import annotations

import argparse
import shlex
from typing import TYPE_CHECKING, Any

from .errors import NotebookUsageError

if TYPE_CHECKING:
    from ..serve import ServerHandle

__all__ = ["serve_line", "stop_all"]

_servers: dict[str, ServerHandle] = {}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse would exit the kernel
        raise NotebookUsageError(f"%selectools serve: {message}")


def _parser() -> _Parser:
    parser = _Parser(prog="%selectools serve", add_help=False)
    parser.add_argument("name", nargs="?")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--token", default=None)
    parser.add_argument("--no-playground", action="store_true")
    parser.add_argument("--stop", action="store_true")
    return parser


def _agent(name: str, namespace: dict[str, Any]) -> Any:
    from ..agent.core import Agent

    if name in namespace:
        value = namespace[name]
        if not isinstance(value, Agent):
            raise NotebookUsageError(
                f"%selectools serve: '{name}' is a {type(value).__name__}, not an Agent"
            )
        return value
    from ..templates import (
        TemplateConfigError,
        from_yaml,
        list_templates,
        load_template,
        make_provider,
    )

    try:
        if name in list_templates():
            return load_template(name, provider=make_provider("auto"))
        if name.endswith((".yaml", ".yml")):
            return from_yaml(name)
    except (TemplateConfigError, ValueError) as exc:
        raise NotebookUsageError(f"%selectools serve: {exc}") from None
    raise NotebookUsageError(
        f"%selectools serve: no Agent variable, template or YAML file named '{name}'"
    )


def serve_line(rest: str, namespace: dict[str, Any]) -> ServerHandle | str:
    """Run ``%selectools serve REST``; returns the handle, or a listing string."""
    args = _parser().parse_args(shlex.split(rest))
    if args.name is None:
        running = [f"{n}: {h!r}" for n, h in _servers.items() if h.running]
        return "\n".join(running) or "no servers running (%selectools serve AGENT_VARIABLE)"
    if args.stop:
        handle = _servers.pop(args.name, None)
        if handle is None:
            raise NotebookUsageError(f"%selectools serve: no server named '{args.name}' is running")
        handle.stop()
        return handle
    agent = _agent(args.name, namespace)
    from ..serve import create_app

    previous = _servers.pop(args.name, None)
    if previous is not None:
        previous.stop()
    app = create_app(agent, playground=not args.no_playground, auth_token=args.token)
    try:
        handle = app.serve(port=args.port, host=args.host, background=True)
    except (OSError, RuntimeError) as exc:
        raise NotebookUsageError(f"%selectools serve: {exc}") from None
    assert handle is not None  # background=True returns the handle (None only when blocking)
    _servers[args.name] = handle
    return handle


def stop_all() -> None:
    """Stop every server the magic started (the kernel is shutting down)."""
    while _servers:
        _, handle = _servers.popitem()
        handle.stop()
