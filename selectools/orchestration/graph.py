"""``AgentGraph``: agents and functions wired into a directed graph, run step by step.

One engine serves ``run``, ``arun``, ``astream`` and ``resume``: :meth:`AgentGraph._core`
is a plain generator that walks the graph (routing, error policies, loop and
stall detection, budgets, checkpoints, events, trace) and *yields* each node it
wants run; a small sync or async driver runs the node and sends the outcome
back. So the rules live in one place and the sync path never starts an event loop.

Interrupts: a generator node that yields :class:`InterruptRequest` pauses the
run. The checkpoint saved then holds the state as it was *before* the node
started plus the answers given so far. In the same process, ``resume`` sends
the answer to the still-paused generator (it continues at the exact ``yield``).
A live generator cannot be persisted, so after a restart ``resume`` re-runs the
node from that saved state and replays the stored answers to its earlier
yields: code before the first ``yield`` runs again.
"""

from __future__ import annotations

import json
import os
import threading
import warnings
from collections.abc import AsyncIterator, Callable, Generator, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._display import RichDisplay
from ..exceptions import GraphExecutionError
from ..stability import beta
from ..trace import AgentTrace, StepType, TraceStep, now
from ..types import AgentResult, Message, Role
from ..usage import AgentUsage, UsageStats
from .events import GraphEvent, GraphEventType
from .node import (
    GraphNode,
    NodeOutcome,
    ParallelGroupNode,
    SubgraphNode,
    run_node_async,
    run_node_sync,
)
from .primitives import ErrorPolicy, Goto, InterruptRequest, Scatter, Update
from .state import STATE_KEY_LAST_OUTPUT, GraphState, MergePolicy, merge_states

if TYPE_CHECKING:
    from ..cancellation import CancellationToken
    from .checkpoint import CheckpointStore

__all__ = ["AgentGraph", "GraphResult"]

END = "__end__"

Router = Callable[[GraphState], Any]


@dataclass
class GraphResult(RichDisplay):
    """What a graph run produced: final output and state, per-node results, trace, usage.

    ``node_results`` lists every node that ran, in the order they first finished:
    an agent node's ``AgentResult`` per visit; a function node's result holds the
    graph's last output after it ran and no usage (no model was called); a
    subgraph's nodes appear as ``"subgraph.node"``, a parallel group's as its children.
    """

    content: str
    state: GraphState
    node_results: dict[str, list[AgentResult]] = field(default_factory=dict)
    trace: AgentTrace = field(default_factory=AgentTrace)
    total_usage: UsageStats = field(default_factory=UsageStats)
    interrupted: bool = False
    interrupt_id: str | None = None
    steps: int = 0
    stalls: int = 0
    loops_detected: int = 0
    stop_reason: str = "end"
    interrupt: InterruptRequest | None = None
    graph_name: str = "graph"

    @property
    def run_id(self) -> str:
        return self.trace.run_id

    def __repr__(self) -> str:
        text = self.content if len(self.content) <= 60 else self.content[:57] + "..."
        extra = f", interrupt_id={self.interrupt_id!r}" if self.interrupted else ""
        return (
            f"GraphResult(content={text!r}, steps={self.steps}, "
            f"nodes={list(self.node_results)}, stop_reason={self.stop_reason!r}{extra})"
        )


# paused generators of this process: interrupt id -> (graph, generator, state it holds)
_LIVE: dict[str, tuple[AgentGraph, Any, GraphState, _Run]] = {}
_LIVE_LOCK = threading.Lock()


class _Run:
    """Everything one run of a graph accumulates."""

    __slots__ = (
        "emitter",
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
    ) -> None:
        self.run_id = os.urandom(16).hex()
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


def _node_family(node: GraphNode | ParallelGroupNode) -> str:
    """What a name can be replaced with: a step (agent or function), a parallel group, a subgraph."""
    if isinstance(node, ParallelGroupNode):
        return "parallel group"
    return "subgraph" if isinstance(node, SubgraphNode) else "node"


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


@beta
class AgentGraph(RichDisplay):
    """A directed graph of agents and functions (see the module docstring for how it runs)."""

    END = END

    def __init__(
        self,
        name: str = "graph",
        observers: Iterable[Any] | None = None,
        error_policy: ErrorPolicy = ErrorPolicy.ABORT,
        error_retry_limit: int = 3,
        max_steps: int = 50,
        cancellation_token: CancellationToken | None = None,
        max_total_tokens: int | None = None,
        max_cost_usd: float | None = None,
        input_guardrails: Any = None,
        output_guardrails: Any = None,
        enable_loop_detection: bool = True,
        stall_threshold: int = 3,
        fast_route_fn: Callable[[GraphState], str | None] | None = None,
    ) -> None:
        self.name = name
        self.observers = list(observers or [])
        self.error_policy = ErrorPolicy(error_policy)
        self.error_retry_limit = error_retry_limit
        self.max_steps = max_steps
        self.cancellation_token = cancellation_token
        self.max_total_tokens = max_total_tokens
        self.max_cost_usd = max_cost_usd
        self.input_guardrails = input_guardrails
        self.output_guardrails = output_guardrails
        self.enable_loop_detection = enable_loop_detection
        self.stall_threshold = stall_threshold
        self.fast_route_fn = fast_route_fn
        self.nodes: dict[str, GraphNode | ParallelGroupNode] = {}
        self.edges: dict[str, str] = {}
        self.conditional: dict[str, tuple[Router, dict[str, str] | None]] = {}
        self.entry: str | None = None

    # -- building ------------------------------------------------------------
    def _register(self, node: GraphNode | ParallelGroupNode) -> None:
        """Add ``node``; a node of the same kind under a used name replaces it, with a warning.

        A notebook re-runs a cell, and the ORCHESTRATION page itself adds a node
        under a name used a few blocks earlier: both mean "this is the node now".
        A clash with another kind (a step, a parallel group, a subgraph) is
        more likely a typo, so it still fails; edges and the entry keep the name.
        """
        if node.name == END:
            raise ValueError(f"{END!r} is reserved for AgentGraph.END")
        old = self.nodes.get(node.name)
        if old is not None:
            was, now_ = _node_family(old), _node_family(node)
            if was != now_:
                raise ValueError(
                    f"graph {self.name!r} already has a {was} named {node.name!r}; "
                    f"a {now_} cannot replace it: pick another name"
                )
            warnings.warn(
                f"graph {self.name!r}: add_node replaces the earlier {was} {node.name!r}",
                UserWarning,
                stacklevel=3,
            )
        self.nodes[node.name] = node
        if self.entry is None:
            self.entry = node.name

    def add_node(
        self, name: str, agent_or_callable: Any, *, next_node: str | None = None, **options: Any
    ) -> AgentGraph:
        """Add a node (Agent, callable, generator function or AgentGraph); ``next_node`` adds its edge."""
        if isinstance(agent_or_callable, AgentGraph):
            node: GraphNode = SubgraphNode(name, agent_or_callable, **options)
        else:
            node = GraphNode(name, agent_or_callable, **options)
        self._register(node)
        if next_node is not None:
            self.add_edge(name, next_node)
        return self

    def add_parallel_nodes(
        self,
        name: str,
        node_names: list[str],
        merge_policy: MergePolicy = MergePolicy.LAST_WINS,
        merge_fn: Callable[[list[GraphState]], GraphState] | None = None,
        error_policy: ErrorPolicy | None = None,
    ) -> AgentGraph:
        """A node that runs ``node_names`` concurrently and merges their states."""
        self._register(ParallelGroupNode(name, node_names, merge_policy, merge_fn, error_policy))
        return self

    def add_subgraph(
        self,
        name: str,
        graph: AgentGraph,
        input_map: dict[str, str] | None = None,
        output_map: dict[str, str] | None = None,
        **options: Any,
    ) -> AgentGraph:
        """Run ``graph`` as one node: ``input_map`` copies parent keys in, ``output_map`` copies back."""
        self._register(SubgraphNode(name, graph, input_map or {}, output_map or {}, **options))
        return self

    def add_edge(self, from_node: str, to_node: str) -> AgentGraph:
        """A static edge; ``"START" -> x`` sets the entry and ``"END"`` means ``AgentGraph.END``
        (the spellings LangGraph code uses, accepted when no node has those names)."""
        if from_node == "START" and "START" not in self.nodes:
            return self.set_entry(to_node)
        if to_node == "END" and "END" not in self.nodes:
            to_node = END
        self.edges[from_node] = to_node
        return self

    def add_conditional_edge(
        self, from_node: str, router_fn: Router, path_map: dict[str, str] | None = None
    ) -> AgentGraph:
        """Route after ``from_node`` with ``router_fn(state)``: a name, ``goto``/``update`` or Scatters."""
        self.conditional[from_node] = (router_fn, path_map)
        return self

    def set_entry(self, node_name: str) -> AgentGraph:
        self.entry = node_name
        return self

    @classmethod
    def chain(cls, *agents: Any, names: list[str] | None = None, **options: Any) -> AgentGraph:
        """A linear graph ``a -> b -> ... -> END`` (names default to ``step_1``, ``step_2``...)."""
        labels = list(names or [])
        labels += [f"step_{i + 1}" for i in range(len(labels), len(agents))]
        if len(set(labels)) != len(labels):
            raise ValueError(f"chain: node names must differ, got {labels}")
        graph = cls(**options)
        for i, agent in enumerate(agents):
            nxt = labels[i + 1] if i + 1 < len(agents) else END
            graph.add_node(labels[i], agent, next_node=nxt)
        return graph

    def validate(self) -> list[str]:
        """Structural problems as readable warnings (an empty list when the graph is sound)."""
        problems = []
        if not self.nodes:
            return ["the graph has no nodes"]
        if self.entry not in self.nodes:
            problems.append(f"entry node {self.entry!r} is not a node of the graph")
        known = set(self.nodes) | {END}
        for src, dst in self.edges.items():
            if src not in self.nodes:
                problems.append(f"edge from unknown node {src!r}")
            if dst not in known:
                problems.append(f"edge {src!r} -> {dst!r} goes to an unknown node")
        for src, (_router, path_map) in self.conditional.items():
            if src not in self.nodes:
                problems.append(f"conditional edge from unknown node {src!r}")
            for key, dst in (path_map or {}).items():
                if dst not in known:
                    problems.append(f"path_map of {src!r}: {key!r} -> unknown node {dst!r}")
        for node in self.nodes.values():
            if isinstance(node, ParallelGroupNode):
                for child in node.children:
                    if child not in self.nodes:
                        problems.append(f"parallel group {node.name!r}: unknown child {child!r}")
        return problems

    # -- running -------------------------------------------------------------
    def _start_state(self, prompt_or_state: str | GraphState) -> GraphState:
        if isinstance(prompt_or_state, GraphState):
            return prompt_or_state
        if not isinstance(prompt_or_state, str):
            raise TypeError(
                f"run() takes a prompt string or a GraphState, got {type(prompt_or_state).__name__}"
            )
        prompt = prompt_or_state
        if self.input_guardrails is not None:
            prompt = self.input_guardrails.check_input(prompt).content
        return GraphState.from_prompt(prompt)

    def _check_runnable(self) -> str:
        if not self.nodes:
            raise GraphExecutionError(f"graph {self.name!r} has no nodes: add_node() first")
        if self.entry not in self.nodes:
            raise GraphExecutionError(
                f"graph {self.name!r}: entry node {self.entry!r} does not exist; call set_entry()"
            )
        return self.entry

    def _prepare(
        self,
        prompt_or_state: str | GraphState,
        store: CheckpointStore | None,
        checkpoint_id: str | None,
    ) -> tuple[_Run, Generator[Any, Any, None]]:
        """A fresh run, or (with ``checkpoint_id``) one that continues after that checkpoint's node."""
        if checkpoint_id is None:
            run = _Run(self, self._start_state(prompt_or_state), store, None)
            return run, self._core(run, self._check_runnable())
        state, step = self._load(checkpoint_id, store)
        if state._pending_node is not None:
            raise GraphExecutionError(
                f"checkpoint {checkpoint_id!r} is an interrupt: answer it with resume()"
            )
        run = _Run(self, state, store, None)
        run_id = state.metadata.pop("__graph_run_id__", None)
        if run_id:
            run.run_id = run.trace.run_id = run_id
        run.step = step
        return run, self._core(run, state.current_node, fresh=False, after=True)

    def run(
        self,
        prompt_or_state: str | GraphState,
        checkpoint_store: CheckpointStore | None = None,
        checkpoint_id: str | None = None,
    ) -> GraphResult:
        """Run the graph to the end (or to an interrupt), blocking.

        With ``checkpoint_id`` the run continues after the node that checkpoint
        was saved at (its routing is applied again), from the saved state.
        """
        run, gen = self._prepare(prompt_or_state, checkpoint_store, checkpoint_id)
        return self._drive_sync(run, gen)

    async def arun(
        self,
        prompt_or_state: str | GraphState,
        checkpoint_store: CheckpointStore | None = None,
        checkpoint_id: str | None = None,
    ) -> GraphResult:
        """Async :meth:`run`: async nodes are awaited, parallel groups run with ``asyncio.gather``."""
        run, gen = self._prepare(prompt_or_state, checkpoint_store, checkpoint_id)
        async for _ in self._drive_async(run, gen):
            pass
        assert run.result is not None
        return run.result

    async def astream(
        self,
        prompt_or_state: str | GraphState,
        checkpoint_store: CheckpointStore | None = None,
        checkpoint_id: str | None = None,
    ) -> AsyncIterator[GraphEvent]:
        """Run the graph, yielding a :class:`GraphEvent` for each start, chunk, route and end."""
        run, gen = self._prepare(prompt_or_state, checkpoint_store, checkpoint_id)
        run.stream = []
        async for event in self._drive_async(run, gen):
            yield event

    def __call__(self, state: GraphState) -> GraphState:
        """A graph is a node: run it on ``state`` and return the final state."""
        return self.run(state).state

    # -- resume ----------------------------------------------------------------
    def _load(self, checkpoint_id: str, store: CheckpointStore | None) -> tuple[GraphState, int]:
        if store is None:
            raise GraphExecutionError(
                f"cannot load checkpoint {checkpoint_id!r} without a checkpoint_store: pass the "
                "store the run was started with"
            )
        return store.load(checkpoint_id)

    def _resume_run(
        self, interrupt_id: str, response: Any, store: CheckpointStore | None
    ) -> tuple[_Run, Generator[Any, Any, None], Any]:
        with _LIVE_LOCK:
            live = _LIVE.pop(interrupt_id, None)
        if live is not None and live[0] is not self:
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
        if node_name is None or node_name not in self.nodes:
            raise GraphExecutionError(
                f"checkpoint {interrupt_id!r} is not an interrupt of a node of graph {self.name!r}"
            )
        answers = [*state._interrupt_responses.get(node_name, []), response]
        gen_obj = None
        if live is not None:
            gen_obj, state = live[1], live[2]
            if step < 0:
                step = int(state.metadata.get("__graph_step__", 0))
        state._interrupt_responses[node_name] = answers
        state._pending_node = None
        run = _Run(self, state, store, None)
        if live is not None:  # same process: the results, usage and trace so far carry on
            before = live[3]
            run.node_results, run.usage, run.trace = before.node_results, before.usage, before.trace
            run.trace.ended_at = None
            run.stalls, run.loops, run.visits = before.stalls, before.loops, before.visits
        run_id = state.metadata.pop("__graph_run_id__", None)
        if run_id:
            run.run_id = run.trace.run_id = run_id
        state.metadata.pop("__graph_step__", None)
        run.step = step
        run.snapshot = snapshot
        return run, self._core(run, node_name, fresh=False, resuming=interrupt_id), gen_obj

    def resume(
        self, interrupt_id: str, response: Any, checkpoint_store: CheckpointStore | None = None
    ) -> GraphResult:
        """Answer an interrupt and continue the run (see the module docstring for restarts)."""
        run, gen, live = self._resume_run(interrupt_id, response, checkpoint_store)
        return self._drive_sync(run, gen, live)

    async def aresume(
        self, interrupt_id: str, response: Any, checkpoint_store: CheckpointStore | None = None
    ) -> GraphResult:
        run, gen, live = self._resume_run(interrupt_id, response, checkpoint_store)
        async for _ in self._drive_async(run, gen, live):
            pass
        assert run.result is not None
        return run.result

    # -- drivers ---------------------------------------------------------------
    def _drive_sync(
        self, run: _Run, gen: Generator[Any, Any, None], live: Any = None
    ) -> GraphResult:
        send: Any = None
        error: BaseException | None = None
        while True:
            try:
                request = gen.send(send) if error is None else gen.throw(error)
            except StopIteration:
                break
            error = None
            try:
                if request[0] == "node":
                    send = run_node_sync(request[1], request[2], run, live)
                    live = None
                else:
                    send = self._parallel_sync(request[1], run)
            except Exception as exc:
                send, error = None, exc
        assert run.result is not None
        return run.result

    def _parallel_sync(
        self, branches: list[tuple[GraphNode, GraphState]], run: _Run
    ) -> list[NodeOutcome]:
        if all(node.kind == "sync" for node, _ in branches):
            return [run_node_sync(node, state, run) for node, state in branches]
        from .._async_bridge import run_sync

        return run_sync(self._parallel_async(branches, run))

    async def _parallel_async(
        self, branches: list[tuple[GraphNode, GraphState]], run: _Run
    ) -> list[NodeOutcome]:
        import asyncio

        return list(await asyncio.gather(*(run_node_async(n, s, run) for n, s in branches)))

    async def _drive_async(
        self, run: _Run, gen: Generator[Any, Any, None], live: Any = None
    ) -> AsyncIterator[GraphEvent]:
        send: Any = None
        error: BaseException | None = None
        stream = run.stream
        chunks: list[GraphEvent] = []
        while True:
            try:
                request = gen.send(send) if error is None else gen.throw(error)
            except StopIteration:
                break
            error = None
            if stream:
                for event in stream:
                    yield event
                stream.clear()
            if run.emitter is not None and run.emitter.pending:
                await run.emitter.flush()
            try:
                if request[0] == "node":
                    node = request[1]
                    if stream is not None and node.kind == "agent":
                        send = None
                        async for event in self._stream_agent(node, request[2], run, chunks):
                            yield event
                        send = chunks.pop()
                    else:
                        send = await run_node_async(node, request[2], run, live)
                    live = None
                else:
                    send = await self._parallel_async(request[1], run)
            except Exception as exc:
                send, error = None, exc
        if stream:
            for event in stream:
                yield event
            stream.clear()

    async def _stream_agent(
        self, node: GraphNode, state: GraphState, run: _Run, out: list[Any]
    ) -> AsyncIterator[GraphEvent]:
        """Run an agent node streaming: NODE_CHUNK events as the text arrives, outcome into ``out``."""
        import asyncio

        queue: asyncio.Queue[Any] = asyncio.Queue()

        def on_chunk(text: str) -> None:
            queue.put_nowait(
                GraphEvent(GraphEventType.NODE_CHUNK, run.run_id, node.name, run.step, chunk=text)
            )

        task = asyncio.ensure_future(run_node_async(node, state, run, None, on_chunk))
        while not task.done() or not queue.empty():
            getter = asyncio.ensure_future(queue.get())
            done, _ = await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
            if getter in done:
                yield getter.result()
            else:
                getter.cancel()
        out.append(task.result())

    # -- the engine --------------------------------------------------------------
    def _event(self, run: _Run, etype: GraphEventType, node: str | None, **fields: Any) -> None:
        if run.stream is not None:
            run.stream.append(GraphEvent(etype, run.run_id, node, run.step, **fields))

    def _emit(self, run: _Run, name: Any, *args: Any) -> None:
        if run.emitter is not None:
            run.emitter.emit(name, *args)

    def _core(
        self,
        run: _Run,
        start: str,
        fresh: bool = True,
        resuming: str | None = None,
        after: bool = False,
    ) -> Generator[Any, Any, None]:
        state = run.state
        trace = run.trace
        started = now()
        if fresh:
            self._emit(run, "on_graph_start", self.name, start, state)
            self._event(run, GraphEventType.GRAPH_START, start, state=state)
            if self.fast_route_fn is not None:
                shortcut = self.fast_route_fn(state)
                if shortcut:
                    start = shortcut
                    run.stop_reason = "fast_route"
        current: str = start
        try:
            if after:  # continuing from a checkpoint: route on from the node it was saved at
                current = yield from self._next(run, current, state)
                state = run.state
            while current != END:
                if run.token is not None and run.token.cancelled:
                    run.stop_reason = "cancelled"
                    break
                if run.step >= self.max_steps:
                    raise GraphExecutionError(
                        f"graph {self.name!r} reached max_steps={self.max_steps} at node "
                        f"{current!r}; raise max_steps or check the routing for a cycle",
                        node_name=current,
                        step=run.step,
                    )
                node = self.nodes.get(current)
                if node is None:
                    raise GraphExecutionError(
                        f"graph {self.name!r} routed to unknown node {current!r} "
                        f"(nodes: {sorted(self.nodes)})",
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
                if self.enable_loop_detection and resuming is None:
                    self._detect(run, current, state)
                run.step += 1
                state.current_node = current
                if resuming is not None:
                    self._emit(run, "on_graph_resume", current, resuming)
                    self._event(run, GraphEventType.GRAPH_RESUME, current, interrupt_id=resuming)
                    trace.add(
                        TraceStep(
                            StepType.GRAPH_RESUME,
                            now(),
                            now(),
                            current,
                            run.run_id,
                            run.step,
                            node_name=current,
                        )
                    )
                outcome = yield from self._visit(run, node, state, resuming is not None)
                resuming = None
                if outcome is None:  # interrupted
                    return
                state = run.state = outcome
                if self._over_budget(run):
                    break
                current = yield from self._next(run, current, state)
                state = run.state  # a Scatter fan-out merges into a new state
        except GraphExecutionError as exc:
            self._emit(run, "on_graph_error", self.name, exc.node_name or "", exc)
            trace.finish()
            exc.result = self._result(run, state)
            raise
        trace.finish()
        if self.output_guardrails is not None and isinstance(
            state.data.get(STATE_KEY_LAST_OUTPUT), str
        ):
            state.data[STATE_KEY_LAST_OUTPUT] = self.output_guardrails.check_output(
                state.data[STATE_KEY_LAST_OUTPUT]
            ).content
        run.result = result = self._result(run, state)
        duration = (now() - started) * 1000.0
        self._emit(run, "on_graph_end", self.name, run.step, duration)
        self._event(run, GraphEventType.GRAPH_END, None, state=state, result=result)

    def _detect(self, run: _Run, current: str, state: GraphState) -> None:
        digest = _fingerprint(state.data)
        if digest == run.last_hash:
            run.unchanged += 1
            if run.unchanged >= self.stall_threshold:
                run.stalls += 1
                run.unchanged = 0
                self._emit(run, "on_stall_detected", current, run.stalls)
                run.trace.add(
                    TraceStep(
                        StepType.GRAPH_STALL,
                        now(),
                        now(),
                        current,
                        run.run_id,
                        run.step,
                        node_name=current,
                    )
                )
        else:
            run.unchanged = 0
        run.last_hash = digest
        key = (current, digest)
        if key in run.seen:
            run.loops += 1
            self._emit(run, "on_loop_detected", current, run.loops)
            run.trace.add(
                TraceStep(
                    StepType.GRAPH_LOOP_DETECTED,
                    now(),
                    now(),
                    current,
                    run.run_id,
                    run.step,
                    node_name=current,
                )
            )
            raise GraphExecutionError(
                f"graph {self.name!r} is looping: node {current!r} was reached again with the same "
                "state.data; change the state on each pass, route to END, or disable "
                "enable_loop_detection",
                node_name=current,
                step=run.step,
            )
        run.seen.add(key)

    def _visit(
        self, run: _Run, node: GraphNode | ParallelGroupNode, state: GraphState, resuming: bool
    ) -> Generator[Any, Any, GraphState | None]:
        """Run one node with its error policy; record results, spans, events and checkpoints."""
        name = node.name
        step = run.step
        t0 = now()
        self._emit(run, "on_node_start", name, step)
        self._event(run, GraphEventType.NODE_START, name)
        run.trace.add(
            TraceStep(StepType.GRAPH_NODE_START, t0, t0, name, run.run_id, step, node_name=name)
        )
        snapshot = run.snapshot if resuming else None
        if node.kind in ("gen", "agen") and not resuming:
            snapshot = json.loads(json.dumps(state._checkpoint_dict(), default=str))
        policy = node.error_policy or self.error_policy
        attempts = 0
        while True:
            try:
                if isinstance(node, ParallelGroupNode):
                    outcome = yield from self._parallel(run, node, state)
                else:
                    outcome = yield ("node", node, state)
                break
            except GraphExecutionError:
                raise
            except Exception as exc:
                if policy is ErrorPolicy.RETRY and attempts < self.error_retry_limit:
                    attempts += 1
                    continue
                run.trace.add(
                    TraceStep(
                        StepType.GRAPH_NODE_END,
                        t0,
                        now(),
                        name,
                        run.run_id,
                        step,
                        status="error",
                        error=f"{type(exc).__name__}: {exc}",
                        node_name=name,
                    )
                )
                self._event(run, GraphEventType.ERROR, name, error=exc)
                if policy is ErrorPolicy.SKIP:
                    state.errors.append(
                        {"node": name, "step": step, "error": f"{type(exc).__name__}: {exc}"}
                    )
                    self._emit(run, "on_node_end", name, step, (now() - t0) * 1000.0)
                    self._event(
                        run, GraphEventType.NODE_END, name, duration_ms=(now() - t0) * 1000.0
                    )
                    return state
                raise GraphExecutionError(
                    f"node {name!r} of graph {self.name!r} failed at step {step}: "
                    f"{type(exc).__name__}: {exc}",
                    node_name=name,
                    step=step,
                    cause=exc,
                ) from exc
        if outcome.interrupt is not None:
            self._interrupt(run, node, outcome, snapshot, t0)
            return None
        self._collect(run, name, outcome, 0)
        new_state = outcome.state
        ended = now()
        run.trace.add(
            TraceStep(StepType.GRAPH_NODE_END, t0, ended, name, run.run_id, step, node_name=name)
        )
        duration = (ended - t0) * 1000.0
        self._emit(run, "on_node_end", name, step, duration)
        self._event(run, GraphEventType.NODE_END, name, duration_ms=duration, state=new_state)
        if run.store is not None:
            self._checkpoint(run, new_state)
        return new_state

    def _collect(self, run: _Run, name: str, outcome: NodeOutcome, lane: int) -> None:
        result = outcome.result
        if outcome.sub is None and result is None:
            # a function node: listed too (the docs key node_results by every node that ran);
            # a parallel group is listed through its children, a subgraph as "name.child"
            if not isinstance(self.nodes.get(name), ParallelGroupNode):
                run.node_results.setdefault(name, []).append(_function_result(outcome.state))
        elif result is not None:
            run.node_results.setdefault(name, []).append(result)
            usage = result.usage
            if usage is not None:
                total = run.usage
                total.prompt_tokens += usage.total_prompt_tokens
                total.completion_tokens += usage.total_completion_tokens
                total.total_tokens += usage.total_tokens
                total.cost_usd += usage.total_cost_usd
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
            run.usage.prompt_tokens += sub.total_usage.prompt_tokens
            run.usage.completion_tokens += sub.total_usage.completion_tokens
            run.usage.total_tokens += sub.total_usage.total_tokens
            run.usage.cost_usd += sub.total_usage.cost_usd
            for sub_step in sub.trace.steps:
                if sub_step.node_name and not sub_step.node_name.startswith(f"{name}."):
                    sub_step.node_name = f"{name}.{sub_step.node_name}"
            run.trace.steps.extend(sub.trace.steps)

    def _parallel(
        self, run: _Run, group: ParallelGroupNode, state: GraphState
    ) -> Generator[Any, Any, NodeOutcome]:
        children = []
        for child in group.children:
            node = self.nodes.get(child)
            if not isinstance(node, GraphNode):
                raise GraphExecutionError(
                    f"parallel group {group.name!r}: {child!r} is not a node of the graph",
                    node_name=group.name,
                )
            children.append(node)
        merged = yield from self._fan_out(
            run,
            group.name,
            [(n, state.branch()) for n in children],
            state,
            group.merge_policy,
            group.merge_fn,
        )
        return NodeOutcome(merged)

    def _fan_out(
        self,
        run: _Run,
        label: str,
        branches: list[tuple[GraphNode, GraphState]],
        parent: GraphState,
        policy: MergePolicy,
        merge_fn: Callable[[list[GraphState]], GraphState] | None,
    ) -> Generator[Any, Any, GraphState]:
        names = tuple(node.name for node, _ in branches)
        for node, _ in branches:
            if node.kind in ("gen", "agen"):
                raise GraphExecutionError(
                    f"{label!r}: generator node {node.name!r} cannot run in a parallel branch "
                    "(interrupts pause one node at a time)",
                    node_name=node.name,
                )
        t0 = now()
        self._emit(run, "on_parallel_start", label, list(names))
        self._event(run, GraphEventType.PARALLEL_START, label, children=names)
        run.trace.add(
            TraceStep(
                StepType.GRAPH_PARALLEL_START,
                t0,
                t0,
                label,
                run.run_id,
                run.step,
                node_name=label,
                data={"children": list(names)},
            )
        )
        for node, branch in branches:
            branch.current_node = node.name
        outcomes = yield ("parallel", branches)
        for lane, ((node, _), outcome) in enumerate(zip(branches, outcomes, strict=True), start=1):
            self._collect(run, node.name, outcome, lane)
            run.trace.add(
                TraceStep(
                    StepType.GRAPH_NODE_END,
                    outcome.started,
                    outcome.ended,
                    node.name,
                    run.run_id,
                    run.step,
                    lane=lane,
                    node_name=node.name,
                )
            )
        merged = merge_states(parent, [o.state for o in outcomes], policy, merge_fn)
        self._emit(run, "on_parallel_end", label, len(outcomes))
        self._event(run, GraphEventType.PARALLEL_END, label, children=names)
        run.trace.add(
            TraceStep(
                StepType.GRAPH_PARALLEL_END, t0, now(), label, run.run_id, run.step, node_name=label
            )
        )
        return merged

    def _next(self, run: _Run, current: str, state: GraphState) -> Generator[Any, Any, str]:
        """Where to go after ``current``: its conditional router, else its static edge, else END."""
        if run.stop_reason == "fast_route":
            return END
        routed = self.conditional.get(current)
        if routed is None:
            target = self.edges.get(current, END)
        else:
            router, path_map = routed
            decision = router(state)
            if isinstance(decision, Goto):
                target = decision.node
            elif isinstance(decision, Update):
                state.data.update(decision.patch)
                target = decision.node or self.edges.get(current, END)
            elif (
                isinstance(decision, (list, tuple))
                and decision
                and all(isinstance(d, Scatter) for d in decision)
            ):
                target = yield from self._scatter(run, current, list(decision), state)
            elif isinstance(decision, Scatter):
                target = yield from self._scatter(run, current, [decision], state)
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
        self._emit(run, "on_graph_routing", current, target)
        self._event(run, GraphEventType.ROUTING, current, next_node=target)
        t = now()
        run.trace.add(
            TraceStep(
                StepType.GRAPH_ROUTING,
                t,
                t,
                f"{current} -> {target}",
                run.run_id,
                run.step,
                node_name=current,
                data={"from_node": current, "to_node": target},
            )
        )
        return target

    def _scatter(
        self, run: _Run, current: str, scatters: list[Scatter], state: GraphState
    ) -> Generator[Any, Any, str]:
        branches = []
        for item in scatters:
            node = self.nodes.get(item.node_name)
            if not isinstance(node, GraphNode):
                raise GraphExecutionError(
                    f"Scatter from {current!r} targets unknown node {item.node_name!r}",
                    node_name=current,
                )
            branch = state.branch()
            branch.data.update(item.state_patch)
            branches.append((node, branch))
        merged = yield from self._fan_out(
            run, f"{current}:scatter", branches, state, MergePolicy.LAST_WINS, None
        )
        run.state = merged
        target_node = scatters[0].node_name
        return self.edges.get(target_node, END)

    def _over_budget(self, run: _Run) -> bool:
        usage = run.usage
        reason = None
        if self.max_total_tokens is not None and usage.total_tokens >= self.max_total_tokens:
            reason = f"token budget {self.max_total_tokens} reached ({usage.total_tokens} used)"
        elif self.max_cost_usd is not None and usage.cost_usd >= self.max_cost_usd:
            reason = f"cost budget ${self.max_cost_usd} reached (${usage.cost_usd:.4f} used)"
        if reason is None:
            return False
        run.stop_reason = "budget_exceeded"
        self._emit(run, "on_budget_exceeded", reason, usage.total_tokens, usage.cost_usd)
        t = now()
        run.trace.add(TraceStep(StepType.BUDGET_EXCEEDED, t, t, reason, run.run_id, run.step))
        return True

    def _checkpoint(self, run: _Run, state: GraphState) -> str:
        assert run.store is not None
        state.metadata["__graph_run_id__"] = run.run_id
        try:
            checkpoint_id = run.store.save(run.run_id, state, run.step)
        finally:
            state.metadata.pop("__graph_run_id__", None)
        t = now()
        run.trace.add(
            TraceStep(
                StepType.GRAPH_CHECKPOINT,
                t,
                t,
                checkpoint_id,
                run.run_id,
                run.step,
                node_name=state.current_node,
                data={"checkpoint_id": checkpoint_id},
            )
        )
        self._event(run, GraphEventType.CHECKPOINT, state.current_node, checkpoint_id=checkpoint_id)
        return checkpoint_id

    def _interrupt(
        self, run: _Run, node: Any, outcome: NodeOutcome, snapshot: dict[str, Any] | None, t0: float
    ) -> None:
        name = node.name
        live_state = outcome.state
        if snapshot is not None:
            saved = GraphState._from_checkpoint(snapshot)
        else:  # no store: nothing is persisted, the live generator is the only way back
            saved = live_state.branch()
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
            _LIVE[interrupt_id] = (self, outcome.gen, live_state, run)
        run.interrupt_id = interrupt_id
        run.interrupt = outcome.interrupt
        run.stop_reason = "interrupted"
        t = now()
        run.trace.add(
            TraceStep(
                StepType.GRAPH_NODE_END,
                t0,
                t,
                name,
                run.run_id,
                run.step,
                status="interrupted",
                node_name=name,
            )
        )
        run.trace.add(
            TraceStep(
                StepType.GRAPH_INTERRUPT,
                t,
                t,
                outcome.interrupt.prompt if outcome.interrupt else "",
                run.run_id,
                run.step,
                node_name=name,
                data={
                    "interrupt_key": outcome.interrupt.key if outcome.interrupt else "",
                    "checkpoint_id": interrupt_id,
                },
            )
        )
        self._emit(run, "on_graph_interrupt", name, interrupt_id)
        self._event(run, GraphEventType.GRAPH_INTERRUPT, name, interrupt_id=interrupt_id)
        run.trace.finish()
        run.result = self._result(run, live_state)

    def _result(self, run: _Run, state: GraphState) -> GraphResult:
        last = state.data.get(STATE_KEY_LAST_OUTPUT, "")
        return GraphResult(
            last if isinstance(last, str) else str(last),
            state,
            run.node_results,
            run.trace,
            run.usage,
            run.interrupt_id is not None,
            run.interrupt_id,
            run.step,
            run.stalls,
            run.loops,
            run.stop_reason,
            run.interrupt,
            self.name,
        )

    # -- nested runs (subgraph nodes) ---------------------------------------------
    def _run_sync(self, state: GraphState, parent: _Run) -> GraphResult:
        run = _Run(self, state, None, parent)
        result = self._drive_sync(run, self._core(run, self._check_runnable()))
        self._no_nested_interrupt(result)
        return result

    async def _run_async(self, state: GraphState, parent: _Run) -> GraphResult:
        run = _Run(self, state, None, parent)
        async for _ in self._drive_async(run, self._core(run, self._check_runnable())):
            pass
        assert run.result is not None
        self._no_nested_interrupt(run.result)
        return run.result

    def _no_nested_interrupt(self, result: GraphResult) -> None:
        if result.interrupted:
            raise GraphExecutionError(
                f"subgraph {self.name!r} was interrupted; interrupts inside subgraphs are not "
                "supported: put the generator node in the outer graph"
            )

    # -- pictures ---------------------------------------------------------------
    def to_mermaid(self) -> str:
        from .render import to_mermaid

        return to_mermaid(self)

    def visualize(self, format: str = "ascii") -> str:
        from .render import visualize

        return visualize(self, format)

    def __repr__(self) -> str:
        return f"AgentGraph({self.name!r}, nodes={list(self.nodes)}, entry={self.entry!r})"
