"""Trace charts: a DataFrame of steps and a plotly Gantt of LLM, tool and node spans.

pandas and plotly are imported when a chart is asked for, never before, so
``%load_ext selectools`` and ``import selectools`` stay fast. Both functions work
column-wise over the steps (one pass, then arrays), which keeps a 10,000-step
trace well under a second.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .._install import install_hint
from ..trace import AgentTrace, StepType, TraceStep
from . import _html as h
from ._chart_theme import theme_neutral
from ._steps import step_category, step_name

if TYPE_CHECKING:
    import pandas
    import plotly.graph_objects

__all__ = ["COLUMNS", "trace_gantt", "trace_to_dataframe"]

#: the columns of :func:`trace_to_dataframe`, in order
COLUMNS = (
    "type",
    "category",
    "name",
    "start_ms",
    "end_ms",
    "duration_ms",
    "lane",
    "iteration",
    "call_id",
    "tokens",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "status",
    "error",
)

_COLOURS = {"llm": "#6f42c1", "tool": "#2f81f7", "node": "#2ea043", "error": "#da3633"}
_HOVER = (
    "<b>%{customdata[0]}</b><br>%{customdata[1]}<br>start %{base:.1f} ms · "
    "%{customdata[2]}<br>%{customdata[3]}<extra></extra>"
)


def _require(module: str, feature: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ModuleNotFoundError(
            f"{feature} needs {module.split('.')[0]}: {install_hint('notebook')}"
        ) from exc


def _check(trace: Any) -> AgentTrace:
    if not isinstance(trace, AgentTrace):
        raise TypeError(f"expected an AgentTrace, got {type(trace).__name__}")
    return trace


def trace_to_dataframe(trace: AgentTrace) -> pandas.DataFrame:
    """One row per step; times are milliseconds since the trace started."""
    pd = _require("pandas", "trace.to_dataframe()")
    trace = _check(trace)
    origin = trace.started_at
    columns: dict[str, list[Any]] = {name: [] for name in COLUMNS}
    for step in trace.steps:
        llm = step.type is StepType.LLM_CALL
        row = (
            step.type.value,
            step_category(step),
            step_name(step),
            (step.started_at - origin) * 1000.0,
            (step.ended_at - origin) * 1000.0,
            (step.ended_at - step.started_at) * 1000.0,
            step.lane,
            step.iteration,
            step.call_id,
            step.prompt_tokens + step.completion_tokens if llm else 0,
            step.prompt_tokens,
            step.completion_tokens,
            step.cost_usd,
            step.status,
            step.error,
        )
        for name, value in zip(COLUMNS, row, strict=True):
            columns[name].append(value)
    frame = pd.DataFrame(columns, columns=list(COLUMNS))
    for name in ("type", "category", "status"):
        frame[name] = frame[name].astype("category")
    return frame


def _row(step: TraceStep, lanes: bool) -> tuple[tuple[int, int, str], str]:
    """The chart row of a step, with a key that orders rows top to bottom."""
    category = step_category(step)
    if category == "llm":
        return (0, 0, ""), "LLM"
    if category == "tool":
        label = f"tool · lane {step.lane}" if lanes else "tools"
        return (1, step.lane if lanes else 0, ""), label
    if category == "node":  # one row per graph node, in order of first appearance
        return (2, 0, step.node_name or step.summary), f"node · {step.node_name or step.summary}"
    return (3, 0, ""), "events"


def _spans(trace: AgentTrace) -> list[tuple[TraceStep, float, float]]:
    """LLM and tool steps as spans, plus error events."""
    spans: list[tuple[TraceStep, float, float]] = []
    for step in trace.steps:
        if step_category(step) != "event" or step.status == "error":
            spans.append((step, step.started_at, step.ended_at))
    return spans


def _detail(step: TraceStep) -> str:
    if step.status == "error":
        return "error: " + h.one_line(step.error or step.summary, 120)
    if step.type is StepType.LLM_CALL:
        return f"{h.format_tokens(step.total_tokens)} · {h.format_cost(step.cost_usd)}"
    if step.type is StepType.TOOL_EXECUTION:
        args = h.one_line(h.json_text(step.tool_args or {}), 80)
        return f"{args} → {h.one_line(step.result or '', 80)}"
    return h.one_line(step.summary, 120)


def trace_gantt(
    trace: AgentTrace, *, title: str | None = None, height: int | None = None
) -> plotly.graph_objects.Figure:
    """A Gantt chart: one row for LLM calls, one per tool lane, one per graph node.

    Parallel tool calls sit on their own lanes side by side; failed spans and
    error events are red; hovering shows names, tokens, cost, arguments and results.
    """
    go = _require("plotly.graph_objects", "trace.gantt()")
    np = _require("numpy", "trace.gantt()")
    trace = _check(trace)
    origin = trace.started_at
    lanes = any(step.lane for step in trace.steps if step.type is StepType.TOOL_EXECUTION)
    spans = _spans(trace)
    end = max((stop for _, _, stop in spans), default=origin)
    visible = max((end - origin) * 1000.0 * 0.002, 1e-3)  # zero-length spans stay visible
    groups: dict[str, dict[str, list[Any]]] = {}
    rows: dict[str, tuple[int, int, str]] = {}
    for step, started, ended in spans:
        category = step_category(step)
        key = "error" if step.status == "error" else category
        group = groups.setdefault(key, {"y": [], "base": [], "x": [], "data": []})
        duration = (ended - started) * 1000.0
        order, row = _row(step, lanes)
        rows.setdefault(row, (2, len(rows), "") if category == "node" else order)
        group["y"].append(row)
        group["base"].append((started - origin) * 1000.0)
        group["x"].append(max(duration, visible))
        group["data"].append(
            (step_name(step), step.type.value, h.format_ms(duration), _detail(step))
        )
    traces = []
    for key in ("llm", "tool", "node", "event", "error"):
        if key not in groups:
            continue
        group = groups[key]
        label = {"llm": "LLM call", "tool": "tool call", "node": "graph node", "event": "event"}
        traces.append(
            go.Bar(
                name=label.get(key, "error"),
                orientation="h",
                y=np.array(group["y"], dtype=object),
                base=np.array(group["base"], dtype=float),
                x=np.array(group["x"], dtype=float),
                customdata=np.array(group["data"], dtype=object),
                hovertemplate=_HOVER,
                marker={"color": _COLOURS.get(key, "#8b8b8b")},
            )
        )
    used = sorted(rows, key=rows.__getitem__)
    figure = go.Figure(data=traces)
    figure.update_layout(
        title=title or f"{len(trace):,} steps · {h.format_ms(trace.total_duration_ms)}",
        barmode="overlay",
        height=height or max(220, 60 + 36 * len(used)),
        xaxis={"title": {"text": "ms since start"}},
        yaxis={"categoryorder": "array", "categoryarray": used, "autorange": "reversed"},
        legend={"orientation": "h", "y": -0.25},
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
    )
    return theme_neutral(figure)
