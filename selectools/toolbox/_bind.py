"""Bind a toolbox tool to its configuration (a sandbox, a network policy).

Toolbox functions take their configuration as hidden keyword arguments
(``_sandbox``, ``_net`` …: a leading underscore keeps them out of the schema
the model sees). The module-level tools run with the defaults; :func:`bind`
makes a new Tool whose hidden arguments are fixed, so two agents can hold two
differently confined copies of ``read_file`` at once — no global state.
"""

from __future__ import annotations

from typing import Any

from ..tools import Tool, ToolOptions

__all__ = ["bind"]


def bind(tool: Tool, **hidden: Any) -> Tool:
    """A copy of ``tool`` whose hidden arguments are ``hidden`` (``None`` values are dropped)."""
    fixed = {k: v for k, v in hidden.items() if v is not None}
    if not fixed:
        return tool
    options = ToolOptions(
        streaming=tool.streaming,
        terminal=tool.terminal,
        requires_approval=tool.requires_approval,
    )
    return Tool(
        tool.name,
        tool.description,
        tool.parameters,
        tool.function,
        injected_kwargs={**tool.injected_kwargs, **fixed},
        options=options,
    )
