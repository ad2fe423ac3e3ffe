"""A saved trace (``trace_to_json``) as the builder's run events, for replaying a run made anywhere."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["trace_steps"]

MAX_TRACE_CHARS = 5_000_000


def trace_steps(given: Any) -> list[dict[str, Any]]:
    """A saved trace (``trace_to_json``) as run events, for the scrubber and timeline."""
    from ..trace import AgentTrace

    if isinstance(given, str) and len(given) > MAX_TRACE_CHARS:
        raise ValueError(f"the trace is over {MAX_TRACE_CHARS} characters")
    try:
        return _steps(AgentTrace.from_dict(json.loads(given) if isinstance(given, str) else given))
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        raise ValueError(
            f"that is not a trace_to_json(...) output ({type(exc).__name__}): paste the whole JSON"
        ) from None


def _steps(saved: Any) -> list[dict[str, Any]]:
    from ..trace import StepType

    origin = min((s.started_at for s in saved.steps), default=0.0)
    steps: list[dict[str, Any]] = []
    for step in saved.steps:
        node = step.node_name or step.model or step.type.value
        if step.type is StepType.TOOL_EXECUTION:
            steps.append({
                "type": "tool_call", "node": node, "tool": step.tool_name or "", "args": step.tool_args or {},
                "result": step.result or "", "ms": round(step.duration_ms, 1),
            })  # fmt: skip
        elif step.type in (StepType.LLM_CALL, StepType.GRAPH_NODE_END):
            steps.append({
                "type": "node_end", "node": node, "step": len([s for s in steps if s["type"] == "node_end"]),
                "t0": round(step.started_at - origin, 4), "t1": round(step.ended_at - origin, 4),
                "tokens": step.prompt_tokens + step.completion_tokens, "cost_usd": step.cost_usd,
                "input": "", "output": step.summary, "port": "out", "edge": None,
            })  # fmt: skip
    return steps
