"""What the patterns share: a graph with the usual limits, a prompt-only input, JSON parsing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..orchestration import AgentGraph, GraphState
from ..orchestration.supervisor import _json_value
from ..types import AgentResult, Message, Role

__all__ = ["json_value", "new_graph", "prompt_input", "recording_output"]

json_value = _json_value


def new_graph(
    name: str, observers: Any, token: Any, max_cost_usd: float | None = None
) -> AgentGraph:
    # rounds repeat on purpose (same nodes, similar state); each pattern bounds its own rounds
    return AgentGraph(
        name=name,
        observers=list(observers or []),
        cancellation_token=token,
        max_cost_usd=max_cost_usd,
        enable_loop_detection=False,
        max_steps=500,
    )


def prompt_input(build: Callable[[GraphState], str]) -> Callable[[GraphState], list[Message]]:
    return lambda state: [Message(Role.USER, build(state))]


def recording_output(
    name: str, record: Callable[[str, GraphState], None]
) -> Callable[[AgentResult, GraphState], GraphState]:
    """Keep the run's history and hand ``record`` the text (it decides what goes into ``data``)."""

    def output(result: AgentResult, state: GraphState) -> GraphState:
        state.history.append((name, result))
        state.messages.append(Message(Role.ASSISTANT, result.content))
        record(result.content, state)
        return state

    return output
