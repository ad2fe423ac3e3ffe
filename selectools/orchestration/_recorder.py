"""What a graph run records, from one table: each fact's trace step, observer event and ``GraphEvent``.

A fact of a run (a node started, the router chose, a checkpoint was saved...)
can be written three ways: a :class:`~selectools.trace.TraceStep` in the run's
trace, an observer event, and a :class:`GraphEvent` for ``astream``. :data:`FACTS`
says which of the three each fact produces and which values fill them; the
engine calls :func:`record` once per fact. Adding a graph event is one row here
(plus its ``GraphEventType`` / ``StepType`` / observer event member), as
``trace.STEP_EVENTS`` is for the agent.

Values a call passes are looked up by name: an observer event's parameters
(``_events.EVENTS``), the row's ``GraphEvent`` fields and step ``data`` keys.
``node_name``, ``graph_name`` and ``step``/``steps`` default to the fact's node,
the graph's name and the run's step.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from .._events import EVENTS
from ..trace import StepType, TraceStep, now
from .events import GraphEvent, GraphEventType

if TYPE_CHECKING:
    from .._events import EventName
    from ._run_state import _Run

__all__ = ["FACTS", "Fact", "GraphFact", "graph_event", "record"]


class GraphFact(str, Enum):
    """Each thing a graph run can record."""

    GRAPH_START = "graph_start"
    GRAPH_END = "graph_end"
    GRAPH_ERROR = "graph_error"
    GRAPH_RESUME = "graph_resume"
    NODE_START = "node_start"
    NODE_END = "node_end"
    NODE_CHUNK = "node_chunk"
    NODE_ERROR = "node_error"
    NODE_SKIPPED = "node_skipped"  # failed under ErrorPolicy.SKIP: the run goes on
    NODE_PAUSED = "node_paused"  # a generator node paused at an interrupt
    BRANCH_END = "branch_end"  # one node of a parallel group or Scatter finished
    PARALLEL_START = "parallel_start"
    PARALLEL_END = "parallel_end"
    ROUTING = "routing"
    CHECKPOINT = "checkpoint"
    INTERRUPT = "interrupt"
    STALL = "stall"
    LOOP = "loop"
    BUDGET_EXCEEDED = "budget_exceeded"


@dataclass(frozen=True, slots=True)
class Fact:
    """One row: what a fact writes. ``None`` leaves that form out."""

    step: StepType | None = None
    observer: EventName | None = None
    event: GraphEventType | None = None
    event_fields: tuple[str, ...] = ()  # GraphEvent fields, filled from the values
    summary: str = "node_name"  # the value that is the step's summary
    data: tuple[tuple[str, str], ...] = ()  # step.data key <- value name
    status: str = "ok"  # the step's status ("error" also fills step.error from ``error``)


FACTS: dict[GraphFact, Fact] = {
    GraphFact.GRAPH_START: Fact(None, "on_graph_start", GraphEventType.GRAPH_START, ("state",)),
    GraphFact.GRAPH_END: Fact(None, "on_graph_end", GraphEventType.GRAPH_END, ("state", "result")),
    GraphFact.GRAPH_ERROR: Fact(None, "on_graph_error"),
    GraphFact.GRAPH_RESUME: Fact(
        StepType.GRAPH_RESUME, "on_graph_resume", GraphEventType.GRAPH_RESUME, ("interrupt_id",)
    ),
    GraphFact.NODE_START: Fact(
        StepType.GRAPH_NODE_START, "on_node_start", GraphEventType.NODE_START
    ),
    GraphFact.NODE_END: Fact(
        StepType.GRAPH_NODE_END, "on_node_end", GraphEventType.NODE_END, ("duration_ms", "state")
    ),
    GraphFact.NODE_CHUNK: Fact(None, None, GraphEventType.NODE_CHUNK, ("chunk",)),
    GraphFact.NODE_ERROR: Fact(
        StepType.GRAPH_NODE_END, None, GraphEventType.ERROR, ("error",), status="error"
    ),
    GraphFact.NODE_SKIPPED: Fact(None, "on_node_end", GraphEventType.NODE_END, ("duration_ms",)),
    GraphFact.NODE_PAUSED: Fact(StepType.GRAPH_NODE_END, status="interrupted"),
    GraphFact.BRANCH_END: Fact(StepType.GRAPH_NODE_END),
    GraphFact.PARALLEL_START: Fact(
        StepType.GRAPH_PARALLEL_START,
        "on_parallel_start",
        GraphEventType.PARALLEL_START,
        ("children",),
        data=(("children", "child_nodes"),),
    ),
    GraphFact.PARALLEL_END: Fact(
        StepType.GRAPH_PARALLEL_END, "on_parallel_end", GraphEventType.PARALLEL_END, ("children",)
    ),
    GraphFact.ROUTING: Fact(
        StepType.GRAPH_ROUTING,
        "on_graph_routing",
        GraphEventType.ROUTING,
        ("next_node",),
        summary="route",
        data=(("from_node", "from_node"), ("to_node", "to_node")),
    ),
    GraphFact.CHECKPOINT: Fact(
        StepType.GRAPH_CHECKPOINT,
        None,
        GraphEventType.CHECKPOINT,
        ("checkpoint_id",),
        summary="checkpoint_id",
        data=(("checkpoint_id", "checkpoint_id"),),
    ),
    GraphFact.INTERRUPT: Fact(
        StepType.GRAPH_INTERRUPT,
        "on_graph_interrupt",
        GraphEventType.GRAPH_INTERRUPT,
        ("interrupt_id",),
        summary="prompt",
        data=(("interrupt_key", "interrupt_key"), ("checkpoint_id", "interrupt_id")),
    ),
    GraphFact.STALL: Fact(StepType.GRAPH_STALL, "on_stall_detected"),
    GraphFact.LOOP: Fact(StepType.GRAPH_LOOP_DETECTED, "on_loop_detected"),
    GraphFact.BUDGET_EXCEEDED: Fact(
        StepType.BUDGET_EXCEEDED, "on_budget_exceeded", summary="reason"
    ),
}


def _value(run: _Run, node: str | None, values: dict[str, Any], name: str) -> Any:
    if name in values:
        return values[name]
    if name == "node_name":
        return node
    if name == "graph_name":
        return run.graph_name
    if name == "step" or name == "steps":
        return run.step
    raise KeyError(f"graph fact needs a value named {name!r}")


def graph_event(run: _Run, fact: GraphFact, node: str | None, **values: Any) -> GraphEvent:
    """The ``GraphEvent`` a fact streams (``record`` appends it; the chunk path queues it)."""
    row = FACTS[fact]
    assert row.event is not None, f"{fact} streams no GraphEvent"
    fields = {name: values[name] for name in row.event_fields if name in values}
    return GraphEvent(row.event, run.run_id, node, run.step, **fields)


def record(
    run: _Run,
    fact: GraphFact,
    node: str | None,
    started: float | None = None,
    ended: float | None = None,
    lane: int = 0,
    **values: Any,
) -> None:
    """Write ``fact`` in every form its row names: trace step, observer event, ``GraphEvent``.

    The step spans ``started``..``ended`` (each defaults to now).
    """
    row = FACTS[fact]
    if row.step is not None:
        t = now() if started is None or ended is None else 0.0
        error = None
        if row.status == "error":
            exc = values["error"]
            error = f"{type(exc).__name__}: {exc}"
        run.trace.steps.append(
            TraceStep(
                row.step,
                t if started is None else started,
                t if ended is None else ended,
                _value(run, node, values, row.summary),
                run.run_id,
                run.step,
                lane=lane,
                status=row.status,
                error=error,
                data={key: values[name] for key, name in row.data},
                node_name=node,
            )
        )
    emitter = run.emitter
    if row.observer is not None and emitter is not None and row.observer in emitter.wanted:
        params = EVENTS[row.observer][1]
        emitter.emit(row.observer, *[_value(run, node, values, p) for p in params])
    if row.event is not None and run.stream is not None:
        run.stream.append(graph_event(run, fact, node, **values))
