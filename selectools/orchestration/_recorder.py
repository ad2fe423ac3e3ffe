"""What a graph run records, from one table: each fact's trace step, observer event and ``GraphEvent``.

A fact of a run (a node started, the router chose, a checkpoint was saved...)
can be written three ways: a :class:`~selectools.trace.TraceStep` in the run's
trace, an observer event, and a :class:`GraphEvent` for ``astream``. :data:`FACTS`
says which of the three each fact produces and which values fill them; the
engine calls :func:`record` once per fact. Adding a graph event is one row here
(plus its ``GraphEventType`` / ``StepType`` / observer event member), as
``trace.STEP_EVENTS`` is for the agent.

The call site gives the step's summary and ``data`` (as the agent's
``RunContext.record`` does); an observer event's parameters (``_events.EVENTS``)
and the row's ``GraphEvent`` fields are filled by name from the values the call
passes, then from the step's ``data``; ``node_name``, ``graph_name`` and
``step``/``steps`` default to the fact's node, the graph's name and the run's step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .._events import EVENTS
from ..trace import StepType, TraceStep, now
from .events import GraphEvent, GraphEventType

if TYPE_CHECKING:
    from .._events import EventName
    from ._run_state import _Run

__all__ = ["FACTS", "Fact", "GraphFact", "graph_event", "record"]


#: Each thing a graph run can record (the keys of :data:`FACTS`). Plain strings, not an
#: Enum: a fact is looked up on every node, and a str-Enum hashes in Python code.
GraphFact = Literal[
    "graph_start",
    "graph_end",
    "graph_error",
    "graph_resume",
    "node_start",
    "node_end",
    "node_chunk",
    "node_error",
    "node_skipped",  # failed under ErrorPolicy.SKIP: the run goes on
    "node_paused",  # a generator node paused at an interrupt
    "branch_end",  # one node of a parallel group or Scatter finished
    "parallel_start",
    "parallel_end",
    "routing",
    "checkpoint",
    "interrupt",
    "stall",
    "loop",
    "budget_exceeded",
]


@dataclass(frozen=True, slots=True)
class Fact:
    """One row: what a fact writes. ``None`` leaves that form out."""

    step: StepType | None = None
    observer: EventName | None = None
    event: GraphEventType | None = None
    event_fields: tuple[str, ...] = ()  # GraphEvent fields, filled from the values of their names
    status: str = "ok"  # the step's status ("error" also fills step.error from ``error``)


FACTS: dict[GraphFact, Fact] = {
    "graph_start": Fact(None, "on_graph_start", GraphEventType.GRAPH_START, ("state",)),
    "graph_end": Fact(None, "on_graph_end", GraphEventType.GRAPH_END, ("state", "result")),
    "graph_error": Fact(None, "on_graph_error"),
    "graph_resume": Fact(
        StepType.GRAPH_RESUME, "on_graph_resume", GraphEventType.GRAPH_RESUME, ("interrupt_id",)
    ),
    "node_start": Fact(StepType.GRAPH_NODE_START, "on_node_start", GraphEventType.NODE_START),
    "node_end": Fact(
        StepType.GRAPH_NODE_END, "on_node_end", GraphEventType.NODE_END, ("duration_ms", "state")
    ),
    "node_chunk": Fact(None, None, GraphEventType.NODE_CHUNK, ("chunk",)),
    "node_error": Fact(StepType.GRAPH_NODE_END, None, GraphEventType.ERROR, ("error",), "error"),
    "node_skipped": Fact(None, "on_node_end", GraphEventType.NODE_END, ("duration_ms",)),
    "node_paused": Fact(StepType.GRAPH_NODE_END, status="interrupted"),
    "branch_end": Fact(StepType.GRAPH_NODE_END),
    "parallel_start": Fact(
        StepType.GRAPH_PARALLEL_START,
        "on_parallel_start",
        GraphEventType.PARALLEL_START,
        ("children",),
    ),
    "parallel_end": Fact(
        StepType.GRAPH_PARALLEL_END, "on_parallel_end", GraphEventType.PARALLEL_END, ("children",)
    ),
    "routing": Fact(
        StepType.GRAPH_ROUTING, "on_graph_routing", GraphEventType.ROUTING, ("to_node",)
    ),
    "checkpoint": Fact(
        StepType.GRAPH_CHECKPOINT, None, GraphEventType.CHECKPOINT, ("checkpoint_id",)
    ),
    "interrupt": Fact(
        StepType.GRAPH_INTERRUPT,
        "on_graph_interrupt",
        GraphEventType.GRAPH_INTERRUPT,
        ("interrupt_id",),
    ),
    "stall": Fact(StepType.GRAPH_STALL, "on_stall_detected"),
    "loop": Fact(StepType.GRAPH_LOOP_DETECTED, "on_loop_detected"),
    "budget_exceeded": Fact(StepType.BUDGET_EXCEEDED, "on_budget_exceeded"),
}

# a value named as an observer parameter that a GraphEvent calls otherwise
_EVENT_FIELD = {"to_node": "next_node"}
_NO_DATA: dict[str, Any] = {}


def _value(
    run: _Run, node: str | None, values: dict[str, Any], data: dict[str, Any], name: str
) -> Any:
    if name in values:
        return values[name]
    if name in data:
        return data[name]
    if name == "node_name":
        return node
    if name == "graph_name":
        return run.graph_name
    if name in ("step", "steps"):
        return run.step
    raise KeyError(f"graph fact needs a value named {name!r}")


def graph_event(
    run: _Run,
    fact: GraphFact,
    node: str | None,
    data: dict[str, Any] | None = None,
    **values: Any,
) -> GraphEvent:
    """The ``GraphEvent`` a fact streams (``record`` appends it; the chunk path queues it)."""
    row = FACTS[fact]
    assert row.event is not None, f"{fact} streams no GraphEvent"
    data = _NO_DATA if data is None else data
    fields = {
        _EVENT_FIELD.get(name, name): values[name] if name in values else data[name]
        for name in row.event_fields
        if name in values or name in data
    }
    return GraphEvent(row.event, run.run_id, node, run.step, **fields)


def record(
    run: _Run,
    fact: GraphFact,
    node: str | None,
    started: float | None = None,
    ended: float | None = None,
    *,
    summary: str | None = None,
    data: dict[str, Any] | None = None,
    lane: int = 0,
    **values: Any,
) -> None:
    """Write ``fact`` in every form its row names: trace step, observer event, ``GraphEvent``.

    The step spans ``started``..``ended`` (each defaults to now), is summarised by
    ``summary`` (default: the node) and keeps ``data``.
    """
    row = FACTS[fact]
    kind = row.step
    if kind is not None:
        if started is None or ended is None:
            t = now()
            started = t if started is None else started
            ended = t if ended is None else ended
        status = row.status
        error = None
        if status == "error":
            exc = values["error"]
            error = f"{type(exc).__name__}: {exc}"
        # positional, in TraceStep's field order: steps are written per node, keywords cost more
        run.trace.steps.append(
            TraceStep(
                kind,
                started,
                ended,
                (node or "") if summary is None else summary,
                run.run_id,
                run.step,
                None,
                lane,
                status,
                error,
                None,
                None,
                0,
                0,
                0.0,
                None,
                None,
                None,
                {} if data is None else data,
                node,
            )
        )
    emitter = run.emitter
    if emitter is not None and row.observer is not None and row.observer in emitter.wanted:
        given = _NO_DATA if data is None else data
        params = EVENTS[row.observer][1]
        emitter.emit(row.observer, *[_value(run, node, values, given, p) for p in params])
    if run.stream is not None and row.event is not None:
        run.stream.append(graph_event(run, fact, node, data, **values))
