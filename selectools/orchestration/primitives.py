"""What nodes and routers return to steer a graph: ``goto``, ``update``, ``Scatter``, ``InterruptRequest``."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

__all__ = ["ErrorPolicy", "Goto", "InterruptRequest", "Scatter", "Update", "goto", "update"]


class ErrorPolicy(str, Enum):
    """What a failing node does to the run: abort it, skip the node, or retry it."""

    ABORT = "abort"
    SKIP = "skip"
    RETRY = "retry"


@dataclass(frozen=True, slots=True)
class Goto:
    """Routing directive: continue at ``node`` (a node name or ``AgentGraph.END``)."""

    node: str


@dataclass(frozen=True, slots=True)
class Update:
    """Routing directive: merge ``patch`` into ``state.data``, then follow the static edge."""

    patch: dict[str, Any]
    node: str | None = None


def goto(node: str) -> Goto:
    """A router's answer that jumps to ``node``."""
    return Goto(node)


def update(patch: dict[str, Any], goto: str | None = None) -> Update:
    """A router's answer that merges ``patch`` into ``state.data``, then goes to ``goto`` (or the static edge)."""
    return Update(dict(patch), goto)


@dataclass(slots=True)
class Scatter:
    """One dynamic parallel branch: run ``node_name`` on a copy of the state patched with ``state_patch``."""

    node_name: str
    state_patch: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class InterruptRequest:
    """Yielded by a generator node to pause the graph for a human answer.

    The answer passed to ``graph.resume(interrupt_id, answer)`` is the value of
    the ``yield`` expression. ``key`` tells several interrupts of one node apart.
    """

    prompt: str = ""
    payload: Any = None
    key: str = ""
