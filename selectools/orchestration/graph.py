"""``AgentGraph``: agents and functions wired into a directed graph, run step by step.

This module is the front: the builder API, ``validate`` and the entry points
(``run``, ``arun``, ``astream``, ``resume``). One engine serves them all, in
private modules of one concept each:

- ``_engine.py``: a plain generator that walks the graph (routing, error
  policies, loop and stall detection, budgets, checkpoints) and *yields* typed
  effects (``_effects.py``: run this node, run these branches);
- ``_drivers.py``: the performers of those effects, blocking, awaiting or
  streaming (the stepping is ``selectools/_driver.py``, shared with the agent
  and pipelines), so the rules live in one place and the sync path never starts
  an event loop;
- ``node.py``: the node types; ``_node_run.py``: running one node, itself an
  effect program (an agent, a coroutine, a subgraph to run);
- ``_run_state.py``: what one run accumulates; ``_recorder.py``: one table from
  each fact to its trace step, observer event and ``GraphEvent``;
- ``_interrupts.py``: pausing at an interrupt and answering it.

Interrupts: a generator node that yields :class:`InterruptRequest` pauses the
run. The checkpoint saved then holds the state as it was *before* the node
started plus the answers given so far. In the same process, ``resume`` sends
the answer to the still-paused generator (it continues at the exact ``yield``).
A live generator cannot be persisted, so after a restart ``resume`` re-runs the
node from that saved state and replays the stored answers to its earlier
yields: code before the first ``yield`` runs again.
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator, Callable, Generator, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._display import RichDisplay
from ..exceptions import GraphExecutionError
from ..stability import beta
from ..trace import AgentTrace
from ..types import AgentResult
from ..usage import UsageStats
from ._drivers import drive_async, drive_sync, drive_to_end
from ._engine import END, core
from ._interrupts import abandon, reopen
from ._run_state import _Run
from .events import GraphEvent
from .node import GraphNode, ParallelGroupNode, SubgraphNode
from .primitives import ErrorPolicy, InterruptRequest
from .state import STATE_KEY_LAST_OUTPUT, GraphState, MergePolicy

if TYPE_CHECKING:
    from ..cancellation import CancellationToken
    from .checkpoint import CheckpointStore

__all__ = ["AgentGraph", "GraphResult"]

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


def _node_family(node: GraphNode | ParallelGroupNode) -> str:
    """What a name can be replaced with: a step (agent or function), a parallel group, a subgraph."""
    if isinstance(node, ParallelGroupNode):
        return "parallel group"
    return "subgraph" if isinstance(node, SubgraphNode) else "node"


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
            return run, core(self, run, self._check_runnable())
        state, step = self._load(checkpoint_id, store)
        if state._pending_node is not None:
            raise GraphExecutionError(
                f"checkpoint {checkpoint_id!r} is an interrupt: answer it with resume()"
            )
        run = _Run(self, state, store, None, state.metadata.pop("__graph_run_id__", None))
        run.step = step
        return run, core(self, run, state.current_node, fresh=False, after=True)

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
        return drive_sync(run, gen)

    async def arun(
        self,
        prompt_or_state: str | GraphState,
        checkpoint_store: CheckpointStore | None = None,
        checkpoint_id: str | None = None,
    ) -> GraphResult:
        """Async :meth:`run`: async nodes are awaited, parallel groups run with ``asyncio.gather``."""
        run, gen = self._prepare(prompt_or_state, checkpoint_store, checkpoint_id)
        return await drive_to_end(run, gen)

    async def astream(
        self,
        prompt_or_state: str | GraphState,
        checkpoint_store: CheckpointStore | None = None,
        checkpoint_id: str | None = None,
    ) -> AsyncIterator[GraphEvent]:
        """Run the graph, yielding a :class:`GraphEvent` for each start, chunk, route and end."""
        run, gen = self._prepare(prompt_or_state, checkpoint_store, checkpoint_id)
        run.stream = []
        async for event in drive_async(run, gen):
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

    def _reopen(
        self, interrupt_id: str, response: Any, store: CheckpointStore | None
    ) -> tuple[_Run, Generator[Any, Any, None], Any]:
        run, node_name, live = reopen(self, interrupt_id, response, store)
        return run, core(self, run, node_name, fresh=False, resuming=interrupt_id), live

    def abandon(self, interrupt_id: str) -> bool:
        """Give up a run paused at ``interrupt_id`` that nobody will answer.

        In this process a paused run keeps its node's generator (and the state it
        holds) so :meth:`resume` continues at the ``yield``; ``abandon`` closes it,
        running the node's ``finally`` blocks. A checkpoint, if the run had a store,
        stays: :meth:`resume` with that store still re-runs the node from it.
        Returns False when no run of this graph is paused there in this process.
        """
        return abandon(self, interrupt_id)

    def resume(
        self, interrupt_id: str, response: Any, checkpoint_store: CheckpointStore | None = None
    ) -> GraphResult:
        """Answer an interrupt and continue the run (see the module docstring for restarts)."""
        run, gen, live = self._reopen(interrupt_id, response, checkpoint_store)
        return drive_sync(run, gen, live)

    async def aresume(
        self, interrupt_id: str, response: Any, checkpoint_store: CheckpointStore | None = None
    ) -> GraphResult:
        run, gen, live = self._reopen(interrupt_id, response, checkpoint_store)
        return await drive_to_end(run, gen, live)

    async def astream_resume(
        self, interrupt_id: str, response: Any, checkpoint_store: CheckpointStore | None = None
    ) -> AsyncIterator[GraphEvent]:
        """:meth:`aresume`, yielding the rest of the run's :class:`GraphEvent`s as :meth:`astream` does."""
        run, gen, live = self._reopen(interrupt_id, response, checkpoint_store)
        run.stream = []
        async for event in drive_async(run, gen, live):
            yield event

    def _result(self, run: _Run, state: GraphState) -> GraphResult:
        """What ``run`` produced (the engine and interrupts build results through this)."""
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
        result = drive_sync(run, core(self, run, self._check_runnable()))
        self._no_nested_interrupt(result)
        return result

    async def _run_async(self, state: GraphState, parent: _Run) -> GraphResult:
        run = _Run(self, state, None, parent)
        result = await drive_to_end(run, core(self, run, self._check_runnable()))
        self._no_nested_interrupt(result)
        return result

    def _no_nested_interrupt(self, result: GraphResult) -> None:
        if result.interrupted:
            raise GraphExecutionError(
                f"subgraph {self.name!r} was interrupted; interrupts inside subgraphs are not "
                "supported: put the generator node in the outer graph"
            )

    # -- the builder -------------------------------------------------------------
    def edit(self, var: str = "graph", provider: Any = None) -> Any:
        """In a notebook: the visual builder bound to this graph (edits change it in place).

        ``var`` names the graph in the cells the builder writes; ``provider`` runs its
        agents in the canvas's Run panel (default: each agent's own).
        """
        from .._display import render  # the notebook's widget, through the display port

        return render(self, "editor", var, provider)

    # -- pictures ---------------------------------------------------------------
    def to_mermaid(self) -> str:
        from .render import to_mermaid

        return to_mermaid(self)

    def visualize(self, format: str = "ascii") -> str:
        from .render import visualize

        return visualize(self, format)

    def __repr__(self) -> str:
        return f"AgentGraph({self.name!r}, nodes={list(self.nodes)}, entry={self.entry!r})"
