"""What ``agent.stream()`` returns: the run's items, and the text streamed so far.

Iterating an :class:`AgentStream` iterates the run's own generator (``iter()``
hands it over), so a ``for`` loop costs exactly what it did before. A display
that redraws on its own schedule asks :attr:`~AgentStream.partial_text` for the
text of the model call in progress instead of keeping every chunk: the run
already collects those deltas to build the model's message, and this reads that
same list.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..types import AgentResult, StreamChunk

if TYPE_CHECKING:
    from ._context import RunContext

__all__ = ["AgentStream"]

Item = StreamChunk | AgentResult


class AgentStream:
    """An iterator of :class:`StreamChunk` text deltas, then exactly one :class:`AgentResult`.

    ``model_calls`` counts the streamed model calls started so far (retries
    included) and ``partial_text`` is the text the latest of them has streamed;
    both may be read from any thread while the run goes on. ``close()`` ends the
    run early, as it does for any generator.
    """

    __slots__ = ("_ctx", "_items")

    def __init__(self, ctx: RunContext, items: Iterator[Item]) -> None:
        self._ctx = ctx
        self._items = items

    def __iter__(self) -> Iterator[Item]:
        return self._items

    def __next__(self) -> Item:
        return next(self._items)

    def close(self) -> None:
        close = getattr(self._items, "close", None)
        if close is not None:
            close()

    @property
    def model_calls(self) -> int:
        return self._ctx.stream_calls

    @property
    def partial_text(self) -> str:
        parts = self._ctx.stream_parts
        return "".join(parts) if parts else ""

    def __repr__(self) -> str:
        return f"AgentStream(run_id={self._ctx.run_id!r}, model_calls={self.model_calls})"
