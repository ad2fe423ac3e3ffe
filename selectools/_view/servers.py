"""Views of the servers a notebook starts: the agent server's playground and the eval dashboard."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._display import Renderers
from ._html import esc

if TYPE_CHECKING:
    from ..evals.dashboard import DashboardServer
    from ..serve.app import ServerHandle

__all__ = ["RENDERERS"]


def _server_html(handle: ServerHandle) -> str:
    """The playground in an iframe while the server runs; its repr otherwise."""
    if handle.playground_url is None or not handle.running:
        return f"<code>{esc(repr(handle))}</code>"
    src = esc(handle.playground_url)
    return (
        f"<div><code>{esc(repr(handle))}</code></div>"
        f'<iframe src="{src}" width="100%" height="520" style="border:1px solid #ccc"></iframe>'
    )


def _dashboard_html(server: DashboardServer) -> str:
    link = esc(server.url)
    return (
        f'<a href="{link}" target="_blank" rel="noopener">eval dashboard</a> ({esc(repr(server))})'
    )


RENDERERS: dict[str, Renderers] = {
    "selectools.serve.app.ServerHandle": {"text": repr, "html": _server_html},
    "selectools.evals.dashboard.DashboardServer": {"text": repr, "html": _dashboard_html},
}
