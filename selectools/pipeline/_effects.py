"""What a step asks its driver for, and how each request is performed blocking or awaiting.

A step is an effect program (:mod:`selectools._driver`). Plain functions and
sync generators are called the same way in ``run`` and ``arun``, so the step
calls them itself; only three things differ between the two and are yielded as
effects: an async function (or async generator) to await, an agent to run, and
branches to run side by side (one after the other when blocking, gathered when
awaiting).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from .._driver import drive_async, drive_sync

__all__ = ["Await", "RunAgent", "Together", "collect", "perform_async", "perform_sync"]


@dataclass(slots=True)
class Await:
    """Call the async ``fn(value, **kwargs)``; ``drain``: it is an async generator, collect it."""

    fn: Callable[..., Any]
    value: Any
    kwargs: dict[str, Any]
    drain: bool


@dataclass(slots=True)
class RunAgent:
    """Run ``agent`` on ``prompt``; the driver sends back its ``AgentResult``."""

    agent: Any
    prompt: Any


@dataclass(slots=True)
class Together:
    """Run each step program; the driver sends back their results in order."""

    programs: list[Generator[Any, Any, Any]]


def collect(chunks: list[Any]) -> Any:
    """The output of a generator step outside streaming: joined text, or the list of chunks."""
    if all(isinstance(c, str) for c in chunks):
        return "".join(chunks)
    return chunks


async def _awaited(effect: Await) -> Any:
    if effect.drain:
        return collect([chunk async for chunk in effect.fn(effect.value, **effect.kwargs)])
    return await effect.fn(effect.value, **effect.kwargs)


def perform_sync(effect: Any) -> Any:
    kind = type(effect)
    if kind is Await:
        from .._async_bridge import run_sync

        return run_sync(_awaited(effect))
    if kind is RunAgent:
        return effect.agent.run(effect.prompt)
    if kind is Together:
        return [drive_sync(p, perform_sync, catch=Exception) for p in effect.programs]
    raise TypeError(f"unknown pipeline effect {effect!r}")


async def perform_async(effect: Any) -> Any:
    kind = type(effect)
    if kind is Await:
        return await _awaited(effect)
    if kind is RunAgent:
        return await effect.agent.arun(effect.prompt)
    if kind is Together:
        return await _together(effect.programs)
    raise TypeError(f"unknown pipeline effect {effect!r}")


async def _together(programs: Any) -> list[Any]:
    """The branches' results, gathered; the first failure cancels the others (as ``run`` stops)."""
    import asyncio

    tasks = [
        asyncio.ensure_future(drive_async(p, perform_async, catch=Exception)) for p in programs
    ]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
