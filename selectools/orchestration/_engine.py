"""The graph engine: one generator that walks a graph and yields the nodes it wants run.

:func:`core` applies every rule of a run (routing, error policies, loop and
stall detection, visit limits, budgets, checkpoints) and yields typed effects
(:class:`RunNode`, :class:`RunBranches`); a driver (:mod:`._drivers`) performs
them and sends back the outcomes. Everything the run records goes through
:func:`._recorder.record`. The engine does no I/O of its own apart from the
checkpoint store's ``save``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

from ..exceptions import GraphExecutionError
from ..trace import now
from ..types import AgentResult, Message, Role
from ..usage import AgentUsage, UsageStats
from ._effects import RunBranches, RunNode
from ._interrupts import pause
from ._node_run import NodeOutcome
from ._recorder import record
from .node import GraphNode, ParallelGroupNode
from .primitives import ErrorPolicy, Goto, Scatter, Update
from .state import STATE_KEY_LAST_OUTPUT, GraphState, MergePolicy, merge_states

if TYPE_CHECKING:
    from ._run_state import _Run
    from .graph import AgentGraph

__all__ = ["END", "core"]

END = "__end__"


def _function_result(state: GraphState) -> AgentResult:
    """A function node's entry in ``node_results``: its output as content, no model calls."""
    last = state.data.get(STATE_KEY_LAST_OUTPUT, "")
    text = last if isinstance(last, str) else str(last)
    return AgentResult(Message(Role.ASSISTANT, text), usage=AgentUsage())


def _fingerprint(data: dict[str, Any]) -> int:
    try:
        return hash(json.dumps(data, sort_keys=True, default=repr))
    except (TypeError, ValueError):
        return hash(repr(data))


def core(
    graph: AgentGraph,
    run: _Run,
    start: str,
    fresh: bool = True,
    resuming: str | None = None,
    after: bool = False,
) -> Generator[Any, Any, None]:
    """Run ``graph`` from ``start`` to END (or an interrupt); ``run.result`` holds the result.

    ``fresh=False`` continues a run (no start event); ``resuming`` is the id of the
    interrupt being answered; ``after`` routes on from ``start`` before running anything.
    """
    state = run.state
    started = now()
    # a fact without a trace step is recorded only when something listens
    listening = run.emitter is not None or run.stream is not None
    if fresh:
        if listening:
            record(run, "graph_start", start, entry_node=start, state=state)
        if graph.fast_route_fn is not None:
            shortcut = graph.fast_route_fn(state)
            if shortcut:
                start = shortcut
                run.stop_reason = "fast_route"
    current: str = start
    try:
        if after:  # continuing from a checkpoint: route on from the node it was saved at
            current = yield from _next(graph, run, current, state)
            state = run.state
        while current != END:
            if run.token is not None and run.token.cancelled:
                run.stop_reason = "cancelled"
                break
            if run.step >= graph.max_steps:
                raise GraphExecutionError(
                    f"graph {graph.name!r} reached max_steps={graph.max_steps} at node "
                    f"{current!r}; raise max_steps or check the routing for a cycle",
                    node_name=current,
                    step=run.step,
                )
            node = graph.nodes.get(current)
            if node is None:
                raise GraphExecutionError(
                    f"graph {graph.name!r} routed to unknown node {current!r} "
                    f"(nodes: {sorted(graph.nodes)})",
                    node_name=current,
                    step=run.step,
                )
            visits = run.visits.get(current, 0) + 1
            run.visits[current] = visits
            if node.max_visits and visits > node.max_visits:
                raise GraphExecutionError(
                    f"node {current!r} exceeded max_visits={node.max_visits}",
                    node_name=current,
                    step=run.step,
                )
            if graph.enable_loop_detection and resuming is None:
                _detect(graph, run, current, state)
            run.step += 1
            state.current_node = current
            if resuming is not None:
                record(run, "graph_resume", current, interrupt_id=resuming)
            outcome = yield from _visit(graph, run, node, state, resuming is not None)
            resuming = None
            if outcome is None:  # interrupted
                return
            state = run.state = outcome
            if _over_budget(graph, run):
                break
            current = yield from _next(graph, run, current, state)
            state = run.state  # a Scatter fan-out merges into a new state
    except GraphExecutionError as exc:
        record(run, "graph_error", exc.node_name or "", error=exc)
        run.trace.finish()
        exc.result = graph._result(run, state)
        raise
    run.trace.finish()
    if graph.output_guardrails is not None and isinstance(
        state.data.get(STATE_KEY_LAST_OUTPUT), str
    ):
        state.data[STATE_KEY_LAST_OUTPUT] = graph.output_guardrails.check_output(
            state.data[STATE_KEY_LAST_OUTPUT]
        ).content
    run.result = result = graph._result(run, state)
    if listening:
        duration = (now() - started) * 1000.0
        record(run, "graph_end", None, total_duration_ms=duration, state=state, result=result)


def _detect(graph: AgentGraph, run: _Run, current: str, state: GraphState) -> None:
    """Count a stall (the state unchanged ``stall_threshold`` times); fail on a loop."""
    digest = _fingerprint(state.data)
    if digest == run.last_hash:
        run.unchanged += 1
        if run.unchanged >= graph.stall_threshold:
            run.stalls += 1
            run.unchanged = 0
            record(run, "stall", current, stall_count=run.stalls)
    else:
        run.unchanged = 0
    run.last_hash = digest
    key = (current, digest)
    if key in run.seen:
        run.loops += 1
        record(run, "loop", current, loop_count=run.loops)
        raise GraphExecutionError(
            f"graph {graph.name!r} is looping: node {current!r} was reached again with the same "
            "state.data; change the state on each pass, route to END, or disable "
            "enable_loop_detection",
            node_name=current,
            step=run.step,
        )
    run.seen.add(key)


def _visit(
    graph: AgentGraph,
    run: _Run,
    node: GraphNode | ParallelGroupNode,
    state: GraphState,
    resuming: bool,
) -> Generator[Any, Any, GraphState | None]:
    """Run one node with its error policy; record results, spans, events and checkpoints."""
    name = node.name
    step = run.step
    t0 = now()
    record(run, "node_start", name, t0, t0)
    snapshot = run.snapshot if resuming else None
    if node.kind in ("gen", "agen") and not resuming:
        snapshot = json.loads(json.dumps(state._checkpoint_dict(), default=str))
    policy = node.error_policy or graph.error_policy
    attempts = 0
    while True:
        try:
            if isinstance(node, ParallelGroupNode):
                outcome = yield from _parallel(graph, run, node, state)
            else:
                outcome = yield RunNode(node, state)
            break
        except GraphExecutionError:
            raise
        except Exception as exc:
            if policy is ErrorPolicy.RETRY and attempts < graph.error_retry_limit:
                attempts += 1
                continue
            record(run, "node_error", name, t0, error=exc)
            if policy is ErrorPolicy.SKIP:
                state.errors.append(
                    {"node": name, "step": step, "error": f"{type(exc).__name__}: {exc}"}
                )
                record(run, "node_skipped", name, duration_ms=(now() - t0) * 1000.0)
                return state
            raise GraphExecutionError(
                f"node {name!r} of graph {graph.name!r} failed at step {step}: "
                f"{type(exc).__name__}: {exc}",
                node_name=name,
                step=step,
                cause=exc,
            ) from exc
    if outcome.interrupt is not None:
        pause(graph, run, node, outcome, snapshot, t0)
        return None
    _collect(graph, run, name, outcome, 0)
    new_state = outcome.state
    ended = now()
    duration = (ended - t0) * 1000.0
    record(run, "node_end", name, t0, ended, duration_ms=duration, state=new_state)
    if run.store is not None:
        _checkpoint(run, new_state)
    return new_state


def _collect(graph: AgentGraph, run: _Run, name: str, outcome: NodeOutcome, lane: int) -> None:
    """Add a node's results, usage and trace steps (and a subgraph's) to the run's."""
    result = outcome.result
    if outcome.sub is None and result is None:
        # a function node: listed too (the docs key node_results by every node that ran);
        # a parallel group is listed through its children, a subgraph as "name.child"
        if not isinstance(graph.nodes.get(name), ParallelGroupNode):
            run.node_results.setdefault(name, []).append(_function_result(outcome.state))
    elif result is not None:
        run.node_results.setdefault(name, []).append(result)
        usage = result.usage
        if usage is not None:
            _add_usage(
                run.usage,
                UsageStats(
                    prompt_tokens=usage.total_prompt_tokens,
                    completion_tokens=usage.total_completion_tokens,
                    total_tokens=usage.total_tokens,
                    cost_usd=usage.total_cost_usd,
                    cache_read_tokens=usage.total_cache_read_tokens,
                    cache_write_tokens=usage.total_cache_write_tokens,
                ),
            )
        if result.trace is not None:
            for agent_step in result.trace.steps:
                agent_step.node_name = name
                if lane and not agent_step.lane:
                    agent_step.lane = lane
            run.trace.steps.extend(result.trace.steps)
    sub = outcome.sub
    if sub is not None:
        for child, results in sub.node_results.items():
            run.node_results.setdefault(f"{name}.{child}", []).extend(results)
        _add_usage(run.usage, sub.total_usage)
        for sub_step in sub.trace.steps:
            if sub_step.node_name and not sub_step.node_name.startswith(f"{name}."):
                sub_step.node_name = f"{name}.{sub_step.node_name}"
        run.trace.steps.extend(sub.trace.steps)


def _add_usage(total: UsageStats, part: UsageStats) -> None:
    """Add a node's (or subgraph's) totals to the run's; cached input is part of the prompt."""
    total.prompt_tokens += part.prompt_tokens
    total.completion_tokens += part.completion_tokens
    total.total_tokens += part.total_tokens
    total.cost_usd += part.cost_usd
    total.cache_read_tokens += part.cache_read_tokens
    total.cache_write_tokens += part.cache_write_tokens


def _parallel(
    graph: AgentGraph, run: _Run, group: ParallelGroupNode, state: GraphState
) -> Generator[Any, Any, NodeOutcome]:
    children = []
    for child in group.children:
        node = graph.nodes.get(child)
        if not isinstance(node, GraphNode):
            raise GraphExecutionError(
                f"parallel group {group.name!r}: {child!r} is not a node of the graph",
                node_name=group.name,
            )
        children.append(node)
    merged = yield from _fan_out(
        graph,
        run,
        group.name,
        [(n, state.branch()) for n in children],
        state,
        group.merge_policy,
        group.merge_fn,
    )
    return NodeOutcome(merged)


def _fan_out(
    graph: AgentGraph,
    run: _Run,
    label: str,
    branches: list[tuple[GraphNode, GraphState]],
    parent: GraphState,
    policy: MergePolicy,
    merge_fn: Callable[[list[GraphState]], GraphState] | None,
) -> Generator[Any, Any, GraphState]:
    """Run ``branches`` side by side, then merge their states into ``parent``'s."""
    names = tuple(node.name for node, _ in branches)
    for node, _ in branches:
        if node.kind in ("gen", "agen"):
            raise GraphExecutionError(
                f"{label!r}: generator node {node.name!r} cannot run in a parallel branch "
                "(interrupts pause one node at a time)",
                node_name=node.name,
            )
    t0 = now()
    kids = list(names)
    record(
        run,
        "parallel_start",
        label,
        t0,
        t0,
        data={"children": kids},
        group_name=label,
        child_nodes=kids,
        children=names,
    )
    for node, branch in branches:
        branch.current_node = node.name
    outcomes = yield RunBranches(branches)
    for lane, ((node, _), outcome) in enumerate(zip(branches, outcomes, strict=True), start=1):
        _collect(graph, run, node.name, outcome, lane)
        record(run, "branch_end", node.name, outcome.started, outcome.ended, lane=lane)
    merged = merge_states(parent, [o.state for o in outcomes], policy, merge_fn)
    record(
        run,
        "parallel_end",
        label,
        t0,
        group_name=label,
        child_count=len(outcomes),
        children=names,
    )
    return merged


def _next(
    graph: AgentGraph, run: _Run, current: str, state: GraphState
) -> Generator[Any, Any, str]:
    """Where to go after ``current``: its conditional router, else its static edge, else END."""
    if run.stop_reason == "fast_route":
        return END
    routed = graph.conditional.get(current)
    if routed is None:
        target = graph.edges.get(current, END)
    else:
        router, path_map = routed
        decision = router(state)
        if isinstance(decision, Goto):
            target = decision.node
        elif isinstance(decision, Update):
            state.data.update(decision.patch)
            target = decision.node or graph.edges.get(current, END)
        elif (
            isinstance(decision, (list, tuple))
            and decision
            and all(isinstance(d, Scatter) for d in decision)
        ):
            target = yield from _scatter(graph, run, current, list(decision), state)
        elif isinstance(decision, Scatter):
            target = yield from _scatter(graph, run, current, [decision], state)
        elif isinstance(decision, str):
            target = decision
        else:
            raise GraphExecutionError(
                f"router of {current!r} returned {decision!r}; return a node name, "
                "AgentGraph.END, goto(...), update(...) or a list of Scatter",
                node_name=current,
            )
        if path_map and target in path_map:
            target = path_map[target]
    record(
        run,
        "routing",
        current,
        summary=f"{current} -> {target}",
        data={"from_node": current, "to_node": target},
    )
    return target


def _scatter(
    graph: AgentGraph, run: _Run, current: str, scatters: list[Scatter], state: GraphState
) -> Generator[Any, Any, str]:
    branches = []
    for item in scatters:
        node = graph.nodes.get(item.node_name)
        if not isinstance(node, GraphNode):
            raise GraphExecutionError(
                f"Scatter from {current!r} targets unknown node {item.node_name!r}",
                node_name=current,
            )
        branch = state.branch()
        branch.data.update(item.state_patch)
        branches.append((node, branch))
    merged = yield from _fan_out(
        graph, run, f"{current}:scatter", branches, state, MergePolicy.LAST_WINS, None
    )
    run.state = merged
    target_node = scatters[0].node_name
    return graph.edges.get(target_node, END)


def _over_budget(graph: AgentGraph, run: _Run) -> bool:
    usage = run.usage
    reason = None
    if graph.max_total_tokens is not None and usage.total_tokens >= graph.max_total_tokens:
        reason = f"token budget {graph.max_total_tokens} reached ({usage.total_tokens} used)"
    elif graph.max_cost_usd is not None and usage.cost_usd >= graph.max_cost_usd:
        reason = f"cost budget ${graph.max_cost_usd} reached (${usage.cost_usd:.4f} used)"
    if reason is None:
        return False
    run.stop_reason = "budget_exceeded"
    record(
        run,
        "budget_exceeded",
        None,
        summary=reason,
        reason=reason,
        tokens_used=usage.total_tokens,
        cost_used=usage.cost_usd,
    )
    return True


def _checkpoint(run: _Run, state: GraphState) -> str:
    """Save ``state`` to the run's store (with the run id, so a restart continues the run)."""
    assert run.store is not None
    state.metadata["__graph_run_id__"] = run.run_id
    try:
        checkpoint_id = run.store.save(run.run_id, state, run.step)
    finally:
        state.metadata.pop("__graph_run_id__", None)
    record(
        run,
        "checkpoint",
        state.current_node,
        summary=checkpoint_id,
        data={"checkpoint_id": checkpoint_id},
    )
    return checkpoint_id
