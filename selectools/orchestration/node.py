"""Graph nodes: what a node wraps, its kind, and how an agent node's input and output are shaped.

A node wraps an :class:`~selectools.Agent`, a sync or async callable
``(GraphState) -> GraphState | None``, a sync or async generator (a node that
can pause with :class:`InterruptRequest`), or another graph. The kind is worked
out once, when the node is added, so running it (:mod:`._node_run`) is one
branch on a string.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..stability import beta
from ..types import AgentResult, Message, Role
from .primitives import ErrorPolicy
from .state import STATE_KEY_LAST_OUTPUT, ContextMode, GraphState, MergePolicy

if TYPE_CHECKING:
    from .graph import AgentGraph

__all__ = ["GraphNode", "ParallelGroupNode", "SubgraphNode"]


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


def _digest(state: GraphState) -> str:
    """SUMMARY mode: a compact digest of the conversation so far (one line per message)."""
    lines = []
    for message in state.messages:
        text = message.text.replace("\n", " ")
        lines.append(f"{message.role.value}: {text[:200]}")
    return "Summary of the conversation so far:\n" + "\n".join(lines)
