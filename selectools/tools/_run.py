"""Turning whatever a tool function returns into the text the LLM sees.

A function may return a value, a generator (streamed chunk by chunk), a
coroutine or an async generator. Chunks are ``str()``-ed, passed to the chunk
callback as they arrive and concatenated into the result; ``None`` becomes
``""``. asyncio is imported only when something asynchronous is involved.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
from collections.abc import AsyncGenerator, Callable, Generator
from types import GeneratorType
from typing import Any

__all__ = ["ChunkCallback", "call_in_executor", "finish_async", "finish_sync", "to_text"]

ChunkCallback = Callable[[str], Any]

_DONE = object()


def _next_or_done(gen: Generator[Any, Any, Any]) -> Any:
    return next(gen, _DONE)


def to_text(result: Any) -> str:
    if result is None:
        return ""
    return result if isinstance(result, str) else str(result)


def _drain(gen: Generator[Any, Any, Any], callback: ChunkCallback | None) -> str:
    chunks: list[str] = []
    try:
        for chunk in gen:
            text = str(chunk)
            chunks.append(text)
            if callback is not None:
                callback(text)
    finally:
        gen.close()
    return "".join(chunks)


async def _adrain(agen: AsyncGenerator[Any, Any], callback: ChunkCallback | None) -> str:
    chunks: list[str] = []
    try:
        async for chunk in agen:
            text = str(chunk)
            chunks.append(text)
            if callback is not None:
                callback(text)
    finally:
        await agen.aclose()
    return "".join(chunks)


def finish_sync(result: Any, callback: ChunkCallback | None) -> str:
    """Text of a sync call's result; awaitables are run to completion via ``run_sync``."""
    if isinstance(result, GeneratorType):
        return _drain(result, callback)
    if inspect.isasyncgen(result) or inspect.isawaitable(result):
        from .._async_bridge import run_sync

        return run_sync(finish_async(result, callback))
    return to_text(result)


async def finish_async(result: Any, callback: ChunkCallback | None) -> str:
    """Text of a result inside an event loop: await coroutines, consume async generators."""
    if inspect.isasyncgen(result):
        return await _adrain(result, callback)
    if inspect.isawaitable(result):
        result = await result
    if isinstance(result, GeneratorType):
        return _drain(result, callback)
    return to_text(result)


async def call_in_executor(
    function: Callable[..., Any], args: dict[str, Any], callback: ChunkCallback | None
) -> str:
    """Run a sync function in the loop's default executor with the caller's contextvars.

    A sync generator is advanced one chunk per executor hop, so its body never
    blocks the loop while the chunk callback runs on the loop's thread (where
    an ``asyncio.Queue`` or an async observer can safely receive it).
    """
    import asyncio

    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    result = await loop.run_in_executor(None, functools.partial(context.run, function, **args))
    if not isinstance(result, GeneratorType):
        return await finish_async(result, callback)
    chunks: list[str] = []
    finished = False
    try:
        while True:
            chunk = await loop.run_in_executor(None, context.run, _next_or_done, result)
            if chunk is _DONE:
                finished = True
                break
            text = str(chunk)
            chunks.append(text)
            if callback is not None:
                callback(text)
    finally:
        if not finished:
            # ValueError: still running in the worker thread (cancelled mid-chunk)
            with contextlib.suppress(ValueError):
                result.close()
    return "".join(chunks)
