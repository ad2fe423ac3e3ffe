"""Multi-agent orchestration: ``AgentGraph`` and its state, nodes, routing, checkpoints and events."""

from __future__ import annotations

from ..exceptions import GraphExecutionError
from .checkpoint import (
    CheckpointMetadata,
    CheckpointStore,
    CheckpointStoreError,
    FileCheckpointStore,
    InMemoryCheckpointStore,
    PostgresCheckpointStore,
    SQLiteCheckpointStore,
)
from .events import GraphEvent, GraphEventType
from .graph import AgentGraph, GraphResult
from .node import GraphNode, ParallelGroupNode, SubgraphNode
from .primitives import ErrorPolicy, InterruptRequest, Scatter, goto, update
from .state import STATE_KEY_LAST_OUTPUT, ContextMode, GraphState, MergePolicy
from .supervisor import ModelSplit, SupervisorAgent, SupervisorStrategy

__all__ = [
    "STATE_KEY_LAST_OUTPUT",
    "AgentGraph",
    "CheckpointMetadata",
    "CheckpointStore",
    "CheckpointStoreError",
    "ContextMode",
    "ErrorPolicy",
    "FileCheckpointStore",
    "GraphEvent",
    "GraphEventType",
    "GraphExecutionError",
    "GraphNode",
    "GraphResult",
    "GraphState",
    "InMemoryCheckpointStore",
    "InterruptRequest",
    "MergePolicy",
    "ModelSplit",
    "ParallelGroupNode",
    "PostgresCheckpointStore",
    "SQLiteCheckpointStore",
    "Scatter",
    "SubgraphNode",
    "SupervisorAgent",
    "SupervisorStrategy",
    "goto",
    "update",
]
