"""The notebook's run ledger as HTML: one row per run, totals in the header.

Each row shows the cell it ran in, what ran (agent, graph or eval and its name),
the model, tokens, cost, latency, tool calls and denials (apart, so a denied
call never reads as one that ran) and the trace id.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._display import Renderers
from . import _html as h

if TYPE_CHECKING:
    from ..run_ledger import Ledger, LedgerEntry

__all__ = ["RENDERERS", "ledger_html", "ledger_text"]

_HEADERS = (
    "cell",
    "run",
    "model",
    "tokens",
    "cost",
    "latency",
    "tools",
    "denied",
    "outcome",
    "trace",
)


def _row(entry: LedgerEntry) -> tuple[str, ...]:
    return (
        h.esc(f"[{entry.cell}]" if entry.cell is not None else "–"),
        f'<span style="white-space: nowrap;">{h.esc(entry.kind)} {h.muted(entry.name)}</span>',
        f'<span style="white-space: nowrap;">{h.esc(entry.model or "–")}</span>',
        h.esc(f"{entry.tokens:,}"),
        h.esc(h.format_cost(entry.cost_usd)),
        h.duration(entry.latency_ms),
        h.esc(str(entry.tool_calls)),
        h.badge(str(entry.denials), "warn") if entry.denials else h.esc("0"),
        h.esc(entry.outcome),
        _trace_id(entry.trace_id),
    )


def _trace_id(run_id: str) -> str:
    """The id's end (a session's ids share their start), the whole id on hover."""
    if not run_id:
        return h.muted("–")
    shown = run_id if len(run_id) <= 12 else "…" + run_id[-8:]
    return (
        f'<span style="opacity: 0.7; white-space: nowrap;" title="{h.esc(run_id)}">'
        f"{h.esc(shown)}</span>"
    )


def _totals(ledger: Ledger) -> str:
    runs = h.plural(len(ledger), "run")
    return (
        f"{runs} · {h.format_tokens(ledger.total_tokens)} · {h.format_cost(ledger.total_cost_usd)}"
    )


def ledger_html(ledger: Ledger) -> str:
    entries = list(ledger)
    head = f"<b>Run ledger</b> · {h.esc(_totals(ledger))}"
    if not entries:
        body = h.muted("no runs yet: %%agent, %%graph, %%eval and agent.run(...) cells add rows")
    else:
        body = h.table(_HEADERS, (_row(e) for e in entries), numeric=(3, 4, 5, 6, 7))
    return h.box(f"{head}<br>{body}", "ledger")


def ledger_text(ledger: Ledger) -> str:
    lines = [f"Run ledger: {_totals(ledger)}"]
    for e in ledger:
        cell = f"[{e.cell}]" if e.cell is not None else "[-]"
        denied = f", {e.denials} denied" if e.denials else ""
        lines.append(
            f"  {cell:>6} {e.kind} {e.name} · {e.model or '-'} · {e.tokens:,} tokens · "
            f"{h.format_cost(e.cost_usd)} · {h.format_ms(e.latency_ms)} · "
            f"{h.plural(e.tool_calls, 'tool call')}{denied} · {e.outcome}"
        )
    return "\n".join(lines)


RENDERERS: dict[str, Renderers] = {
    "selectools.run_ledger.Ledger": {
        "text": ledger_text,
        "html": ledger_html,
        "dataframe": lambda ledger: ledger.to_dataframe(),
    },
}
