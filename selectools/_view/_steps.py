"""How a trace step is named and grouped, shared by the HTML views and the charts."""

from __future__ import annotations

from ..trace import StepType, TraceStep

__all__ = ["step_category", "step_name"]


def step_category(step: TraceStep) -> str:
    """``llm``, ``tool``, ``node`` (a graph node's span) or ``event`` (instantaneous bookkeeping)."""
    if step.type is StepType.LLM_CALL:
        return "llm"
    if step.type is StepType.TOOL_EXECUTION:
        return "tool"
    if step.type is StepType.GRAPH_NODE_END:
        return "node"
    return "event"


def step_name(step: TraceStep) -> str:
    """The most specific name a step has: tool or model, else its summary or type."""
    for name in (step.tool_name, step.model):
        if name:
            return name
    return step.summary or step.type.value
