"""One tool call's life: start event, invocation (sync or async, with timeout), outcome.

Whatever goes wrong (unknown tool, unreadable arguments, failed validation, the
tool raising or timing out) becomes a tool result the model can read and react
to; it never ends the run.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from .._async_bridge import shared_pool
from .._text import one_line
from ..exceptions import ToolExecutionError, ToolValidationError, UnknownToolError
from ..trace import StepType, TraceStep, now
from ..types import ToolCall

if TYPE_CHECKING:
    from concurrent.futures import Future

    from ..cancellation import CancellationToken
    from ..tools import ToolLike
    from ._context import RunContext

    Tokens = tuple[CancellationToken, ...]


class ToolCancelledError(Exception):
    """The run was cancelled while this tool ran; the run stopped waiting for it."""

    def __init__(self, tool_name: str) -> None:
        super().__init__(f"Tool '{tool_name}' was still running when the run was cancelled")
        self.tool_name = tool_name


__all__ = ["ToolJob", "run_jobs_async", "run_jobs_sync"]


class ToolJob:
    """A tool call prepared for execution, and afterwards its outcome."""

    __slots__ = (
        "call",
        "call_id",
        "chunks",
        "content",
        "ctx",
        "denied",
        "error",
        "failure",
        "lane",
        "ok",
        "result",
        "started_at",
        "tool",
    )

    def __init__(self, ctx: RunContext, call: ToolCall, call_id: str, lane: int) -> None:
        self.ctx = ctx
        self.call = call
        self.call_id = call_id
        self.lane = lane
        self.tool: ToolLike | None = ctx.tools_by_name.get(call.tool_name)
        self.failure: Exception | None = None
        if call.error is not None and not call.tool_name:  # unreadable text: no tool named
            self.failure = ToolValidationError(
                issue=f"Could not read the tool call: {call.error}",
                suggestion='Write TOOL_CALL {"tool_name": "<name>", "parameters": {...}} '
                "with valid JSON",
            )
        elif self.tool is None:
            self.failure = UnknownToolError(call.tool_name, list(ctx.tools_by_name))
        elif call.error is not None:
            self.failure = ToolValidationError(
                call.tool_name,
                issue=f"Could not read the arguments: {call.error}",
                suggestion="Send the arguments as one JSON object matching the tool's schema",
            )
        self.started_at = 0.0
        self.chunks = 0
        self.ok = False
        self.content = ""
        self.result: str | None = None
        self.error: BaseException | None = None
        self.denied = False

    @property
    def name(self) -> str:
        return self.call.tool_name

    @property
    def terminal(self) -> bool:
        """Whether this call, having run, ends the loop."""
        if not self.ok:
            return False
        if self.tool is not None and self.tool.terminal:
            return True
        stop = self.ctx.config.stop_condition
        return bool(stop is not None and stop(self.name, self.result or ""))

    def skip(self, content: str) -> None:
        """Do not run this call (denied, or the run was cancelled); the model reads ``content``."""
        self.denied = True
        self.ok = False
        self.content = content

    # -- lifecycle -------------------------------------------------------
    def _begin(self) -> None:
        self.started_at = now()
        ctx = self.ctx
        if ctx.emitter.active:
            ctx.emitter.emit(
                "on_tool_start",
                self.call_id,
                self.name,
                self.call.parameters,
                iteration=ctx.iteration,
                lane=self.lane,
            )

    def _on_chunk(self, chunk: str) -> None:
        self.chunks += 1
        self.ctx.emitter.emit(
            "on_tool_chunk",
            self.call_id,
            self.name,
            chunk,
            iteration=self.ctx.iteration,
            lane=self.lane,
        )

    def _succeed(self, result: str) -> None:
        ended = now()
        self.ok = True
        self.result = result
        self.content = result
        ctx = self.ctx
        name = self.name
        args = self.call.parameters
        chunks = self.chunks
        step = TraceStep.tool_execution(
            self.started_at,
            ended,
            f"{name} → {one_line(result, 60)}",
            ctx.run_id,
            ctx.iteration,
            self.call_id,
            self.lane,
            name,
            args,
            result,
            {"chunks": chunks} if chunks else {},
        )
        ctx.trace.steps.append(step)
        if ctx.emitter.active:
            ctx.announce(step, {"tool_args": args, "chunks": chunks})
        if ctx.agent.analytics is not None:
            self._record_analytics(True, step.duration_ms)

    def _fail(self, exc: BaseException) -> None:
        ended = now()
        self.ok = False
        self.error = exc
        self.content = _error_content(self.name, exc)
        ctx = self.ctx
        step = ctx.record(
            StepType.TOOL_EXECUTION,
            self.started_at,
            f"{self.name} ✗ {type(exc).__name__}",
            {"error": exc, "message": self.content},
            ended=ended,
            call_id=self.call_id,
            lane=self.lane,
            status="error",
            error=self.content,
            tool_name=self.name,
            tool_args=self.call.parameters,
            **({"data": {"cancelled": True}} if isinstance(exc, ToolCancelledError) else {}),
        )
        self._record_analytics(False, step.duration_ms)

    def _record_analytics(self, success: bool, duration_ms: float) -> None:
        analytics = self.ctx.agent.analytics
        if analytics is not None and self.tool is not None:
            analytics.record_tool_call(
                self.name,
                success=success,
                duration=duration_ms / 1000.0,
                params=self.call.parameters,
                chunk_count=self.chunks,
            )

    # -- invocation ------------------------------------------------------
    def run_sync(self, timeout: float | None) -> None:
        self._begin()
        try:
            if self.failure is not None:
                raise self.failure
            tool = self.tool
            assert tool is not None
            tokens = self.ctx.cancel_tokens
            if timeout is None and not tokens:
                result = tool.execute(self.call.parameters, self._on_chunk)
            else:
                future = shared_pool().submit(
                    contextvars.copy_context().run,
                    tool.execute,
                    self.call.parameters,
                    self._on_chunk,
                )
                result = self._wait(future, timeout, tokens)
        except Exception as exc:
            self._fail(exc)
        else:
            self._succeed(result)

    def _wait(self, future: Future[str], timeout: float | None, tokens: Tokens) -> str:
        """The tool's result, unless ``timeout`` passes or a token fires first.

        A sync tool cannot be killed: on timeout or cancellation its worker thread is
        abandoned (it finishes in the background and its result is dropped).
        """
        settled = threading.Event()
        future.add_done_callback(lambda _: settled.set())
        removers = [token.on_cancel(settled.set) for token in tokens]
        try:
            settled.wait(timeout)
        finally:
            for remove in removers:
                remove()
        if future.done():
            return future.result()
        future.cancel()
        if any(token.cancelled for token in tokens):
            raise ToolCancelledError(self.name)
        raise TimeoutError(f"Tool '{self.name}' timed out after {timeout:g}s")

    async def run_async(self, timeout: float | None) -> None:
        self._begin()
        try:
            if self.failure is not None:
                raise self.failure
            tool = self.tool
            assert tool is not None
            pending = tool.aexecute(self.call.parameters, self._on_chunk)
            tokens = self.ctx.cancel_tokens
            if tokens:
                pending = _until_cancelled(pending, tokens, self.name)
            if timeout is None:
                result = await pending
            else:
                import asyncio

                try:
                    result = await asyncio.wait_for(pending, timeout)
                except asyncio.TimeoutError:
                    raise TimeoutError(f"Tool '{self.name}' timed out after {timeout:g}s") from None
        except Exception as exc:
            self._fail(exc)
        else:
            self._succeed(result)


async def _until_cancelled(pending: Awaitable[str], tokens: Tokens, name: str) -> str:
    """Await ``pending`` as a task; cancel the task when a token fires first."""
    import asyncio

    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(pending)
    fired = loop.create_future()

    def settle() -> None:
        if not fired.done():
            fired.set_result(None)

    def wake() -> None:
        loop.call_soon_threadsafe(settle)

    removers = [token.on_cancel(wake) for token in tokens]
    try:
        await asyncio.wait((task, fired), return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        task.cancel()
        raise
    finally:
        for remove in removers:
            remove()
        fired.cancel()
    if task.done():
        return task.result()
    task.cancel()
    raise ToolCancelledError(name)


def _cut(timeout: float | None, deadline: float | None) -> float | None:
    """``timeout`` cut to what is left before ``deadline`` (the run's ``run_timeout``)."""
    if deadline is None:
        return timeout
    left = max(deadline - time.monotonic(), 0.01)
    return left if timeout is None else min(timeout, left)


def run_jobs_sync(
    jobs: list[ToolJob], parallel: bool, timeout: float | None, deadline: float | None = None
) -> list[ToolJob]:
    """Run the batch; results stay in call order whatever order the calls finish in."""
    if parallel and len(jobs) > 1:
        from concurrent.futures import ThreadPoolExecutor

        wait = _cut(timeout, deadline)
        with ThreadPoolExecutor(
            max_workers=len(jobs), thread_name_prefix="selectools-tool"
        ) as pool:
            futures = [
                pool.submit(contextvars.copy_context().run, job.run_sync, wait) for job in jobs
            ]
            for future in futures:
                future.result()
    else:
        for job in jobs:
            job.run_sync(_cut(timeout, deadline))
    return jobs


async def run_jobs_async(
    jobs: list[ToolJob], parallel: bool, timeout: float | None, deadline: float | None = None
) -> list[ToolJob]:
    if parallel and len(jobs) > 1:
        import asyncio

        wait = _cut(timeout, deadline)
        await asyncio.gather(*(job.run_async(wait) for job in jobs))
    else:
        for job in jobs:
            await job.run_async(_cut(timeout, deadline))
    return jobs


def _error_content(tool_name: str, exc: BaseException) -> str:
    """What the model reads when a call fails."""
    if isinstance(exc, (UnknownToolError, ToolValidationError)):
        return str(exc).strip()
    if isinstance(exc, ToolExecutionError):
        return f"Error executing tool '{tool_name}': {exc.error}"
    return f"Error executing tool '{tool_name}': {exc}"
