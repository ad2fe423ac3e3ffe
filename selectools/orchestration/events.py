"""``GraphEvent``: what ``AgentGraph.astream`` yields, one per thing the run did."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .graph import GraphResult
    from .state import GraphState

__all__ = ["GraphEvent", "GraphEventType"]


class GraphEventType(str, Enum):
    """The kinds of event a graph run emits (``GraphEvent.type``)."""

    GRAPH_START = "graph_start"
    GRAPH_END = "graph_end"
    NODE_START = "node_start"
    NODE_END = "node_end"
    NODE_CHUNK = "node_chunk"
    ROUTING = "routing"
    GRAPH_INTERRUPT = "graph_interrupt"
    GRAPH_RESUME = "graph_resume"
    PARALLEL_START = "parallel_start"
    PARALLEL_END = "parallel_end"
    CHECKPOINT = "checkpoint"
    ERROR = "error"


@dataclass(slots=True)
class GraphEvent:
    """One event of a run; ``run_id`` and ``node_name`` let a display follow the graph."""

    type: GraphEventType
    run_id: str = ""
    node_name: str | None = None
    step: int = 0
    chunk: str | None = None
    next_node: str | None = None
    interrupt_id: str | None = None
    checkpoint_id: str | None = None
    children: tuple[str, ...] = ()
    duration_ms: float | None = None
    error: BaseException | None = None
    state: GraphState | None = None
    result: GraphResult | None = None

    @property
    def data(self) -> dict[str, Any]:
        """The event's payload fields that are set (chunk, next node, ids, error...)."""
        out: dict[str, Any] = {}
        for name in ("chunk", "next_node", "interrupt_id", "checkpoint_id", "duration_ms", "error"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        if self.children:
            out["children"] = list(self.children)
        return out
