"""``%selectools mcp``: attach MCP servers to the notebook; their tools join ``%%agent``'s set.

``%selectools mcp NAME -- COMMAND ARGS...`` starts a stdio server,
``%selectools mcp NAME --url URL`` connects to a streamable-HTTP one,
``%selectools mcp NAME --detach`` stops it and ``%selectools mcp`` lists what
is attached. A bare ``python`` or ``python3`` as the command means the kernel's
own interpreter (``sys.executable``), as ``%pip`` means the kernel's pip: the
``python`` first on PATH is often another one (a kernel registered from a
virtualenv or a conda env), without the packages the notebook installed. From Python: :func:`attach_mcp` / :func:`detach_mcp`. Tools whose
name is already taken by another notebook tool get the server's name as a
prefix. Everything is detached when the extension is unloaded, when IPython
shuts down and (as a last resort) at interpreter exit, so no server process
outlives the kernel.
"""

from __future__ import annotations

import atexit
import contextlib
import shlex
import sys
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import NotebookUsageError

if TYPE_CHECKING:
    from ..mcp import MCPClient, MCPServerConfig, MCPTool
    from .state import NotebookState

__all__ = ["MCPAttachment", "attach_mcp", "detach_all", "detach_mcp", "parse_mcp_line"]

_USAGE = (
    "%selectools mcp NAME -- COMMAND ARGS...   (stdio server)\n"
    "%selectools mcp NAME --url URL           (streamable-HTTP server)\n"
    "%selectools mcp NAME --detach            (stop it)\n"
    "%selectools mcp                          (list attached servers)"
)


@dataclass
class MCPAttachment:
    """One attached server: its client and the names its tools have in the notebook."""

    client: MCPClient
    tool_names: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        tools = ", ".join(self.tool_names) or "no tools"
        return f"MCP server {self.client.name!r} ({self.client.config.describe()}): {tools}"


#: commands that mean "the kernel's Python" (with a version, say python3.11, they are taken as given)
KERNEL_PYTHON = frozenset({"python", "python3"})

_STATES: weakref.WeakValueDictionary[int, NotebookState] = weakref.WeakValueDictionary()
_atexit_registered = False


def parse_mcp_line(rest: str) -> tuple[str, Any]:
    """``("list", None)``, ``("detach", name)`` or ``("attach", MCPServerConfig)``."""
    rest = rest.strip()
    if not rest:
        return "list", None
    head, sep, command = rest.partition(" -- ")
    if not sep and rest.endswith(" --"):
        head, sep, command = rest[:-3], " -- ", ""
    try:
        words = shlex.split(head)
    except ValueError as exc:
        raise NotebookUsageError(f"%selectools mcp: cannot read the line ({exc})") from None
    name, options = words[0], words[1:]
    if sep:
        if options:
            raise NotebookUsageError(
                f"%selectools mcp: unexpected {' '.join(options)!r} before '--'; usage:\n{_USAGE}"
            )
        argv = shlex.split(command)
        if not argv:
            raise NotebookUsageError(
                f"%selectools mcp: give the server command after '--'; usage:\n{_USAGE}"
            )
        program = sys.executable if argv[0] in KERNEL_PYTHON and sys.executable else argv[0]
        return "attach", _config(name, command=program, args=argv[1:])
    if options == ["--detach"]:
        from ..mcp._config import _clean

        return "detach", _clean(name)  # the name the server was attached under
    if len(options) == 2 and options[0] == "--url":
        return "attach", _config(name, url=options[1], transport="streamable-http")
    raise NotebookUsageError(f"%selectools mcp: cannot read {rest!r}; usage:\n{_USAGE}")


def _config(name: str, **options: Any) -> MCPServerConfig:
    from ..mcp import MCPServerConfig

    try:
        return MCPServerConfig(name=name, **options)
    except ValueError as exc:
        raise NotebookUsageError(f"%selectools mcp: {exc}") from None


def attach_mcp(state: NotebookState, config: MCPServerConfig) -> list[MCPTool]:
    """Connect ``config``'s server and add its tools to the notebook's tool set.

    Attaching a name again replaces the earlier server (re-running a cell).
    Raises :class:`~selectools.mcp.MCPConnectionError` when it cannot connect.
    """
    from ..mcp import MCPClient

    _watch(state)
    if config.name in state.mcp:
        detach_mcp(state, config.name)
    client = MCPClient(config)
    client.connect()
    try:
        tools = client.list_tools_sync()
    except BaseException:
        client.close()
        raise
    attachment = MCPAttachment(client)
    named = []
    for item in tools:
        made = item.prefixed(config.name) if item.name in state.tools else item
        state.tools[made.name] = made
        attachment.tool_names.append(made.name)
        named.append(made)
    state.mcp[config.name] = attachment
    return named


def detach_mcp(state: NotebookState, name: str) -> None:
    """Remove the server's tools from the notebook and stop it."""
    attachment = state.mcp.pop(name, None)
    if attachment is None:
        known = ", ".join(state.mcp) or "none attached"
        raise NotebookUsageError(f"%selectools mcp: no MCP server named '{name}' ({known})")
    for tool_name in attachment.tool_names:
        state.tools.pop(tool_name, None)
    attachment.client.close()


def detach_all(state: NotebookState) -> None:
    for name in list(state.mcp):
        detach_mcp(state, name)


def _watch(state: NotebookState) -> None:
    """Detach everything when the interpreter exits, if nobody did it before."""
    global _atexit_registered
    _STATES[id(state)] = state
    if not _atexit_registered:
        atexit.register(_detach_everywhere)
        _atexit_registered = True


def _detach_everywhere() -> None:
    for state in list(_STATES.values()):
        with contextlib.suppress(Exception):  # best effort while the interpreter exits
            detach_all(state)
