"""How a trace step is named and grouped, shared by the HTML views and the charts."""

from __future__ import annotations

from ..trace import StepType, TraceStep

__all__ = ["NODE_TYPES", "step_category", "step_name"]

#: step types that mark graph-node spans
NODE_TYPES = frozenset({StepType.GRAPH_NODE_START, StepType.GRAPH_NODE_END})


def step_category(step: TraceStep) -> str:
    """``llm``, ``tool``, ``node`` or ``event`` (instantaneous bookkeeping steps)."""
    if step.type is StepType.LLM_CALL:
        return "llm"
    if step.type is StepType.TOOL_EXECUTION:
        return "tool"
    if step.type in NODE_TYPES:
        return "node"
    return "event"


def step_name(step: TraceStep) -> str:
    """The most specific name a step has: tool, node or model, else its summary or type."""
    for name in (step.tool_name, step.node_name, step.model):
        if name:
            return name
    return step.summary or step.type.value
