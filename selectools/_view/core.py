"""Views of the core value types: message, result, usage and a requested tool call.

Plain string building from public attributes: no IPython, pandas or plotly
import, no memory addresses, no run ids. The only clock-dependent text is
durations, wrapped in ``<span class="st-ms">``. Reached through the display port
(:mod:`selectools._display`) by the rows in :mod:`selectools._view`.
"""

from __future__ import annotations

from .._display import Renderers
from ..trace import StepType, TraceStep
from ..types import AgentResult, ContentPart, Message, ToolCall
from ..usage import AgentUsage, UsageStats
from . import _html as h
from ._components import (
    MAX_TOOL_CARDS,
    MAX_TURNS,
    ToolCard,
    calls_phrase,
    card_from_step,
    denial_card,
    not_shown_html,
    steps_table,
    tool_card_html,
    tool_card_text,
    usage_line,
    usage_table,
)

__all__ = [
    "RENDERERS",
    "STOP_TONES",
    "agent_usage_html",
    "result_details_html",
    "result_header_html",
    "result_header_text",
    "tool_call_html",
]

#: how each ``stop_reason`` is coloured
STOP_TONES = {
    "final": "ok",
    "terminal_tool": "ok",
    "routing": "info",
    "max_iterations": "warn",
    "budget_exceeded": "warn",
    "provider_error": "error",
    "cancelled": "error",
}
_PLAIN_ANSWER = 500


# -- AgentResult --------------------------------------------------------------
def _denials(result: AgentResult) -> list[TraceStep]:
    """The run's refused calls: its ``policy_decision`` steps that denied (one per call)."""
    if result.trace is None:
        return []
    seen: set[str | None] = set()
    denied = []
    for step in result.trace.filter(StepType.POLICY_DECISION):
        if (step.data or {}).get("decision") == "deny" and step.call_id not in seen:
            seen.add(step.call_id)
            denied.append(step)
    return denied


def _counts(result: AgentResult) -> str:
    """Iterations, the calls that were run, the refused ones apart, tokens and cost."""
    tokens = result.usage.total_tokens if result.usage is not None else 0
    cost = result.usage.total_cost_usd if result.usage is not None else 0.0
    denied = len(_denials(result))
    calls = h.plural(len(result.tool_calls) - denied, "tool call")
    if denied:
        calls += f" · {denied:,} denied"
    return (
        f"{h.plural(result.iterations, 'iteration')} · {calls} · {h.format_tokens(tokens)} · "
        f"{h.format_cost(cost)}"
    )


def result_header_text(result: AgentResult) -> str:
    """``final · 2 iterations · 1 tool call · 120 tokens · $0.000040`` (deterministic)."""
    return f"{result.stop_reason} · {_counts(result)}"


def result_header_html(result: AgentResult) -> str:
    tone = STOP_TONES.get(result.stop_reason, "muted")
    latency = result.trace.total_duration_ms if result.trace is not None else None
    html = f"{h.badge(result.stop_reason, tone)} {h.esc(_counts(result))} {h.duration(latency)}"
    if result.error is not None:
        html += h.pre(f"{type(result.error).__name__}: {result.error}", tone="error")
    return f"<div>{html}</div>"


def result_details_html(result: AgentResult, *, tool_calls: bool = True) -> str:
    """The collapsible sections under a result: tool calls, reasoning, parsed, usage, trace.

    Bounded like the live view: the last :data:`MAX_TOOL_CARDS` tool cards and
    :data:`MAX_TURNS` reasoning texts, each list after a line counting what it leaves out.
    """
    parts = []
    if tool_calls and result.tool_calls:
        parts.append(
            h.details(h.esc(f"Tool calls ({len(result.tool_calls)})"), _cards_html(result))
        )
    if result.reasoning_history:
        texts = result.reasoning_history
        hidden = max(len(texts) - MAX_TURNS, 0)
        body = "".join(h.pre(text) for text in texts[hidden:])
        if hidden:
            what = f"the first {h.plural(hidden, 'reasoning text')}"
            body = not_shown_html(what, "result.reasoning_history has them all") + body
        parts.append(h.details("Reasoning", body))
    if result.parsed is not None:
        parts.append(h.details("Parsed output", h.pre(h.json_text(result.parsed, indent=2))))
    if result.usage is not None:
        parts.append(h.details("Usage and cost", agent_usage_html(result.usage)))
    if result.trace is not None:
        parts.append(
            h.details(
                h.esc(f"Trace ({h.plural(len(result.trace), 'step')})"), steps_table(result.trace)
            )
        )
    return "".join(parts)


def _cards_html(result: AgentResult) -> str:
    """The last :data:`MAX_TOOL_CARDS` cards, after a line counting the earlier ones."""
    cards = _cards(result)
    hidden = max(len(cards) - MAX_TOOL_CARDS, 0)
    html = "".join(tool_card_html(card) for card in cards[hidden:])
    if hidden:
        denied = sum(card.status == "denied" for card in cards[:hidden])
        what = f"the first {calls_phrase(hidden, denied)}"
        html = not_shown_html(what, "result.trace has every step") + html
    return html


def _cards(result: AgentResult) -> list[ToolCard]:
    """A card per call that ran and per call that was refused, in the order they happened."""
    if result.trace is not None:
        denials = {id(step) for step in _denials(result)}
        cards = [
            card_from_step(step)
            if step.type is StepType.TOOL_EXECUTION
            else denial_card(step.tool_name or "", step.tool_args, step.call_id, step.data or {})
            for step in result.trace.steps
            if step.type is StepType.TOOL_EXECUTION or id(step) in denials
        ]
        if cards:
            return cards
    return [
        ToolCard(
            name=call.tool_name, args=dict(call.parameters), call_id=call.id, status="requested"
        )
        for call in result.tool_calls
    ]


def _result_text(result: AgentResult) -> str:
    answer = result.content
    if len(answer) > _PLAIN_ANSWER:
        answer = answer[: _PLAIN_ANSWER - 1] + "…"
    return f"AgentResult: {result_header_text(result)}\n{answer}"


def _result_html(result: AgentResult) -> str:
    tone = STOP_TONES.get(result.stop_reason, "muted")
    body = result_header_html(result) + h.pre(result.content) + result_details_html(result)
    return h.box(body, "result", tone)


# -- Message --------------------------------------------------------------------
def _part_text(part: ContentPart) -> str:
    if part.type == "text":
        return part.text or ""
    return f"[{part.type}{': ' + part.media_type if part.media_type else ''}]"


def _message_body(message: Message) -> str:
    if isinstance(message.content, str):
        return message.content
    return "\n".join(_part_text(part) for part in message.content)


def _message_text(message: Message) -> str:
    who = message.role.value + (f" ({message.tool_name})" if message.tool_name else "")
    calls = ""
    if message.tool_calls:
        calls = " → " + ", ".join(
            f"{c.tool_name}({h.json_text(c.parameters)})" for c in message.tool_calls
        )
    return f"{who}: {h.one_line(_message_body(message), 200)}{calls}"


def _message_html(message: Message) -> str:
    tone = {"user": "info", "assistant": "ok", "tool": "muted", "system": "warn"}[
        message.role.value
    ]
    label = message.role.value + (f" · {message.tool_name}" if message.tool_name else "")
    body = h.badge(label, "error" if message.is_error else tone) + h.pre(_message_body(message))
    for call in message.tool_calls or ():
        body += tool_card_html(
            ToolCard(name=call.tool_name, args=dict(call.parameters), status="requested")
        )
    return h.box(body, "message")


# -- usage ----------------------------------------------------------------------
def _stats_text(stats: UsageStats) -> str:
    model = f"{stats.model} · " if stats.model else ""
    return (
        f"UsageStats: {model}{h.format_tokens(stats.total_tokens)} ({stats.prompt_tokens:,} "
        f"prompt + {stats.completion_tokens:,} completion) · {h.format_cost(stats.cost_usd)}"
    )


def _stats_html(stats: UsageStats) -> str:
    rows = [
        ["model", h.esc(stats.model or "—")],
        ["provider", h.esc(stats.provider or "—")],
        ["prompt tokens", f"{stats.prompt_tokens:,}"],
        ["completion tokens", f"{stats.completion_tokens:,}"],
        ["total tokens", f"{stats.total_tokens:,}"],
        ["cost", h.esc(h.format_cost(stats.cost_usd))],
    ]
    if stats.embedding_tokens:
        rows.append(["embedding tokens", f"{stats.embedding_tokens:,}"])
        rows.append(["embedding cost", h.esc(h.format_cost(stats.embedding_cost_usd))])
    return h.box(h.table(["usage", ""], rows, numeric=(1,)), "usage")


def _agent_usage_text(usage: AgentUsage) -> str:
    return f"AgentUsage: {h.plural(len(usage.iterations), 'call')} · {usage_line(usage)}"


def agent_usage_html(usage: AgentUsage) -> str:
    html = f"<div>{h.esc(usage_line(usage))}</div>"
    if usage.iterations:
        html += usage_table(usage.iterations)
    if usage.tool_usage:
        rows = [
            [h.esc(name), f"{count:,}", f"{usage.tool_tokens.get(name, 0):,}"]
            for name, count in usage.tool_usage.items()
        ]
        html += h.table(["tool", "calls", "tokens"], rows, numeric=(1, 2))
    return html


def _agent_usage_box(usage: AgentUsage) -> str:
    return h.box(h.details(h.esc(_agent_usage_text(usage)), agent_usage_html(usage)), "agent-usage")


# -- ToolCall (asked for by the model, not yet run) -----------------------------------
def tool_call_html(call: ToolCall) -> str:
    """A tool call the model asked for (not yet run) as a card."""
    return tool_card_html(
        ToolCard(name=call.tool_name, args=dict(call.parameters), status="requested")
    )


def _tool_call_text(call: ToolCall) -> str:
    return tool_card_text(
        ToolCard(name=call.tool_name, args=dict(call.parameters), status="requested")
    ).strip()


RENDERERS: dict[str, Renderers] = {
    "selectools.types.AgentResult": {"text": _result_text, "html": _result_html},
    "selectools.types.Message": {"text": _message_text, "html": _message_html},
    "selectools.types.ToolCall": {"text": _tool_call_text, "html": tool_call_html},
    "selectools.usage.UsageStats": {"text": _stats_text, "html": _stats_html},
    "selectools.usage.AgentUsage": {"text": _agent_usage_text, "html": _agent_usage_box},
}
