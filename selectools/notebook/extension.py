"""``%load_ext selectools`` / ``%unload_ext selectools``.

Loading registers the magics, a :class:`NotebookState` for the shell, the
``RunHandle`` live widget and an input transform that hands ``%agent`` prompts
to the magic verbatim. Core values need no formatter: they display through
:mod:`selectools._display`, with or without the extension. It imports neither
pandas nor plotly, touches no event loop and only imports the agent machinery
when a magic first runs.
"""

from __future__ import annotations

import sys
from typing import Any

from .._progress import register_bar
from .magics import SelectoolsMagics
from .progress import HtmlProgressBar

__all__ = ["load_ipython_extension", "protect_agent_lines", "unload_ipython_extension"]


def _show_handle(handle: Any) -> None:
    """``display(run_handle)``: its live widget (imported when one is first shown)."""
    from .handle_view import show_handle as show

    show(handle)


def protect_agent_lines(lines: list[str]) -> list[str]:
    """Pass ``%agent <prompt>`` lines to the magic verbatim.

    IPython reads a line ending in ``?`` as a help request (``%agent Where is
    Paris?`` would look up ``Paris``) and tokenizes the rest; a prompt is prose,
    so such lines become an explicit magic call before IPython's transforms run.
    """
    out = []
    for line in lines:
        body = line.rstrip("\r\n")
        if body.startswith(_AGENT_LINE) and body[len(_AGENT_LINE) :].strip():
            text = body[len(_AGENT_LINE) :]
            line = f"get_ipython().run_line_magic('agent', {text!r})" + line[len(body) :]
        out.append(line)
    return out


_AGENT_LINE = "%agent "


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext selectools``: registers the magics, the HTML displays and the ``%agent`` line guard."""
    magics = SelectoolsMagics(ipython)
    ipython.register_magics(magics)
    ipython.events.register("post_run_cell", magics.after_cell)
    register_bar(HtmlProgressBar)  # the progress bar when tqdm is not installed
    shown = ipython.display_formatter.ipython_display_formatter
    shown.for_type_by_name("selectools.agent.background", "RunHandle", _show_handle)
    cleanup = ipython.input_transformers_cleanup
    if protect_agent_lines not in cleanup:
        cleanup.append(protect_agent_lines)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext selectools``: undoes the above and stops attached MCP servers and served agents."""
    register_bar(None)
    magics = ipython.magics_manager.registry.get(SelectoolsMagics.__name__)
    if magics is not None and magics.state.mcp:
        from .mcp_attach import detach_all

        detach_all(magics.state)  # no MCP server outlives the extension
    if "selectools.notebook.serve_cell" in sys.modules:
        from .serve_cell import stop_all

        stop_all()  # nor an agent server started with %selectools serve
    cleanup = ipython.input_transformers_cleanup
    if protect_agent_lines in cleanup:
        cleanup.remove(protect_agent_lines)
    manager = ipython.magics_manager
    ours = manager.registry.pop(SelectoolsMagics.__name__, None)
    if ours is not None:
        ipython.events.unregister("post_run_cell", ours.after_cell)
        if ours in ipython.configurables:
            ipython.configurables.remove(ours)
        for kind, table in manager.magics.items():
            for name in list(ours.magics.get(kind, {})):
                if getattr(table.get(name), "__self__", None) is ours:
                    del table[name]
    ipython.display_formatter.ipython_display_formatter.pop(
        "selectools.agent.background.RunHandle", None
    )
