"""Views of a run's trace: the whole trace, one step, its table and its Gantt chart.

The HTML is plain string building; ``to_dataframe`` and ``gantt`` are the
charts of :mod:`selectools._view.charts` (pandas and plotly imported on use).
"""

from __future__ import annotations

from .._display import Renderers
from ..trace import AgentTrace, StepType, TraceStep
from . import _html as h
from ._components import steps_table
from ._steps import step_name
from .charts import trace_gantt, trace_to_dataframe

__all__ = ["RENDERERS", "step_html"]


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


# -- TraceStep ---------------------------------------------------------------------
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


def _step_text(step: TraceStep) -> str:
    tokens = f" · {h.format_tokens(step.total_tokens)}" if step.type is StepType.LLM_CALL else ""
    return (
        f"TraceStep: {step.type.value} {h.one_line(step_name(step), 60)} · lane {step.lane}"
        f"{tokens} · {step.status}"
    )


RENDERERS: dict[str, Renderers] = {
    "selectools.trace.AgentTrace": {
        "text": _trace_text,
        "html": _trace_html,
        "dataframe": trace_to_dataframe,
        "gantt": trace_gantt,
    },
    "selectools.trace.TraceStep": {"text": _step_text, "html": step_html},
}
