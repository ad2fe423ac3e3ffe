"""The state a graph passes from node to node, and how parallel branches merge back.

``GraphState`` is a plain mutable object: nodes read it and write it, and the
engine owns only ``current_node`` and the bookkeeping a checkpoint needs to
resume an interrupted generator node (kept out of :meth:`GraphState.to_dict`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any

from ..stability import beta
from ..types import AgentResult, Message, Role

__all__ = ["STATE_KEY_LAST_OUTPUT", "ContextMode", "GraphState", "MergePolicy", "merge_states"]

STATE_KEY_LAST_OUTPUT = "__last_output__"
"""The key of ``state.data`` every node's output is handed on under."""


class ContextMode(str, Enum):
    """What conversation an Agent node sees (``LAST_MESSAGE`` keeps contexts small)."""

    LAST_MESSAGE = "last_message"
    LAST_N = "last_n"
    FULL = "full"
    SUMMARY = "summary"
    CUSTOM = "custom"


class MergePolicy(str, Enum):
    """How the ``data`` of parallel branches is combined (messages/history/errors always concatenate)."""

    LAST_WINS = "last_wins"
    FIRST_WINS = "first_wins"
    APPEND = "append"


@beta
class GraphState:
    """Shared context of one graph run: messages, data, history, metadata and errors."""

    __slots__ = (
        "_interrupt_responses",
        "_pending_node",
        "current_node",
        "data",
        "errors",
        "history",
        "messages",
        "metadata",
    )

    def __init__(
        self,
        messages: list[Message] | None = None,
        data: dict[str, Any] | None = None,
        current_node: str = "",
        history: list[tuple[str, AgentResult]] | None = None,
        metadata: dict[str, Any] | None = None,
        errors: list[dict[str, Any]] | None = None,
    ) -> None:
        self.messages: list[Message] = messages if messages is not None else []
        self.data: dict[str, Any] = data if data is not None else {}
        self.current_node = current_node
        self.history: list[tuple[str, AgentResult]] = history if history is not None else []
        self.metadata: dict[str, Any] = metadata if metadata is not None else {}
        self.errors: list[dict[str, Any]] = errors if errors is not None else []
        # node name -> the answers given so far to that node's InterruptRequests
        self._interrupt_responses: dict[str, list[Any]] = {}
        self._pending_node: str | None = None

    @classmethod
    def from_prompt(cls, prompt: str) -> GraphState:
        return cls(messages=[Message(Role.USER, prompt)])

    @property
    def last_output(self) -> Any:
        return self.data.get(STATE_KEY_LAST_OUTPUT, "")

    @last_output.setter
    def last_output(self, value: Any) -> None:
        self.data[STATE_KEY_LAST_OUTPUT] = value

    # -- copies ------------------------------------------------------------
    def branch(self) -> GraphState:
        """A copy for a parallel branch: lists copied, ``data`` deep-copied, results shared."""
        state = GraphState(
            list(self.messages),
            copy.deepcopy(self.data),
            self.current_node,
            list(self.history),
            dict(self.metadata),
            list(self.errors),
        )
        state._interrupt_responses = {k: list(v) for k, v in self._interrupt_responses.items()}
        return state

    # -- serialisation -------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (history keeps each node's output text)."""
        return {
            "messages": [m.to_dict() for m in self.messages],
            "data": self.data,
            "current_node": self.current_node,
            "history": [[name, result.content] for name, result in self.history],
            "metadata": self.metadata,
            "errors": self.errors,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GraphState:
        return cls(
            messages=[Message.from_dict(m) for m in data.get("messages", [])],
            data=dict(data.get("data", {})),
            current_node=data.get("current_node", ""),
            history=[
                (name, AgentResult(Message(Role.ASSISTANT, text)))
                for name, text in data.get("history", [])
            ],
            metadata=dict(data.get("metadata", {})),
            errors=list(data.get("errors", [])),
        )

    def _checkpoint_dict(self) -> dict[str, Any]:
        """``to_dict`` plus what resuming an interrupt needs."""
        out = self.to_dict()
        out["_interrupt_responses"] = self._interrupt_responses
        out["_pending_node"] = self._pending_node
        return out

    @classmethod
    def _from_checkpoint(cls, data: dict[str, Any]) -> GraphState:
        state = cls.from_dict(data)
        state._interrupt_responses = {
            k: list(v) for k, v in data.get("_interrupt_responses", {}).items()
        }
        state._pending_node = data.get("_pending_node")
        return state

    def __repr__(self) -> str:
        keys = ", ".join(k for k in self.data if k != STATE_KEY_LAST_OUTPUT)
        return (
            f"GraphState(node={self.current_node!r}, messages={len(self.messages)}, "
            f"data=[{keys}], history={len(self.history)}, errors={len(self.errors)})"
        )


_MISSING = object()


def merge_states(
    parent: GraphState,
    branches: Sequence[GraphState],
    policy: MergePolicy = MergePolicy.LAST_WINS,
    merge_fn: Callable[[list[GraphState]], GraphState] | None = None,
) -> GraphState:
    """Fold branch states (each started as ``parent.branch()``) back into one state.

    Only what a branch changed counts: a key a branch left alone never
    overwrites another branch's write. New messages, history entries and errors
    of every branch are appended in branch order.
    """
    if merge_fn is not None:
        merged = merge_fn(list(branches))
        merged.metadata = {**parent.metadata, **merged.metadata}
        return merged
    n_messages, n_history, n_errors = len(parent.messages), len(parent.history), len(parent.errors)
    base = parent.data
    data = dict(base)
    written: set[str] = set()
    for branch in branches:
        for key, value in branch.data.items():
            old = base.get(key, _MISSING)
            if old is not _MISSING and (value is old or _same(value, old)):
                continue  # untouched by this branch
            if key not in written:
                data[key] = value
            elif policy is MergePolicy.FIRST_WINS:
                continue
            elif policy is MergePolicy.APPEND and isinstance(value, list):
                current = data[key]
                if isinstance(current, list):
                    new = (
                        value[len(old) :]
                        if isinstance(old, list) and value[: len(old)] == old
                        else value
                    )
                    data[key] = current + new
                else:
                    data[key] = value
            else:
                data[key] = value
            written.add(key)
    merged = GraphState(
        list(parent.messages),
        data,
        parent.current_node,
        list(parent.history),
        parent.metadata,
        list(parent.errors),
    )
    merged._interrupt_responses = parent._interrupt_responses
    for branch in branches:
        merged.messages.extend(branch.messages[n_messages:])
        merged.history.extend(branch.history[n_history:])
        merged.errors.extend(branch.errors[n_errors:])
    return merged


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False
