"""View pieces used by both the rich reprs and the live transcript: tool cards, usage, steps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..exceptions import ToolExecutionError, ToolValidationError
from ..trace import AgentTrace, StepType, TraceStep
from ..usage import AgentUsage, UsageStats
from . import _html as h
from ._steps import step_name

__all__ = [
    "MAX_STEP_ROWS",
    "MAX_TOOL_CARDS",
    "MAX_TURNS",
    "GuardNote",
    "ToolCard",
    "calls_phrase",
    "card_from_step",
    "denial_card",
    "denied_by",
    "error_line",
    "guard_note",
    "guard_note_html",
    "guard_note_text",
    "not_shown_html",
    "not_shown_text",
    "steps_table",
    "tool_card_html",
    "tool_card_text",
    "usage_line",
    "usage_table",
]

#: traces longer than this show their first rows and point to ``to_dataframe()``
MAX_STEP_ROWS = 200
#: tool cards a view of a run renders in full: the most recent ones. A card is about
#: 1 KB of HTML, so a running view redrawn up to 30 times a second sends about 100 KB a
#: redraw however long the run (10,000 calls were 9.6 MB and 150 ms a redraw), and the
#: final render a saved notebook keeps stays that size; a hundred calls is many screens
#: of recent work, and ``result.trace`` has every step
MAX_TOOL_CARDS = 100
#: model turns (iterations: their text, notes and usage rows) a view of a run renders
#: in full, the most recent ones: turns without tool calls are bounded too
MAX_TURNS = 50
_ARGS_PREVIEW = 80
_RESULT_PREVIEW = 80


@dataclass(slots=True)
class ToolCard:
    """One tool call as a view shows it.

    ``status`` is ``requested`` (asked for, not run), ``running``, ``ok``, ``error`` or
    ``denied`` (not run: ``by`` says who or what refused it, ``error`` why).
    """

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    call_id: str | None = None
    status: str = "running"
    result: str | None = None
    error: str | None = None
    duration_ms: float | None = None
    by: str | None = None


#: who refused a call, by the gate's ``source``, when no person or named handler did
_DENIERS = {
    "policy": "tool policy",
    "memoized": "an earlier denial in this run",
    "no_handler": "no approval handler",
    "timeout": "approval timeout",
    "handler_error": "approval handler error",
    "invalid_return": "approval handler",
    "cancelled": "cancellation",
}


def denied_by(data: dict[str, Any]) -> str:
    """Who refused a call, from a ``policy_decision``'s data (``by``, else its ``source``)."""
    by = data.get("by")
    if by:
        return str(by)
    source = str(data.get("source") or "")
    return _DENIERS.get(source, source or "unknown")


def denial_card(
    name: str, args: dict[str, Any] | None, call_id: str | None, data: dict[str, Any]
) -> ToolCard:
    """The card of a call a policy, a rule or a person refused (it never ran)."""
    return ToolCard(
        name=name,
        args=dict(args or {}),
        call_id=call_id,
        status="denied",
        error=str(data.get("reason") or "denied"),
        by=denied_by(data),
    )


def error_line(error: BaseException) -> str:
    """An exception as one readable line (the library's boxed messages are unwrapped)."""
    if isinstance(error, ToolExecutionError):
        error = error.error
    elif isinstance(error, ToolValidationError):
        tail = f" ({error.suggestion})" if error.suggestion else ""
        return h.one_line(f"{error.issue}{tail}", 300)
    lines = [line.strip() for line in str(error).strip().splitlines()]
    if lines and set(lines[0]) == {"="}:  # the library's boxed layout: skip rule and heading
        lines = lines[3:]
    first = next((line for line in lines if line and set(line) != {"="}), "")
    return h.one_line(f"{type(error).__name__}: {first}" if first else type(error).__name__, 300)


def calls_phrase(count: int, denied: int) -> str:
    """``9,900 tool calls``, with ``(3 denied)`` when some of them were refused."""
    return h.plural(count, "tool call") + (f" ({denied:,} denied)" if denied else "")


def not_shown_text(what: str, where: str) -> str:
    """The line a bounded view shows in place of what it left out: how much, and where it all is."""
    return f"… {what} not shown — {where}"


def not_shown_html(what: str, where: str) -> str:
    return f"<div>{h.muted(not_shown_text(what, where))}</div>"


def card_from_step(step: TraceStep) -> ToolCard:
    """A tool card for a recorded ``tool_execution`` step."""
    failed = step.status == "error"
    return ToolCard(
        name=step.tool_name or step.summary,
        args=dict(step.tool_args or {}),
        call_id=step.call_id,
        status="error" if failed else "ok",
        result=None if failed else step.result,
        error=step.error if failed else None,
        duration_ms=step.duration_ms,
    )


def _call(card: ToolCard) -> str:
    return f"{card.name}({h.one_line(h.json_text(card.args), _ARGS_PREVIEW)})"


def _outcome(card: ToolCard) -> str:
    if card.status == "ok":
        return "→ " + h.one_line(card.result or "", _RESULT_PREVIEW)
    if card.status == "error":
        return "✗ " + h.one_line(card.error or "failed", _RESULT_PREVIEW)
    if card.status == "denied":
        return f"⊘ denied by {card.by}: " + h.one_line(card.error or "", _RESULT_PREVIEW)
    return "running…" if card.status == "running" else ""


def tool_card_html(card: ToolCard) -> str:
    tone = {"ok": "ok", "error": "error", "running": "info", "denied": "warn"}.get(
        card.status, "muted"
    )
    label = "denied" if card.status == "denied" else "tool"
    summary = (
        f"{h.badge(label, tone)} <code>{h.esc(_call(card))}</code> "
        f"{h.esc(_outcome(card))} {h.duration(card.duration_ms)}"
    )
    body = h.muted("arguments") + h.pre(h.json_text(card.args, indent=2))
    if card.status == "ok":
        body += h.muted("result") + h.pre(card.result or "")
    elif card.status == "error":
        body += h.muted("error") + h.pre(card.error or "", tone="error")
    elif card.status == "denied":
        body += h.muted(f"not run: denied by {card.by}") + h.pre(card.error or "", tone="warn")
    return h.details(summary, body)


def tool_card_text(card: ToolCard) -> str:
    """The card as one deterministic line (no duration)."""
    return f"  [tool] {_call(card)} {_outcome(card)}".rstrip()


def usage_line(usage: AgentUsage) -> str:
    return (
        f"{h.format_tokens(usage.total_tokens)} ({usage.total_prompt_tokens:,} prompt + "
        f"{usage.total_completion_tokens:,} completion) · {h.format_cost(usage.total_cost_usd)}"
    )


def usage_table(calls: Sequence[UsageStats]) -> str:
    """A row per model call: the last :data:`MAX_TURNS`, after a line counting the earlier ones."""
    hidden = max(len(calls) - MAX_TURNS, 0)
    rows = [
        [
            str(index),
            h.esc(stats.model or "—"),
            f"{stats.prompt_tokens:,}",
            f"{stats.completion_tokens:,}",
            f"{stats.total_tokens:,}",
            h.esc(h.format_cost(stats.cost_usd)),
        ]
        for index, stats in enumerate(calls[hidden:], hidden + 1)
    ]
    html = h.table(
        ["call", "model", "prompt", "completion", "total", "cost"], rows, numeric=(0, 2, 3, 4, 5)
    )
    if hidden:
        where = "usage.iterations has every call"
        html = not_shown_html(f"the first {h.plural(hidden, 'model call')}", where) + html
    return html


def steps_table(trace: AgentTrace) -> str:
    """The trace's steps (the first :data:`MAX_STEP_ROWS`), offsets and durations sanitizable."""
    rows = []
    for step in trace.steps[:MAX_STEP_ROWS]:
        offset = (step.started_at - trace.started_at) * 1000.0
        status = h.badge("error", "error") if step.status == "error" else h.esc(step.status)
        tokens = f"{step.total_tokens:,}" if step.type is StepType.LLM_CALL else ""
        rows.append(
            [
                h.duration(offset),
                h.esc(step.type.value),
                h.esc(h.one_line(step_name(step), 60)),
                h.duration(step.duration_ms),
                str(step.lane),
                tokens,
                status,
            ]
        )
    html = h.table(
        ["start", "type", "name", "duration", "lane", "tokens", "status"],
        rows,
        numeric=(0, 3, 4, 5),
    )
    hidden = len(trace.steps) - MAX_STEP_ROWS
    if hidden > 0:
        html += h.muted(f"… {hidden:,} more steps: use trace.to_dataframe() to see them all")
    return html


@dataclass
class GuardNote:
    """A safety decision in a run's view: which rule (``label``), what it did and why (``text``).

    ``tone`` is ``"error"`` for a block and ``"warn"`` for a rewrite or warning.
    """

    label: str
    text: str
    tone: str = "warn"


def guard_note_html(note: GuardNote) -> str:
    return f"<div>{h.badge(note.label, note.tone)} {h.esc(note.text)}</div>"


def guard_note_text(note: GuardNote) -> str:
    return f"  ! [{note.label}] {note.text}"


def guard_note(name: str, data: dict[str, Any]) -> GuardNote | None:
    """The note for a guardrail, coherence or screening event (``None``: nothing to show)."""
    if name == "on_guardrail_triggered":
        verb = {"block": "blocked", "rewrite": "rewrote", "warn": "warned"}.get(
            data["action"], data["action"]
        )
        return GuardNote(
            "guardrail",
            f"{data['side']} '{data['guardrail_name']}' {verb}: {data['reason']}",
            "error" if data["action"] == "block" else "warn",
        )
    if name == "on_coherence_blocked":
        return GuardNote(
            "coherence", f"blocked {data['tool_name']}: {data['explanation']}", "error"
        )
    if name == "on_tool_output_screened" and not data["safe"]:
        count = len(data["matched_patterns"])
        return GuardNote(
            "screening",
            f"{data['tool_name']} output withheld from the model: "
            f"{count} injection pattern(s) matched",
            "error",
        )
    return None
