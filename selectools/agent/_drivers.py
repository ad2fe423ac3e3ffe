"""Drivers: perform the loop's effects, blocking or awaiting, streaming or not.

Providers are called through :mod:`selectools.providers._adapt`, which knows how
to call any provider (sync only, async only, text-only streams) in one place.

``drive_sync`` never touches asyncio, so ``agent.run()`` works inside a running
event loop (a notebook cell) without nest_asyncio; coroutine-only providers or
async tools called from it run on a private loop in a worker thread.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from .._current_run import bind_run, unbind_run
from ..exceptions import ProviderError
from ..providers._adapt import acomplete, astream, complete, stream
from ..providers.base import AnyProvider, LLMRequest, estimate_usage
from ..types import AgentResult, Message, Role, StreamChunk, ToolCall
from ..usage import UsageStats
from ._approval_wait import ask_async, ask_sync
from ._context import RunContext
from ._effects import AskApproval, CallBlocking, CallLLM, RunTools, Sleep
from ._program import Program
from ._tool_jobs import run_jobs_async, run_jobs_sync

__all__ = [
    "StreamAccumulator",
    "drive_async",
    "drive_async_stream",
    "drive_sync",
    "drive_sync_stream",
]


class StreamAccumulator:
    """Collects streamed items into the ``(Message, UsageStats)`` a ``complete`` call returns."""

    __slots__ = ("parts", "tool_calls", "usage")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.tool_calls: list[ToolCall] = []
        self.usage: UsageStats | None = None

    def add(self, item: Any) -> str:
        """Record one streamed item; returns its text ("" for non-text items)."""
        if isinstance(item, str):
            self.parts.append(item)
            return item
        if isinstance(item, ToolCall):
            self.tool_calls.append(item)
        elif isinstance(item, UsageStats):
            self.usage = item
        elif isinstance(item, StreamChunk):
            if item.tool_calls:
                self.tool_calls.extend(item.tool_calls)
            if item.content:
                self.parts.append(item.content)
                return item.content
        else:
            raise ProviderError(
                f"provider stream yielded {type(item).__name__}; expected str, ToolCall or UsageStats",
                retryable=False,
            )
        return ""

    def finish(self, request: LLMRequest, provider_name: str) -> tuple[Message, UsageStats]:
        text = "".join(self.parts)
        message = Message(role=Role.ASSISTANT, content=text, tool_calls=self.tool_calls or None)
        usage = self.usage or estimate_usage(
            request.model, provider_name, request.system_prompt, request.messages, text
        )
        return message, usage


#: a model call still running at the run's deadline is given up on this long after it
#: (its own timeout, cut to the deadline, normally fires first and closes the connection)
_DEADLINE_GRACE = 0.5


def _deadline_error(ctx: RunContext) -> ProviderError:
    return ProviderError(
        f"the model call did not finish before run_timeout={ctx.config.run_timeout:g}s "
        "(the server kept the response open) and was abandoned",
        provider=ctx.provider_name,
        retryable=True,
    )


def _complete_sync(
    ctx: RunContext, provider: AnyProvider, request: LLMRequest
) -> tuple[Message, UsageStats]:
    """``complete``; with a ``run_timeout``, given up on at the deadline.

    A blocking SDK call cannot be interrupted, and a server that sends its body a
    byte at a time never trips a per-read timeout: the call runs in a worker
    thread (context copied) and is abandoned when the run's time is up.
    """
    if ctx.deadline is None:
        return complete(provider, request)
    outcome: list[tuple[bool, Any]] = []
    done = threading.Event()
    context = contextvars.copy_context()

    def work() -> None:
        try:
            outcome.append((True, context.run(complete, provider, request)))
        except BaseException as exc:
            outcome.append((False, exc))
        finally:
            done.set()

    threading.Thread(target=work, name="selectools-llm-call", daemon=True).start()
    if not done.wait(max(ctx.time_left() or 0.0, 0.0) + _DEADLINE_GRACE):
        raise _deadline_error(ctx)
    ok, value = outcome[0]
    if not ok:
        raise value
    reply: tuple[Message, UsageStats] = value  # what complete() returned in the thread
    return reply


async def _acomplete_by_deadline(
    ctx: RunContext, provider: AnyProvider, request: LLMRequest
) -> tuple[Message, UsageStats]:
    """``acomplete``; with a ``run_timeout``, cancelled at the deadline."""
    if ctx.deadline is None:
        return await acomplete(provider, request)
    import asyncio

    wait = max(ctx.time_left() or 0.0, 0.0) + _DEADLINE_GRACE
    try:
        return await asyncio.wait_for(acomplete(provider, request), wait)
    except asyncio.TimeoutError:
        raise _deadline_error(ctx) from None


def _text_callback(ctx: RunContext) -> Callable[[str], None]:
    handler = ctx.stream_handler
    emit = ctx.emitter.emit

    def on_text(text: str) -> None:
        emit("on_stream_chunk", text, iteration=ctx.iteration)
        if handler is not None:
            handler(text)

    return on_text


# -- performing effects ------------------------------------------------------
def _call_llm_sync(ctx: RunContext, effect: CallLLM) -> tuple[Message, UsageStats]:
    token = bind_run(ctx.emitter)
    try:
        if not effect.stream:
            return _complete_sync(ctx, effect.provider or ctx.provider, effect.request)
        on_text = _text_callback(ctx)
        acc = StreamAccumulator()
        items = stream(ctx.provider, effect.request)
        for item in _until_cancelled(ctx, items) if _stoppable(ctx) else items:
            text = acc.add(item)
            if text:
                on_text(text)
        return acc.finish(effect.request, ctx.provider_name)
    finally:
        unbind_run(token)


def _perform_sync(ctx: RunContext, effect: Any) -> Any:
    kind = type(effect)
    if kind is CallLLM:
        return _call_llm_sync(ctx, effect)
    if kind is RunTools:
        return run_jobs_sync(effect.jobs, effect.parallel, effect.timeout, effect.deadline)
    if kind is Sleep:
        time.sleep(effect.seconds)
        return None
    if kind is CallBlocking:
        return effect.fn()
    if kind is AskApproval:
        return ask_sync(effect)
    raise TypeError(f"unknown effect {effect!r}")


async def _call_llm_async(ctx: RunContext, effect: CallLLM) -> tuple[Message, UsageStats]:
    token = bind_run(ctx.emitter)
    try:
        if not effect.stream:
            return await _acomplete_by_deadline(
                ctx, effect.provider or ctx.provider, effect.request
            )
        on_text = _text_callback(ctx)
        acc = StreamAccumulator()
        items = astream(ctx.provider, effect.request)
        async for item in _abound(ctx, items) if _stoppable(ctx) else items:
            text = acc.add(item)
            if text:
                on_text(text)
        return acc.finish(effect.request, ctx.provider_name)
    finally:
        unbind_run(token)


async def _perform_async(ctx: RunContext, effect: Any) -> Any:
    kind = type(effect)
    if kind is CallLLM:
        return await _call_llm_async(ctx, effect)
    if kind is RunTools:
        return await run_jobs_async(effect.jobs, effect.parallel, effect.timeout, effect.deadline)
    if kind is Sleep:
        import asyncio

        await asyncio.sleep(effect.seconds)
        return None
    if kind is CallBlocking:
        import asyncio

        return await asyncio.to_thread(effect.fn)
    if kind is AskApproval:
        return await ask_async(effect)
    raise TypeError(f"unknown effect {effect!r}")


def _stoppable(ctx: RunContext) -> bool:
    """A stream of this run may be cut: it has cancellation tokens or a deadline."""
    return bool(ctx.cancel_tokens) or ctx.deadline is not None


def _cancelled(ctx: RunContext) -> bool:
    """A token fired, or ``run_timeout`` passed (a stream that drips is cut between chunks)."""
    if ctx.deadline is not None and ctx.timed_out():
        return True
    return any(token.cancelled for token in ctx.cancel_tokens)


def _stop_reading(items: Any) -> None:
    """Cancelled mid-stream: close the provider's stream (and with it the connection)."""
    close = getattr(items, "close", None) or getattr(items, "aclose", None)
    if close is not None:
        result = close()
        if hasattr(result, "close"):  # an un-awaited aclose() coroutine: discard it
            result.close()


def _until_cancelled(ctx: RunContext, items: Iterator[Any]) -> Iterator[Any]:
    """``items`` until a token fires or the deadline passes (checked after each item)."""
    for item in items:
        yield item
        if _cancelled(ctx):
            _stop_reading(items)
            return


def _bound(ctx: RunContext, items: Iterator[Any]) -> Iterator[Any]:
    """Advance ``items`` with the run bound, but never across a yield to the consumer."""
    cancellable = _stoppable(ctx)
    while True:
        token = bind_run(ctx.emitter)
        try:
            item = next(items)
        except StopIteration:
            return
        finally:
            unbind_run(token)
        yield item
        if cancellable and _cancelled(ctx):
            _stop_reading(items)
            return


async def _abound(ctx: RunContext, items: AsyncIterator[Any]) -> AsyncIterator[Any]:
    iterator = items.__aiter__()
    cancellable = _stoppable(ctx)
    while True:
        token = bind_run(ctx.emitter)
        try:
            item = await iterator.__anext__()
        except StopAsyncIteration:
            return
        finally:
            unbind_run(token)
        yield item
        if cancellable and _cancelled(ctx):
            await _astop_reading(iterator)
            return


async def _astop_reading(items: Any) -> None:
    close = getattr(items, "aclose", None)
    if close is not None:
        await close()


# -- drivers -----------------------------------------------------------------
def drive_sync(ctx: RunContext, program: Program) -> AgentResult:
    value: Any = None
    error: BaseException | None = None
    send = program.send
    while True:
        try:
            effect = send(value) if error is None else program.throw(error)
        except StopIteration as stop:
            result: AgentResult = stop.value  # a Program returns its AgentResult
            return result
        value = error = None
        try:
            if type(effect) is CallLLM and not effect.stream:
                # the common effect, performed inline (it is most of a run's overhead)
                token = bind_run(ctx.emitter)
                try:
                    value = _complete_sync(ctx, effect.provider or ctx.provider, effect.request)
                finally:
                    unbind_run(token)
            else:
                value = _perform_sync(ctx, effect)
        except BaseException as exc:
            error = exc


async def drive_async(ctx: RunContext, program: Program) -> AgentResult:
    value: Any = None
    error: BaseException | None = None
    emitter = ctx.emitter
    try:
        while True:
            try:
                effect = program.send(value) if error is None else program.throw(error)
            except StopIteration as stop:
                result: AgentResult = stop.value  # a Program returns its AgentResult
                return result
            value = error = None
            await emitter.flush()
            try:
                value = await _perform_async(ctx, effect)
            except BaseException as exc:
                error = exc
    finally:
        await emitter.flush()


def drive_sync_stream(ctx: RunContext, program: Program) -> Iterator[StreamChunk | AgentResult]:
    """Like :func:`drive_sync`, yielding a :class:`StreamChunk` per text delta."""
    value: Any = None
    error: BaseException | None = None
    emit = ctx.emitter.emit
    try:
        while True:
            try:
                effect = program.send(value) if error is None else program.throw(error)
            except StopIteration as stop:
                yield stop.value
                return
            value = error = None
            acc = None
            try:
                if type(effect) is CallLLM and effect.stream:
                    acc = StreamAccumulator()
                    ctx.stream_calls += 1
                    ctx.stream_parts = acc.parts
                    for item in _bound(ctx, stream(ctx.provider, effect.request)):
                        text = acc.add(item)
                        if text:
                            emit("on_stream_chunk", text, iteration=ctx.iteration)
                            yield StreamChunk(content=text, iteration=ctx.iteration)
                    if acc.tool_calls:
                        yield StreamChunk(tool_calls=list(acc.tool_calls), iteration=ctx.iteration)
                    value = acc.finish(effect.request, ctx.provider_name)
                else:
                    value = _perform_sync(ctx, effect)
            except GeneratorExit:
                raise
            except BaseException as exc:
                error = exc
                if acc is not None and acc.parts:
                    yield StreamChunk(iteration=ctx.iteration, restart=True)
    finally:
        program.close()


async def drive_async_stream(
    ctx: RunContext, program: Program
) -> AsyncIterator[StreamChunk | AgentResult]:
    """Like :func:`drive_async`, yielding a :class:`StreamChunk` per text delta."""
    value: Any = None
    error: BaseException | None = None
    emitter = ctx.emitter
    try:
        while True:
            try:
                effect = program.send(value) if error is None else program.throw(error)
            except StopIteration as stop:
                await emitter.flush()
                yield stop.value
                return
            value = error = None
            await emitter.flush()
            acc = None
            try:
                if type(effect) is CallLLM and effect.stream:
                    acc = StreamAccumulator()
                    ctx.stream_calls += 1
                    ctx.stream_parts = acc.parts
                    async for item in _abound(ctx, astream(ctx.provider, effect.request)):
                        text = acc.add(item)
                        if text:
                            emitter.emit("on_stream_chunk", text, iteration=ctx.iteration)
                            yield StreamChunk(content=text, iteration=ctx.iteration)
                    if acc.tool_calls:
                        yield StreamChunk(tool_calls=list(acc.tool_calls), iteration=ctx.iteration)
                    value = acc.finish(effect.request, ctx.provider_name)
                else:
                    value = await _perform_async(ctx, effect)
            except GeneratorExit:
                raise
            except BaseException as exc:
                error = exc
                if acc is not None and acc.parts:
                    yield StreamChunk(iteration=ctx.iteration, restart=True)
    finally:
        program.close()
