"""``gather_bounded``: await one call per item, at most ``limit`` at a time, in ``limit`` tasks.

A task per item behind a semaphore holds every item's task and coroutine at once
(100,000 eval cases are 100,000 tasks waiting). Here ``limit`` workers each take
the next item as they finish one, so the tasks alive stay at ``limit`` whatever
the number of items; the results keep the items' order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

__all__ = ["gather_bounded"]

T = TypeVar("T")
R = TypeVar("R")


async def gather_bounded(
    items: Sequence[T], call: Callable[[int, T], Awaitable[R]], limit: int
) -> list[R]:
    """``[await call(i, item) for i, item in enumerate(items)]``, ``limit`` at a time."""
    if limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit!r}")
    results: list[R | None] = [None] * len(items)
    pending = iter(enumerate(items))

    async def worker() -> None:
        for index, item in pending:
            results[index] = await call(index, item)

    await asyncio.gather(*(worker() for _ in range(min(limit, len(items)))))
    return results  # type: ignore[return-value]  # every slot was filled
