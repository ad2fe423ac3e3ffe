"""How a graph node runs: one effect program per node run, performed blocking or awaiting.

:func:`node_program` holds what running a node means for every kind (call it,
shape an agent's input and output, answer a generator's interrupts, map a
subgraph's state in and out) and yields only what differs between ``run`` and
``arun``: an agent to run, a coroutine to await, an async generator to step, a
subgraph to drive. :func:`run_node_sync` and :func:`run_node_async` drive it
(:mod:`selectools._driver`) with the performers below; nothing is thrown back into
the program (it has no error policy of its own: the engine applies the node's).
A plain callable node, most of a graph benchmark, is called without building
the program.

Generator nodes are effect programs of their own (they yield
:class:`InterruptRequest`): :func:`step_generator` drives one, answering from the
saved answers and leaving it paused at its ``yield`` when they run out.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from .._driver import drive_async, drive_sync
from ..exceptions import GraphExecutionError
from ..trace import now
from ..types import AgentResult, Message, Role
from .node import GraphNode, SubgraphNode
from .primitives import InterruptRequest
from .state import STATE_KEY_LAST_OUTPUT, GraphState

if TYPE_CHECKING:
    from .._portal import Portal
    from ._run_state import _Run
    from .graph import GraphResult

__all__ = ["NodeOutcome", "node_program", "run_node_async", "run_node_sync", "step_generator"]


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


# -- what a node run asks its driver for ------------------------------------
@dataclass(slots=True)
class RunAgent:
    """Run the agent node on ``messages`` as part of ``run``; send back its ``AgentResult``."""

    node: GraphNode
    messages: list[Message]
    run: _Run


@dataclass(slots=True)
class CallAsync:
    """Call the async callable node on ``state``; send back what it returned."""

    node: GraphNode
    state: GraphState


@dataclass(slots=True)
class StepAsyncGenerator:
    """Step an async generator node (see :func:`step_generator`); send back the pause or None."""

    node: GraphNode
    gen: Any
    answers: list[Any]
    live: bool


@dataclass(slots=True)
class RunSubgraph:
    """Run the subgraph node on ``state`` as a child of ``run``; send back its ``GraphResult``."""

    node: GraphNode
    state: GraphState
    run: _Run


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


# -- the node run, once ------------------------------------------------------
def _call(node: GraphNode, state: GraphState, started: float) -> NodeOutcome:
    """A plain callable node (no effect: it runs the same blocking and awaiting)."""
    outcome = NodeOutcome(_returned(node, node.target(state), state), None, started)
    outcome.ended = now()
    return outcome


def node_program(
    node: GraphNode, state: GraphState, run: _Run, live: Any = None
) -> Generator[Any, Any, NodeOutcome]:
    """Run ``node`` once on ``state``. ``live``: a paused generator to continue with the next answer."""
    started = now()
    kind = node.kind
    if kind == "sync":
        return _call(node, state, started)
    if kind in ("gen", "agen"):
        answers = state._interrupt_responses.get(node.name, [])
        gen = live if live is not None else node.target(state)
        if kind == "gen":
            paused = step_generator(node, gen, answers, live is not None)
        else:
            paused = yield StepAsyncGenerator(node, gen, answers, live is not None)
        return _finish(node, state, paused, started)
    if kind == "agent":
        result = yield RunAgent(node, node.agent_input(state), run)
        _check_agent(result)
        outcome = NodeOutcome(node.agent_output(result, state), result, started)
    elif kind == "async":
        returned = yield CallAsync(node, state)
        outcome = NodeOutcome(_returned(node, returned, state), None, started)
    else:  # graph
        sub = yield RunSubgraph(node, _subgraph_state(node, state), run)
        outcome = NodeOutcome(_subgraph_back(node, state, sub), None, started)
        outcome.sub = sub
    outcome.ended = now()
    return outcome


# -- performing its effects ----------------------------------------------------
_GENERATORS: list[Portal] = []
_GENERATORS_LOCK = threading.Lock()


def generator_portal() -> Portal:
    """The portal sync runs step async generator nodes on: one per process, closed at exit."""
    with _GENERATORS_LOCK:
        if not _GENERATORS:
            import atexit

            from .._portal import Portal

            _GENERATORS.append(Portal("graph-generators"))
            atexit.register(_GENERATORS[0].close)
    return _GENERATORS[0].start()


def _perform_sync(effect: Any) -> Any:
    kind = type(effect)
    if kind is RunAgent:
        run = effect.run
        return effect.node.target.run(
            effect.messages, parent_run_id=run.run_id, cancellation_token=run.token
        )
    if kind is CallAsync:
        from .._async_bridge import run_sync

        return run_sync(effect.node.target(effect.state))
    if kind is StepAsyncGenerator:
        # one long-lived portal: a paused async generator must outlive this call (a loop
        # that closes runs shutdown_asyncgens, which would finalize it at its yield)
        return generator_portal().call(
            astep_generator(effect.node, effect.gen, effect.answers, effect.live)
        )
    if kind is RunSubgraph:
        return effect.node.target._run_sync(effect.state, effect.run)
    raise TypeError(f"unknown node effect {effect!r}")


async def _perform_async(on_chunk: Callable[[str], None] | None, effect: Any) -> Any:
    kind = type(effect)
    if kind is RunAgent:
        return await _run_agent_async(effect, on_chunk)
    if kind is CallAsync:
        return await effect.node.target(effect.state)
    if kind is StepAsyncGenerator:
        return await astep_generator(effect.node, effect.gen, effect.answers, effect.live)
    if kind is RunSubgraph:
        return await effect.node.target._run_async(effect.state, effect.run)
    raise TypeError(f"unknown node effect {effect!r}")


async def _run_agent_async(effect: RunAgent, on_chunk: Callable[[str], None] | None) -> AgentResult:
    """``arun``; with ``on_chunk``, ``astream`` handing it each text delta."""
    agent, run = effect.node.target, effect.run
    if on_chunk is None:
        result: AgentResult = await agent.arun(
            effect.messages, parent_run_id=run.run_id, cancellation_token=run.token
        )
        return result
    final = None
    async for item in agent.astream(
        effect.messages, parent_run_id=run.run_id, cancellation_token=run.token
    ):
        if isinstance(item, AgentResult):
            final = item
        elif item.content:
            on_chunk(item.content)
    assert final is not None
    return final


def run_node_sync(node: GraphNode, state: GraphState, run: _Run, live: Any = None) -> NodeOutcome:
    """Run ``node`` once, blocking."""
    if node.kind == "sync":
        return _call(node, state, now())
    outcome: NodeOutcome = drive_sync(node_program(node, state, run, live), _perform_sync, catch=())
    return outcome


async def run_node_async(
    node: GraphNode,
    state: GraphState,
    run: _Run,
    live: Any = None,
    on_chunk: Callable[[str], None] | None = None,
) -> NodeOutcome:
    """Run ``node`` once on the event loop; ``on_chunk`` gets an agent node's text as it streams."""
    if node.kind == "sync":
        return _call(node, state, now())
    outcome: NodeOutcome = await drive_async(
        node_program(node, state, run, live), partial(_perform_async, on_chunk), catch=()
    )
    return outcome
