"""Static HTML of an approval card: what a saved notebook shows without a kernel.

The live card is an anywidget (``selectools/notebook/approval_card.py``); its
``_repr_mimebundle_`` carries this rendering of the card's current state next to
the widget view, so GitHub, nbviewer and a reopened notebook show the decision.
"""

from __future__ import annotations

from typing import Any

from ._html import esc, format_cost, format_tokens

__all__ = ["approval_html", "approval_text"]

_TONE = {"approved": "#2e8b57", "denied": "#c0392b", "pending": "#d0a000"}


def approval_text(state: dict[str, Any]) -> str:
    """One line: the pending question, or the decided record."""
    if state["status"] != "pending":
        return str(state["record"])
    return f"approval pending: {state['tool']}({state['args_preview']}) — {state['rule']}"


def approval_html(state: dict[str, Any]) -> str:
    """The card as self-contained HTML (inline styles, no script)."""
    tone = _TONE.get(state["status"], "#999")
    style = (
        f"border:1px solid #ccc;border-left:4px solid {tone};border-radius:4px;"
        "padding:4px 8px;margin:4px 0;font-size:13px;max-width:720px"
    )
    if state["status"] != "pending":
        return (
            f'<div class="selectools-approval-static" data-status="{esc(state["status"])}" '
            f'style="{style}">{esc(state["record"])}</div>'
        )
    usage = (
        f"run so far: {format_tokens(int(state['tokens']))}, "
        f"{format_cost(float(state['cost_usd']))}"
    )
    return (
        f'<div class="selectools-approval-static" data-status="pending" style="{style}">'
        f"<b>Approve tool call:</b> <code>{esc(state['preview'])}</code>"
        f'<div style="color:#666">{esc(state["rule"])}</div>'
        f'<div style="color:#666">{esc(usage)}</div>'
        f'<pre style="margin:4px 0">{esc(state["args_json"])}</pre>'
        "</div>"
    )
