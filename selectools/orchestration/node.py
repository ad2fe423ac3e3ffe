"""Graph nodes and how each kind runs (sync and async).

A node wraps an :class:`~selectools.Agent`, a sync or async callable
``(GraphState) -> GraphState | None``, a sync or async generator (a node that
can pause with :class:`InterruptRequest`), or another graph. The kind is worked
out once, when the node is added, so running it is one branch on a string.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._async_bridge import run_sync
from .._driver import drive_async, drive_sync
from ..exceptions import GraphExecutionError
from ..stability import beta
from ..trace import now
from ..types import AgentResult, Message, Role
from .primitives import ErrorPolicy, InterruptRequest
from .state import STATE_KEY_LAST_OUTPUT, ContextMode, GraphState, MergePolicy

if TYPE_CHECKING:
    from .._portal import Portal
    from ._run_state import _Run
    from .graph import AgentGraph, GraphResult

__all__ = ["GraphNode", "NodeOutcome", "ParallelGroupNode", "SubgraphNode"]


def node_kind(target: Any) -> str:
    from ..agent import Agent
    from .graph import AgentGraph

    if isinstance(target, Agent):
        return "agent"
    if isinstance(target, AgentGraph):
        return "graph"
    if inspect.isasyncgenfunction(target):
        return "agen"
    if inspect.isgeneratorfunction(target):
        return "gen"
    if inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(
        getattr(target, "__call__", None)  # noqa: B004 - async callable objects
    ):
        return "async"
    if callable(target):
        return "sync"
    raise TypeError(
        f"A graph node must be an Agent, a callable taking GraphState, a generator function "
        f"or an AgentGraph; got {type(target).__name__}"
    )


@beta
class GraphNode:
    """One named step of a graph and how its input and output are shaped."""

    __slots__ = (
        "context_mode",
        "context_n",
        "error_policy",
        "input_transform",
        "kind",
        "max_iterations",
        "max_visits",
        "name",
        "output_transform",
        "target",
    )

    def __init__(
        self,
        name: str,
        target: Any,
        *,
        context_mode: ContextMode = ContextMode.LAST_MESSAGE,
        context_n: int = 6,
        max_iterations: int = 1,
        max_visits: int = 0,
        error_policy: ErrorPolicy | None = None,
        input_transform: Callable[[GraphState], list[Message]] | None = None,
        output_transform: Callable[[AgentResult, GraphState], GraphState] | None = None,
    ) -> None:
        self.name = name
        self.target = target
        self.kind = node_kind(target)
        self.context_mode = ContextMode(context_mode)
        if self.context_mode is ContextMode.CUSTOM and input_transform is None:
            raise ValueError(f"node {name!r}: ContextMode.CUSTOM needs an input_transform")
        self.context_n = context_n
        self.max_iterations = max(1, max_iterations)
        self.max_visits = max_visits
        self.error_policy = ErrorPolicy(error_policy) if error_policy is not None else None
        self.input_transform = input_transform
        self.output_transform = output_transform

    @property
    def label(self) -> str:
        return {
            "agent": "Agent",
            "graph": "Graph",
            "gen": "Generator",
            "agen": "Generator",
            "async": "Async",
            "sync": "Callable",
        }[self.kind]

    # -- agent input / output ---------------------------------------------
    def agent_input(self, state: GraphState) -> list[Message]:
        if self.input_transform is not None:
            return self.input_transform(state)
        mode = self.context_mode
        if mode is ContextMode.FULL:
            return list(state.messages) or [Message(Role.USER, "")]
        if mode is ContextMode.LAST_N:
            return list(state.messages[-self.context_n :]) or [Message(Role.USER, "")]
        if mode is ContextMode.SUMMARY:
            return [Message(Role.USER, _digest(state))]
        last = state.data.get(STATE_KEY_LAST_OUTPUT)
        if last is not None:
            return [Message(Role.USER, last if isinstance(last, str) else str(last))]
        for message in reversed(state.messages):
            if message.role is Role.USER:
                return [message]
        return [Message(Role.USER, "")]

    def agent_output(self, result: AgentResult, state: GraphState) -> GraphState:
        if self.output_transform is not None:
            return self.output_transform(result, state)
        content = result.content
        state.data[STATE_KEY_LAST_OUTPUT] = content
        state.history.append((self.name, result))
        state.messages.append(Message(Role.ASSISTANT, content))
        return state

    def __repr__(self) -> str:
        return f"GraphNode({self.name!r}, {self.label})"


class ParallelGroupNode:
    """A group of registered nodes that run concurrently on copies of the state."""

    __slots__ = ("children", "error_policy", "merge_fn", "merge_policy", "name")
    kind = "parallel"
    label = "Parallel"

    def __init__(
        self,
        name: str,
        children: list[str],
        merge_policy: MergePolicy = MergePolicy.LAST_WINS,
        merge_fn: Callable[[list[GraphState]], GraphState] | None = None,
        error_policy: ErrorPolicy | None = None,
    ) -> None:
        if not children:
            raise ValueError(f"parallel group {name!r} needs at least one child node")
        self.name = name
        self.children = list(children)
        self.merge_policy = MergePolicy(merge_policy)
        self.merge_fn = merge_fn
        self.error_policy = error_policy

    max_visits = 0

    def __repr__(self) -> str:
        return f"ParallelGroupNode({self.name!r}, {self.children})"


class SubgraphNode(GraphNode):
    """A whole graph run as one node; ``input_map``/``output_map`` copy keys in and out."""

    __slots__ = ("input_map", "output_map")

    def __init__(
        self,
        name: str,
        graph: AgentGraph,
        input_map: dict[str, str] | None = None,
        output_map: dict[str, str] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(name, graph, **options)
        self.input_map = input_map
        self.output_map = output_map


class NodeOutcome:
    """What running a node produced (the engine turns it into state, results and spans)."""

    __slots__ = ("answered", "ended", "gen", "interrupt", "result", "started", "state", "sub")

    def __init__(
        self,
        state: GraphState,
        result: AgentResult | None = None,
        started: float = 0.0,
    ) -> None:
        self.state = state
        self.result = result
        self.interrupt: InterruptRequest | None = None
        self.gen: Any = None
        self.answered: list[Any] = []
        self.sub: GraphResult | None = None
        self.started = started
        self.ended = 0.0


def _check_agent(result: AgentResult) -> None:
    """An agent run that ended with an error fails its node (so the error policy applies)."""
    if result.error is not None and result.stop_reason not in ("cancelled", "budget_exceeded"):
        raise result.error


def _digest(state: GraphState) -> str:
    """SUMMARY mode: a compact digest of the conversation so far (one line per message)."""
    lines = []
    for message in state.messages:
        text = message.text.replace("\n", " ")
        lines.append(f"{message.role.value}: {text[:200]}")
    return "Summary of the conversation so far:\n" + "\n".join(lines)


def _returned(node: GraphNode, value: Any, state: GraphState) -> GraphState:
    """What a callable node returned: a state, None (pass through), a str (the output) or a dict patch."""
    if value is None:
        return state
    if isinstance(value, GraphState):
        return value
    if isinstance(value, str):
        state.data[STATE_KEY_LAST_OUTPUT] = value
        return state
    if isinstance(value, dict):
        state.data.update(value)
        return state
    raise GraphExecutionError(
        f"node {node.name!r} returned {type(value).__name__}; return a GraphState, None, "
        "a str (the node's output) or a dict (merged into state.data)",
        node_name=node.name,
    )


def _not_interrupt(node: GraphNode, value: Any) -> GraphExecutionError:
    return GraphExecutionError(
        f"generator node {node.name!r} yielded {type(value).__name__}; generator nodes pause "
        "the graph by yielding InterruptRequest(...)",
        node_name=node.name,
    )


class _Paused(Exception):
    """A generator node asked for an answer it does not have yet: the run pauses there."""

    def __init__(self, request: InterruptRequest) -> None:
        super().__init__(request)
        self.request = request


class _Answers:
    """Performer of a generator node's interrupts: the next saved answer, or a pause."""

    __slots__ = ("answers", "node", "used")

    def __init__(self, node: GraphNode, answers: list[Any]) -> None:
        self.node, self.answers, self.used = node, answers, 0

    def __call__(self, request: Any) -> Any:
        if not isinstance(request, InterruptRequest):
            raise _not_interrupt(self.node, request)
        if self.used >= len(self.answers):
            raise _Paused(request)
        self.used += 1
        return self.answers[self.used - 1]

    async def perform_async(self, request: Any) -> Any:
        return self(request)

    def paused(self, gen: Any, stop: _Paused, answered: list[Any] | None) -> NodeOutcome:
        """The outcome of a generator left waiting at ``stop.request`` (the caller fills the state)."""
        outcome = NodeOutcome(GraphState())
        outcome.interrupt, outcome.gen = stop.request, gen
        outcome.answered = self.answers[: self.used] if answered is None else answered
        return outcome


def step_generator(
    node: GraphNode, gen: Any, answers: list[Any], live: bool = False
) -> NodeOutcome | None:
    """Run a generator node's generator, answering its interrupts from ``answers``.

    A fresh generator is started and given ``answers`` in order; a ``live`` one
    (paused in this process) is sent the last answer. Returns an outcome with
    ``interrupt`` set when it asks for an answer it has not got, ``None`` when it
    finished. Nothing is thrown into the user's generator: a paused one stays at
    its ``yield``.
    """
    performer = _Answers(node, [] if live else answers)
    try:
        drive_sync(gen, performer, value=answers[-1] if live else None, catch=())
    except _Paused as stop:
        return performer.paused(gen, stop, list(answers) if live else None)
    return None


async def astep_generator(
    node: GraphNode, gen: Any, answers: list[Any], live: bool = False
) -> NodeOutcome | None:
    """:func:`step_generator` for an async generator node."""
    performer = _Answers(node, [] if live else answers)
    try:
        await drive_async(
            gen, performer.perform_async, value=answers[-1] if live else None, catch=()
        )
    except _Paused as stop:
        return performer.paused(gen, stop, list(answers) if live else None)
    return None


def _finish(
    node: GraphNode, state: GraphState, paused: NodeOutcome | None, started: float
) -> NodeOutcome:
    if paused is not None:
        paused.state, paused.started, paused.ended = state, started, now()
        return paused
    state._interrupt_responses.pop(node.name, None)
    outcome = NodeOutcome(state, None, started)
    outcome.ended = now()
    return outcome


def _subgraph_state(node: GraphNode, state: GraphState) -> GraphState:
    maps = node.input_map if isinstance(node, SubgraphNode) else None
    if maps is None:
        return state
    child = GraphState(messages=list(state.messages), metadata=dict(state.metadata))
    for parent_key, child_key in maps.items():
        if parent_key in state.data:
            child.data[child_key] = state.data[parent_key]
    if STATE_KEY_LAST_OUTPUT in state.data and STATE_KEY_LAST_OUTPUT not in child.data:
        child.data[STATE_KEY_LAST_OUTPUT] = state.data[STATE_KEY_LAST_OUTPUT]
    return child


def _subgraph_back(node: GraphNode, state: GraphState, sub: GraphResult) -> GraphState:
    if not isinstance(node, SubgraphNode) or node.input_map is None:
        return sub.state
    for child_key, parent_key in (node.output_map or {}).items():
        if child_key in sub.state.data:
            state.data[parent_key] = sub.state.data[child_key]
    state.data[STATE_KEY_LAST_OUTPUT] = sub.content
    state.messages.append(Message(Role.ASSISTANT, sub.content))
    return state


_GENERATORS: list[Portal] = []
_GENERATORS_LOCK = threading.Lock()


def _generator_portal() -> Portal:
    """The portal sync runs step async generator nodes on: one per process, closed at exit."""
    with _GENERATORS_LOCK:
        if not _GENERATORS:
            import atexit

            from .._portal import Portal

            _GENERATORS.append(Portal("graph-generators"))
            atexit.register(_GENERATORS[0].close)
    return _GENERATORS[0].start()


def run_node_sync(node: GraphNode, state: GraphState, run: _Run, live: Any = None) -> NodeOutcome:
    """Run ``node`` once, blocking. ``live``: a paused generator to continue with the next answer."""
    started = now()
    kind = node.kind
    if kind == "sync":
        outcome = NodeOutcome(_returned(node, node.target(state), state), None, started)
    elif kind == "agent":
        result = node.target.run(
            node.agent_input(state), parent_run_id=run.run_id, cancellation_token=run.token
        )
        _check_agent(result)
        outcome = NodeOutcome(node.agent_output(result, state), result, started)
    elif kind == "async":
        outcome = NodeOutcome(_returned(node, run_sync(node.target(state)), state), None, started)
    elif kind == "gen":
        answers = state._interrupt_responses.get(node.name, [])
        if live is not None:  # in-process resume: continue at the exact yield point
            paused = step_generator(node, live, answers, live=True)
        else:
            paused = step_generator(node, node.target(state), answers)
        return _finish(node, state, paused, started)
    elif kind == "agen":
        # one long-lived portal: a paused async generator must outlive this call (a loop
        # that closes runs shutdown_asyncgens, which would finalize it at its yield)
        return _generator_portal().call(run_node_async(node, state, run, live))
    else:  # graph
        sub = node.target._run_sync(_subgraph_state(node, state), run)
        outcome = NodeOutcome(_subgraph_back(node, state, sub), None, started)
        outcome.sub = sub
    outcome.ended = now()
    return outcome


async def run_node_async(
    node: GraphNode,
    state: GraphState,
    run: _Run,
    live: Any = None,
    on_chunk: Callable[[str], None] | None = None,
) -> NodeOutcome:
    started = now()
    kind = node.kind
    if kind == "sync":
        outcome = NodeOutcome(_returned(node, node.target(state), state), None, started)
    elif kind == "agent":
        messages = node.agent_input(state)
        if on_chunk is None:
            result = await node.target.arun(
                messages, parent_run_id=run.run_id, cancellation_token=run.token
            )
        else:
            result = None
            async for item in node.target.astream(
                messages, parent_run_id=run.run_id, cancellation_token=run.token
            ):
                if isinstance(item, AgentResult):
                    result = item
                elif item.content:
                    on_chunk(item.content)
            assert result is not None
        _check_agent(result)
        outcome = NodeOutcome(node.agent_output(result, state), result, started)
    elif kind == "async":
        outcome = NodeOutcome(_returned(node, await node.target(state), state), None, started)
    elif kind == "agen":
        answers = state._interrupt_responses.get(node.name, [])
        if live is not None:
            paused = await astep_generator(node, live, answers, live=True)
        else:
            paused = await astep_generator(node, node.target(state), answers)
        return _finish(node, state, paused, started)
    elif kind == "gen":
        return run_node_sync(node, state, run, live)
    else:
        sub = await node.target._run_async(_subgraph_state(node, state), run)
        outcome = NodeOutcome(_subgraph_back(node, state, sub), None, started)
        outcome.sub = sub
    outcome.ended = now()
    return outcome
