"""The graph records each fact from one table: trace step, observer event and GraphEvent agree.

Adding a graph event is one row of ``orchestration/_recorder.FACTS``; these tests
walk that table, then run graphs that reach every row with a trace step and
check that the steps, the observer events and the ``astream`` events tell the
same story, in the same order, for the same nodes.
"""

from __future__ import annotations

import asyncio
import dataclasses
import typing
from typing import Any

import pytest

from selectools import AgentObserver
from selectools._events import EVENTS
from selectools.orchestration import (
    AgentGraph,
    GraphEvent,
    GraphEventType,
    GraphExecutionError,
    GraphState,
    InMemoryCheckpointStore,
    InterruptRequest,
    Scatter,
)
from selectools.orchestration._recorder import FACTS, GraphFact
from selectools.trace import STEP_EVENTS, StepType, TraceStep

STEP_ROWS = {fact: row for fact, row in FACTS.items() if row.step is not None}
# names only a fact without a step produces: they have no step to be checked against
STEPLESS_OBSERVERS = {r.observer for r in FACTS.values() if r.step is None} - {
    r.observer for r in STEP_ROWS.values()
}
STEPLESS_EVENTS = {r.event for r in FACTS.values() if r.step is None} - {
    r.event for r in STEP_ROWS.values()
}


def test_every_fact_has_one_row_and_every_graph_event_type_a_fact():
    assert set(FACTS) == set(typing.get_args(GraphFact))
    streamed = {row.event for row in FACTS.values()}
    assert set(GraphEventType) <= streamed, set(GraphEventType) - streamed


def test_every_row_names_real_steps_observer_events_and_event_fields():
    event_fields = {f.name for f in dataclasses.fields(GraphEvent)}
    for fact, row in FACTS.items():
        assert row.step is not None or row.observer is not None or row.event is not None, fact
        if row.observer is not None:
            assert row.observer in EVENTS, fact
            assert EVENTS[row.observer][0] in ("graph", "run"), fact
        for name in row.event_fields:
            assert name in event_fields or name == "to_node", (fact, name)
        if row.step is not None and row.observer is not None:
            # the agent's STEP_EVENTS table and the graph's agree on what a step announces
            assert row.observer in STEP_EVENTS[row.step][row.status == "error"], fact


class Watch(AgentObserver):
    def __init__(self) -> None:
        self.seen: list[tuple[str, str | None]] = []

    def on_event(self, event: Any) -> None:
        data = event.data
        node = data.get("node_name", data.get("group_name", data.get("from_node")))
        self.seen.append((event.name, node))


def fact_of(step: TraceStep) -> GraphFact | None:
    """The row that wrote ``step`` (None for an agent's own steps)."""
    rows = [f for f, r in STEP_ROWS.items() if r.step is step.type and r.status == step.status]
    if len(rows) > 1:  # a node and a branch of a fan-out end the same way, on different lanes
        assert set(rows) == {"node_end", "branch_end"}
        return "branch_end" if step.lane else "node_end"
    return rows[0] if rows else None


def check(steps: list[TraceStep], watch: Watch, events: list[GraphEvent] | None) -> set[str]:
    """Steps, observer events and GraphEvents must match row by row; returns the facts seen."""
    facts = [(fact_of(s), s) for s in steps]
    facts = [(f, s) for f, s in facts if f is not None]
    expected = [(FACTS[f].observer, s.node_name) for f, s in facts if FACTS[f].observer]
    observed = [(n, node) for n, node in watch.seen if n not in STEPLESS_OBSERVERS]
    assert observed == expected
    if events is not None:
        expected_events = [(FACTS[f].event, s.node_name) for f, s in facts if FACTS[f].event]
        streamed = [(e.type, e.node_name) for e in events if e.type not in STEPLESS_EVENTS]
        assert streamed == expected_events
    return {f for f, _ in facts}


def stream(graph: AgentGraph, prompt: str = "go", **kw: Any) -> list[GraphEvent]:
    async def go() -> list[GraphEvent]:
        return [e async for e in graph.astream(prompt, **kw)]

    return asyncio.run(go())


def bump(key: str):
    def node(state: GraphState) -> None:
        state.data[key] = state.data.get(key, 0) + 1

    return node


def test_each_fact_is_written_the_same_in_trace_observers_and_stream():
    covered: set[str] = set()

    # nodes, checkpoints, a parallel group, a Scatter fan-out, routing
    watch = Watch()
    flow = AgentGraph("flow", observers=[watch])
    for name in ("a", "p1", "p2", "b", "c", "d"):
        flow.add_node(name, bump(name))
    flow.add_parallel_nodes("team", ["p1", "p2"])
    flow.add_edge("a", "team")
    flow.add_edge("team", "b")
    flow.add_conditional_edge("b", lambda s: [Scatter("c", {"x": 1}), Scatter("d", {"y": 2})])
    flow.add_edge("c", AgentGraph.END)
    events = stream(flow, checkpoint_store=InMemoryCheckpointStore())
    assert events[0].type is GraphEventType.GRAPH_START
    assert events[-1].type is GraphEventType.GRAPH_END
    assert watch.seen[0][0] == "on_graph_start" and watch.seen[-1][0] == "on_graph_end"
    result = events[-1].result
    assert result is not None
    covered |= check(result.trace.steps, watch, events)

    # an interrupt, answered in this process
    def approve(state: GraphState):
        state.data["answer"] = yield InterruptRequest("ok?", key="approve")

    watch = Watch()
    hitl = AgentGraph("hitl", observers=[watch])
    hitl.add_node("draft", bump("draft"), next_node="approve")
    hitl.add_node("approve", approve, next_node=AgentGraph.END)
    store = InMemoryCheckpointStore()
    events = stream(hitl, checkpoint_store=store)
    paused = next(e for e in events if e.type is GraphEventType.GRAPH_INTERRUPT)
    done = asyncio.run(hitl.aresume(paused.interrupt_id, "yes", checkpoint_store=store))
    assert done.state.data["answer"] == "yes"
    steps = done.trace.steps
    cut = next(i for i, s in enumerate(steps) if s.type is StepType.GRAPH_INTERRUPT) + 1
    check(steps[:cut], _prefix(watch, steps[:cut]), events)
    covered |= check(steps, watch, None)

    # a stall (the state did not change for stall_threshold nodes), then the budget
    watch = Watch()
    idle = AgentGraph("idle", observers=[watch], stall_threshold=2, max_total_tokens=0)
    for name, nxt in (("n1", "n2"), ("n2", "n3"), ("n3", AgentGraph.END)):
        idle.add_node(name, lambda s: None, next_node=nxt)
    events = stream(idle)
    assert events[-1].result is not None and events[-1].result.stop_reason == "budget_exceeded"
    covered |= check(events[-1].result.trace.steps, watch, events)
    stalled = AgentGraph("stalled", observers=[watch := Watch()], stall_threshold=2)
    for name, nxt in (("n1", "n2"), ("n2", "n3"), ("n3", AgentGraph.END)):
        stalled.add_node(name, lambda s: None, next_node=nxt)
    events = stream(stalled)
    assert events[-1].result is not None and events[-1].result.stalls == 1
    covered |= check(events[-1].result.trace.steps, watch, events)

    # a loop, and a node that fails: the run ends with an error
    for graph_name, node in (("loop", lambda s: None), ("fail", _fail)):
        watch = Watch()
        graph = AgentGraph(graph_name, observers=[watch])
        graph.add_node("a", node, next_node="a")
        seen: list[GraphEvent] = []

        async def go(g: AgentGraph = graph, out: list[GraphEvent] = seen) -> None:
            async for event in g.astream("x"):
                out.append(event)

        with pytest.raises(GraphExecutionError) as info:
            asyncio.run(go())
        assert watch.seen[-1][0] == "on_graph_error"
        assert info.value.result is not None
        covered |= check(info.value.result.trace.steps, watch, seen)

    assert covered == set(STEP_ROWS), set(STEP_ROWS) - covered


def _fail(state: GraphState) -> None:
    raise ValueError("boom")


def _prefix(watch: Watch, steps: list[TraceStep]) -> Watch:
    """The observer events of the run up to its interrupt (the resumed part comes after)."""
    part = Watch()
    count = sum(1 for s in steps if (f := fact_of(s)) is not None and FACTS[f].observer)
    kept = [item for item in watch.seen if item[0] not in STEPLESS_OBSERVERS]
    part.seen = kept[:count]
    return part


def test_a_skipped_node_reports_its_error_then_its_end():
    watch = Watch()
    graph = AgentGraph("skip", observers=[watch], error_policy="skip")
    graph.add_node("bad", _fail, next_node="ok")
    graph.add_node("ok", bump("ok"), next_node=AgentGraph.END)
    events = stream(graph)
    kinds = [(e.type, e.node_name) for e in events]
    error_at = kinds.index((GraphEventType.ERROR, "bad"))
    assert kinds[error_at + 1] == (GraphEventType.NODE_END, "bad")
    assert ("on_node_end", "bad") in watch.seen
    result = events[-1].result
    assert result is not None and result.state.errors[0]["node"] == "bad"
    failed = [s for s in result.trace.steps if s.node_name == "bad" and s.status == "error"]
    assert [s.error for s in failed] == ["ValueError: boom"]


def test_a_continued_or_resumed_run_reports_its_own_run_id_to_observers():
    class Ids(AgentObserver):
        def __init__(self) -> None:
            self.ids: set[str] = set()

        def on_event(self, event: Any) -> None:
            self.ids.add(event.run_id)

    def approve(state: GraphState):
        state.data["answer"] = yield InterruptRequest("ok?")

    store = InMemoryCheckpointStore()
    first = AgentGraph("g")
    first.add_node("a", bump("a"), next_node="approve")
    first.add_node("approve", approve, next_node=AgentGraph.END)
    paused = first.run("go", checkpoint_store=store)
    ids = Ids()
    later = AgentGraph("g", observers=[ids])  # another process would build the graph again
    later.add_node("a", bump("a"), next_node="approve")
    later.add_node("approve", approve, next_node=AgentGraph.END)
    done = later.resume(paused.interrupt_id, "yes", checkpoint_store=store)
    assert done.run_id == paused.run_id
    assert ids.ids == {paused.run_id}

    ids.ids.clear()
    saved = store.list(done.run_id)[0].checkpoint_id  # the checkpoint after node "a"
    again = later.run("", checkpoint_store=store, checkpoint_id=saved)
    assert ids.ids == {again.run_id} == {paused.run_id}
