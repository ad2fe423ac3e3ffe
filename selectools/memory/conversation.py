"""``ConversationMemory``: the conversation an agent keeps across runs, as a sliding window.

Limits are enforced on every add, in order: the message count
(``max_messages``), then the estimated token count (``max_tokens``, keeping at
least one message), then the tool-pair boundary: the window never starts with
a tool result (its call was trimmed) or with an assistant message that made
tool calls, which providers reject. That last rule wins over "keep one": an
orphaned tool result is dropped even if the memory ends up empty.

:class:`Memory` is what an agent needs from any memory: a conversation it can
read, extend and clear. :meth:`ConversationMemory.extend` returns the messages
that add trimmed; the agent reports them as ``on_memory_trim`` and, with ``AgentConfig(summarize_on_trim=True)``,
folds them into :attr:`ConversationMemory.summary`. Methods are thread-safe, so
one memory can serve concurrent runs (``agent.batch``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

from ..providers.base import estimate_tokens
from ..types import Message, Role, text_content

__all__ = ["ConversationMemory", "Memory"]


@runtime_checkable
class Memory(Protocol):
    """What ``Agent(memory=...)`` needs: :class:`ConversationMemory` is the implementation.

    ``extend`` adds the messages and enforces the memory's limits in one step,
    returning the messages it dropped (oldest first), which the agent reports as
    ``on_memory_trim`` and may summarize (``AgentConfig(summarize_on_trim=True)``)
    into ``summary``, which later runs add to the system prompt.
    """

    summary: str | None

    def extend(self, messages: Iterable[Message]) -> list[Message]: ...

    def get_history(self) -> list[Message]: ...

    def clear(self) -> None: ...

    def __len__(self) -> int: ...


def _check_limit(name: str, value: Any, optional: bool) -> None:
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1")


class ConversationMemory:
    """Keeps the most recent ``max_messages`` messages (and at most ``max_tokens``, if set)."""

    def __init__(self, max_messages: int = 20, max_tokens: int | None = None) -> None:
        _check_limit("max_messages", max_messages, optional=False)
        _check_limit("max_tokens", max_tokens, optional=True)
        self.max_messages = max_messages
        self.max_tokens = max_tokens
        self._messages: list[Message] = []
        self._summary: str | None = None
        self._last_trimmed: list[Message] = []
        self._lock = threading.RLock()

    # -- adding -------------------------------------------------------------
    def add(self, message: Message) -> None:
        """Add one message, then enforce the limits."""
        self.extend((message,))

    def add_many(self, messages: Iterable[Message]) -> None:
        """Add several messages, then enforce the limits once."""
        self.extend(messages)

    def extend(self, messages: Iterable[Message]) -> list[Message]:
        """Add messages and enforce the limits atomically; returns what this add trimmed (oldest first)."""
        new = list(messages)
        for message in new:
            if not isinstance(message, Message):
                raise TypeError(
                    f"ConversationMemory stores Message objects, got {type(message).__name__}"
                )
        with self._lock:
            self._messages.extend(new)
            self._enforce_limits()
            return self._last_trimmed

    # -- reading ------------------------------------------------------------
    def get_history(self) -> list[Message]:
        """The whole conversation (a copy: changing it does not change the memory)."""
        with self._lock:
            return list(self._messages)

    def get_recent(self, n: int) -> list[Message]:
        """The last ``n`` messages (all of them when there are fewer)."""
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"n must be an int, got {type(n).__name__}")
        if n < 1:
            raise ValueError("n must be at least 1")
        with self._lock:
            return self._messages[-n:]

    def clear(self) -> None:
        """Forget every message and the summary (start a new conversation)."""
        with self._lock:
            self._messages.clear()
            self._summary = None
            self._last_trimmed = []

    @property
    def summary(self) -> str | None:
        """A summary of trimmed messages (summarize-on-trim), or ``None``."""
        return self._summary

    @summary.setter
    def summary(self, value: str | None) -> None:
        if value is not None and not isinstance(value, str):
            raise TypeError(f"summary must be a str or None, got {type(value).__name__}")
        self._summary = value

    def __len__(self) -> int:
        return len(self._messages)

    def __repr__(self) -> str:
        return (
            f"ConversationMemory(messages={len(self._messages)}, max_messages={self.max_messages}, "
            f"max_tokens={self.max_tokens})"
        )

    # -- limits -------------------------------------------------------------
    def _enforce_limits(self) -> None:
        messages = self._messages
        trimmed: list[Message] = []
        if len(messages) > self.max_messages:
            excess = len(messages) - self.max_messages
            trimmed.extend(messages[:excess])
            del messages[:excess]
        if self.max_tokens is not None:
            sizes = [estimate_tokens(text_content(m)) for m in messages]
            total = sum(sizes)
            drop = 0
            while len(messages) - drop > 1 and total > self.max_tokens:
                total -= sizes[drop]
                drop += 1
            trimmed.extend(messages[:drop])
            del messages[:drop]
        trimmed.extend(self._fix_tool_pair_boundary())
        self._last_trimmed = trimmed

    def _fix_tool_pair_boundary(self) -> list[Message]:
        """Drop leading tool results and tool-calling assistant turns; returns what was dropped."""
        messages = self._messages
        drop = 0
        while drop < len(messages):
            first = messages[drop]
            if first.role is Role.TOOL or (first.role is Role.ASSISTANT and first.tool_calls):
                drop += 1
                continue
            break
        removed = messages[:drop]
        del messages[:drop]
        return removed

    # -- persistence ----------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The memory as JSON-ready data (limits, messages and summary)."""
        with self._lock:
            return {
                "max_messages": self.max_messages,
                "max_tokens": self.max_tokens,
                "message_count": len(self._messages),
                "messages": [message.to_dict() for message in self._messages],
                "summary": self._summary,
            }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ConversationMemory:
        """Rebuild a memory from :meth:`to_dict` output, dropping nothing but orphaned tool turns."""
        if not isinstance(data, dict):
            raise TypeError(f"from_dict expects a dict from to_dict(), got {type(data).__name__}")
        if "max_messages" not in data or "messages" not in data:
            raise ValueError(
                "from_dict needs the 'max_messages' and 'messages' keys that to_dict() writes; "
                f"got keys {sorted(data)}"
            )
        memory = cls(max_messages=data["max_messages"], max_tokens=data.get("max_tokens"))
        memory._restore(data["messages"], data.get("summary"))
        return memory

    def _restore(self, messages: Iterable[Any], summary: str | None) -> None:
        """Replace the contents with saved messages (dicts or Messages) without trimming."""
        restored = [m if isinstance(m, Message) else Message.from_dict(m) for m in messages]
        with self._lock:
            self._messages = restored
            self._fix_tool_pair_boundary()
            self.summary = summary
            self._last_trimmed = []
