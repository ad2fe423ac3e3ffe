"""Rich display of the core types: a static ``text/html`` snapshot and a short ``text/plain``.

Called by the core's ``_repr_mimebundle_`` hook (see ``selectools._display``).
Everything here is plain string building from public attributes: no IPython,
pandas or plotly import, no memory addresses, no run ids. The only
clock-dependent text is durations, wrapped in ``<span class="st-ms">``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from ..agent import Agent
from ..providers.base import provider_label
from ..tools import Tool, ToolLike
from ..trace import AgentTrace, StepType, TraceStep
from ..types import AgentResult, ContentPart, Message, ToolCall
from ..usage import AgentUsage, UsageStats
from . import _html as h
from ._components import (
    ToolCard,
    card_from_step,
    steps_table,
    tool_card_html,
    usage_line,
    usage_table,
)
from ._steps import step_name

__all__ = [
    "STOP_TONES",
    "mimebundle",
    "render_html",
    "render_text",
    "result_details_html",
    "result_header_html",
    "result_header_text",
    "step_html",
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


def mimebundle(
    obj: Any, include: Collection[str] | None = None, exclude: Collection[str] | None = None
) -> dict[str, str]:
    """``{"text/plain": ..., "text/html": ...}`` for a core object, filtered like IPython asks."""
    bundle = {"text/plain": render_text(obj), "text/html": render_html(obj)}
    if include:
        bundle = {k: v for k, v in bundle.items() if k in include}
    if exclude:
        bundle = {k: v for k, v in bundle.items() if k not in exclude}
    return bundle


def render_text(obj: Any) -> str:
    return _views(obj)[0](obj)


def render_html(obj: Any) -> str:
    return _views(obj)[1](obj)


# -- AgentResult --------------------------------------------------------------
def _counts(result: AgentResult) -> str:
    tokens = result.usage.total_tokens if result.usage is not None else 0
    cost = result.usage.total_cost_usd if result.usage is not None else 0.0
    return (
        f"{h.plural(result.iterations, 'iteration')} · "
        f"{h.plural(len(result.tool_calls), 'tool call')} · {h.format_tokens(tokens)} · "
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
    """The collapsible sections under a result: tool calls, reasoning, parsed, usage, trace."""
    parts = []
    if tool_calls and result.tool_calls:
        parts.append(
            h.details(
                h.esc(f"Tool calls ({len(result.tool_calls)})"),
                "".join(tool_card_html(card) for card in _cards(result)),
            )
        )
    if result.reasoning_history:
        parts.append(
            h.details("Reasoning", "".join(h.pre(text) for text in result.reasoning_history))
        )
    if result.parsed is not None:
        parts.append(h.details("Parsed output", h.pre(h.json_text(result.parsed, indent=2))))
    if result.usage is not None:
        parts.append(h.details("Usage and cost", _agent_usage_html(result.usage)))
    if result.trace is not None:
        parts.append(
            h.details(h.esc(f"Trace ({len(result.trace)} steps)"), steps_table(result.trace))
        )
    return "".join(parts)


def _cards(result: AgentResult) -> list[ToolCard]:
    if result.trace is not None:
        steps = result.trace.filter(StepType.TOOL_EXECUTION)
        if steps:
            return [card_from_step(step) for step in steps]
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


def _agent_usage_html(usage: AgentUsage) -> str:
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
    return h.box(
        h.details(h.esc(_agent_usage_text(usage)), _agent_usage_html(usage)), "agent-usage"
    )


# -- AgentTrace -------------------------------------------------------------------
def _trace_text(trace: AgentTrace) -> str:
    llm = len(trace.filter(StepType.LLM_CALL))
    tools = len(trace.filter(StepType.TOOL_EXECUTION))
    errors = sum(1 for step in trace.steps if step.status == "error")
    failed = f", {h.plural(errors, 'error')}" if errors else ""
    return (
        f"AgentTrace: {h.plural(len(trace), 'step')} ({h.plural(llm, 'LLM call')}, "
        f"{h.plural(tools, 'tool call')}{failed}) · {h.format_tokens(trace.total_tokens)} · "
        f"{h.format_cost(trace.total_cost_usd)}"
    )


def _trace_html(trace: AgentTrace) -> str:
    summary = f"{h.esc(_trace_text(trace))} {h.duration(trace.total_duration_ms)}"
    hint = h.muted("trace.gantt() draws it; trace.to_dataframe() tabulates it")
    tone = "error" if any(step.status == "error" for step in trace.steps) else "info"
    return h.box(h.details(summary, steps_table(trace) + hint), "trace", tone)


# -- Tool -------------------------------------------------------------------------
def _parameters(tool: ToolLike) -> list[tuple[str, str, bool, str]]:
    """``(name, type, required, description)`` per parameter; from the schema for any ToolLike."""
    if isinstance(tool, Tool):
        return [(p.name, p.spec.display, p.required, p.description) for p in tool.parameters]
    parameters = tool.schema().get("parameters") or {}
    required = set(parameters.get("required") or ())
    return [
        (
            str(name),
            str(prop.get("type", "any")),
            name in required,
            str(prop.get("description", "")),
        )
        for name, prop in (parameters.get("properties") or {}).items()
    ]


def _signature(tool: ToolLike) -> str:
    params = ", ".join(
        f"{name}: {kind}" + ("" if required else " = …")
        for name, kind, required, _ in _parameters(tool)
    )
    return f"{tool.name}({params})"


def _flags(tool: ToolLike) -> list[str]:
    names = ("terminal", "requires_approval", "streaming", "is_async")
    return [name.replace("_", " ") for name in names if getattr(tool, name, False)]


def _tool_text(tool: ToolLike) -> str:
    flags = "".join(f" [{flag}]" for flag in _flags(tool))
    return f"Tool {_signature(tool)}{flags}: {h.one_line(tool.description, 120)}"


def _tool_html(tool: ToolLike) -> str:
    head = f"{h.badge('tool', 'info')} <code>{h.esc(_signature(tool))}</code> " + "".join(
        h.badge(flag) + " " for flag in _flags(tool)
    )
    rows = [
        [f"<code>{h.esc(name)}</code>", h.esc(kind), "yes" if required else "no", h.esc(text)]
        for name, kind, required, text in _parameters(tool)
    ]
    body = f"<div>{h.esc(tool.description)}</div>"
    if rows:
        body += h.table(["parameter", "type", "required", "description"], rows)
    source = getattr(tool, "source", None)
    if source:
        body += h.details("Source", h.pre(source))
    body += h.details("JSON schema", h.pre(h.json_text(tool.schema(), indent=2)))
    return h.box(f"<div>{head}</div>{body}", "tool", "info")


# -- Agent ------------------------------------------------------------------------
def _agent_text(agent: Agent) -> str:
    tools = ", ".join(t.name for t in agent.tools) or "none"
    return (
        f"Agent {agent.name!r} · provider {provider_label(agent.provider)} · model {agent.model} · "
        f"tools: {tools}"
    )


def _agent_html(agent: Agent) -> str:
    config = agent.config
    head = (
        f"{h.badge('agent', 'info')} <b>{h.esc(agent.name)}</b> "
        f"{h.muted(f'{provider_label(agent.provider)} · {agent.model}')}"
    )
    tools = " ".join(f"<code>{h.esc(t.name)}</code>" for t in agent.tools) or h.muted("none")
    rows = [
        ["tools", tools],
        ["max iterations", str(config.max_iterations)],
        ["temperature", str(config.temperature)],
        ["memory", h.esc(type(agent.memory).__name__) if agent.memory is not None else "none"],
    ]
    body = h.table(["setting", ""], rows)
    if config.system_prompt:
        body += h.details("System prompt", h.pre(config.system_prompt))
    if agent.tools:
        body += h.details(
            h.esc(f"Tools ({len(agent.tools)})"), "".join(_tool_html(t) for t in agent.tools)
        )
    body += h.details("Usage so far", _agent_usage_html(agent.usage))
    return h.box(f"<div>{head}</div>{body}", "agent", "info")


# -- values without a rich repr of their own (registered by %load_ext) ----------------
def step_html(step: TraceStep) -> str:
    """One trace step as a one-row table."""
    status = h.badge("error", "error") if step.status == "error" else h.esc(step.status)
    tokens = f"{step.total_tokens:,}" if step.type is StepType.LLM_CALL else ""
    row = [
        h.esc(step.type.value),
        h.esc(h.one_line(step_name(step), 60)),
        h.duration(step.duration_ms),
    ]
    row += [str(step.lane), tokens, status]
    detail = h.pre(step.error, tone="error") if step.error else ""
    return h.box(
        h.table(["type", "name", "duration", "lane", "tokens", "status"], [row], numeric=(2, 3, 4))
        + detail,
        "step",
    )


def tool_call_html(call: ToolCall) -> str:
    """A tool call the model asked for (not yet run) as a card."""
    return tool_card_html(
        ToolCard(name=call.tool_name, args=dict(call.parameters), status="requested")
    )


# -- dispatch ---------------------------------------------------------------------
_Views = tuple[Callable[[Any], str], Callable[[Any], str]]
_VIEWS: list[tuple[type, _Views]] = [
    (AgentResult, (_result_text, _result_html)),
    (Message, (_message_text, _message_html)),
    (AgentTrace, (_trace_text, _trace_html)),
    (UsageStats, (_stats_text, _stats_html)),
    (AgentUsage, (_agent_usage_text, _agent_usage_box)),
    (Tool, (_tool_text, _tool_html)),
    (Agent, (_agent_text, _agent_html)),
    (ToolLike, (_tool_text, _tool_html)),  # MCP and other non-function tools
]


def _views(obj: Any) -> _Views:
    for cls, views in _VIEWS:
        if isinstance(obj, cls):
            return views
    names = ", ".join(cls.__name__ for cls, _ in _VIEWS)
    raise TypeError(f"no notebook view for {type(obj).__name__}; views exist for {names}")
