"""``_Run``: everything one run of a graph accumulates (state, step, trace, usage, results)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..trace import AgentTrace
from ..usage import UsageStats

if TYPE_CHECKING:
    from ..cancellation import CancellationToken
    from ..types import AgentResult
    from .checkpoint import CheckpointStore
    from .events import GraphEvent
    from .graph import AgentGraph, GraphResult
    from .primitives import InterruptRequest
    from .state import GraphState

__all__ = ["_Run"]


class _Run:
    """One run of a graph: what the engine reads and writes, and what the recorder writes to."""

    __slots__ = (
        "emitter",
        "graph_name",
        "interrupt",
        "interrupt_id",
        "last_hash",
        "loops",
        "node_results",
        "parent",
        "result",
        "run_id",
        "seen",
        "snapshot",
        "stalls",
        "state",
        "step",
        "stop_reason",
        "store",
        "stream",
        "token",
        "trace",
        "unchanged",
        "usage",
        "visits",
    )

    def __init__(
        self,
        graph: AgentGraph,
        state: GraphState,
        store: CheckpointStore | None,
        parent: _Run | None,
        run_id: str | None = None,
    ) -> None:
        self.run_id = run_id or os.urandom(16).hex()
        self.graph_name = graph.name
        self.state = state
        self.store = store
        self.parent = parent
        self.step = 0
        self.trace = AgentTrace(
            self.run_id, parent.run_id if parent else None, {"graph": graph.name}
        )
        if graph.observers:
            from ..observer import EventEmitter

            self.emitter: Any = EventEmitter(self.run_id, graph.observers)
        else:
            self.emitter = None
        self.node_results: dict[str, list[AgentResult]] = {}
        self.usage = UsageStats()
        self.stalls = 0
        self.loops = 0
        self.seen: set[tuple[str, int]] = set()
        self.unchanged = 0
        self.last_hash: int | None = None
        self.stream: list[GraphEvent] | None = None
        self.token: CancellationToken | None = graph.cancellation_token or (
            parent.token if parent else None
        )
        self.visits: dict[str, int] = {}
        self.stop_reason = "end"
        self.result: GraphResult | None = None
        self.interrupt_id: str | None = None
        self.interrupt: InterruptRequest | None = None
        self.snapshot: dict[str, Any] | None = None
