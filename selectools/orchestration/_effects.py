"""What the graph engine asks its driver to do: run one node, or run branches side by side.

The engine (:mod:`._engine`) is a generator that yields these and gets back
what running them produced (a :class:`~.node.NodeOutcome`, or one per branch);
the drivers (:mod:`._drivers`) perform them sync or async. Typed effects, as
the agent loop's ``agent/_effects.py``, so a driver branches on the class.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .node import GraphNode
    from .state import GraphState

__all__ = ["RunBranches", "RunNode"]


@dataclass(slots=True)
class RunNode:
    """Run ``node`` once on ``state``; the driver sends back its ``NodeOutcome``."""

    node: GraphNode
    state: GraphState


@dataclass(slots=True)
class RunBranches:
    """Run each ``(node, state)`` concurrently; the driver sends back their outcomes in order."""

    branches: list[tuple[GraphNode, GraphState]]
