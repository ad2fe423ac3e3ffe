"""Interrupts: pausing a run at a generator node's ``InterruptRequest`` and answering it.

A paused run saves (when it has a store) the state as it was *before* the node
started plus the answers given so far; in this process the paused generator
also waits in :data:`_LIVE`, so ``resume`` continues it at the exact ``yield``.
After a restart only the checkpoint is left: the node re-runs from that state
and its earlier yields get the stored answers (see ``graph.py``'s docstring).
A run nobody will answer is given up with :func:`abandon`, which closes its
generator; without it the generator and its state stay for the process's life.
"""

from __future__ import annotations

import inspect
import json
import threading
from typing import TYPE_CHECKING, Any

from ..exceptions import GraphExecutionError
from ..trace import now
from ._recorder import record
from ._run_state import _Run
from .state import GraphState

if TYPE_CHECKING:
    from ._node_run import NodeOutcome
    from .checkpoint import CheckpointStore
    from .graph import AgentGraph

__all__ = ["abandon", "pause", "reopen"]

# paused generators of this process: interrupt id -> (graph, generator, state it holds, run)
_LIVE: dict[str, tuple[AgentGraph, Any, GraphState, _Run]] = {}
_LIVE_LOCK = threading.Lock()


def pause(
    graph: AgentGraph,
    run: _Run,
    node: Any,
    outcome: NodeOutcome,
    snapshot: dict[str, Any] | None,
    t0: float,
) -> None:
    """End ``run`` at ``node``'s interrupt: save it, keep the generator, set ``run.result``."""
    name = node.name
    live_state = outcome.state
    # no snapshot (no store): nothing is persisted, the live generator is the only way back
    saved = GraphState._from_checkpoint(snapshot) if snapshot is not None else live_state.branch()
    saved._interrupt_responses[name] = list(outcome.answered)
    saved._pending_node = name
    saved.current_node = name
    live_state._interrupt_responses[name] = list(outcome.answered)
    live_state.metadata["__graph_run_id__"] = run.run_id
    live_state.metadata["__graph_step__"] = run.step - 1
    if run.store is not None:
        saved.metadata["__graph_run_id__"] = run.run_id
        interrupt_id = run.store.save(run.run_id, saved, run.step - 1)
    else:
        interrupt_id = f"interrupt-{run.run_id}-{run.step}"
    with _LIVE_LOCK:
        _LIVE[interrupt_id] = (graph, outcome.gen, live_state, run)
    run.interrupt_id = interrupt_id
    run.interrupt = request = outcome.interrupt
    run.stop_reason = "interrupted"
    t = now()
    record(run, "node_paused", name, t0, t)
    record(
        run,
        "interrupt",
        name,
        t,
        t,
        summary=request.prompt if request else "",
        data={"interrupt_key": request.key if request else "", "checkpoint_id": interrupt_id},
        interrupt_id=interrupt_id,
    )
    run.trace.finish()
    run.result = graph._result(run, live_state)


def reopen(
    graph: AgentGraph, interrupt_id: str, response: Any, store: CheckpointStore | None
) -> tuple[_Run, str, Any]:
    """The run paused at ``interrupt_id``, with ``response`` added to its node's answers.

    Returns the run, the node to continue at and the paused generator (``None``
    when it is not alive in this process: the node then re-runs from the checkpoint).
    """
    with _LIVE_LOCK:
        live = _LIVE.pop(interrupt_id, None)
    if live is not None and live[0] is not graph:
        live = None
    snapshot = None
    if store is not None:
        state, step = store.load(interrupt_id)
        snapshot = state._checkpoint_dict()
        snapshot["metadata"] = dict(snapshot["metadata"])
        snapshot["metadata"].pop("__graph_run_id__", None)
        snapshot = json.loads(json.dumps(snapshot, default=str))
    elif live is not None:
        state, step = live[2], -1
    else:
        raise GraphExecutionError(
            f"interrupt {interrupt_id!r} is not paused in this process and there is no "
            "checkpoint_store to load it from: run the graph with checkpoint_store=..."
        )
    node_name = state._pending_node or (live[2].current_node if live is not None else None)
    if node_name is None or node_name not in graph.nodes:
        raise GraphExecutionError(
            f"checkpoint {interrupt_id!r} is not an interrupt of a node of graph {graph.name!r}"
        )
    answers = [*state._interrupt_responses.get(node_name, []), response]
    gen_obj = None
    if live is not None:
        gen_obj, state = live[1], live[2]
        if step < 0:
            step = int(state.metadata.get("__graph_step__", 0))
    state._interrupt_responses[node_name] = answers
    state._pending_node = None
    run = _Run(graph, state, store, None, state.metadata.pop("__graph_run_id__", None))
    if live is not None:  # same process: the results, usage and trace so far carry on
        before = live[3]
        run.node_results, run.usage, run.trace = before.node_results, before.usage, before.trace
        run.trace.ended_at = None
        run.stalls, run.loops, run.visits = before.stalls, before.loops, before.visits
    state.metadata.pop("__graph_step__", None)
    run.step = step
    run.snapshot = snapshot
    return run, node_name, gen_obj


def abandon(graph: AgentGraph, interrupt_id: str) -> bool:
    """Close the generator paused at ``interrupt_id`` (its ``finally`` blocks run) and forget it.

    False when no run of ``graph`` is paused there in this process. A checkpoint
    of the run is left as it is: ``resume`` can still re-run the node from it.
    """
    with _LIVE_LOCK:
        live = _LIVE.get(interrupt_id)
        if live is None or live[0] is not graph:
            return False
        del _LIVE[interrupt_id]
    gen = live[1]
    if inspect.isasyncgen(gen):
        from ._node_run import generator_portal

        generator_portal().call(gen.aclose())
    else:
        gen.close()
    return True
