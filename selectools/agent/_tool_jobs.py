"""One tool call's life: start event, invocation (sync or async, with timeout), outcome.

Whatever goes wrong (unknown tool, unreadable arguments, failed validation, the
tool raising or timing out) becomes a tool result the model can read and react
to; it never ends the run.
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING

from .._async_bridge import shared_pool
from .._text import one_line
from ..exceptions import ToolExecutionError, ToolValidationError, UnknownToolError
from ..trace import StepType, TraceStep, now
from ..types import ToolCall

if TYPE_CHECKING:
    from ..tools import ToolLike
    from ._context import RunContext

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
        if self.tool is None:
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
            if timeout is None:
                result = tool.execute(self.call.parameters, self._on_chunk)
            else:
                from concurrent.futures import TimeoutError as FutureTimeout

                future = shared_pool().submit(
                    contextvars.copy_context().run,
                    tool.execute,
                    self.call.parameters,
                    self._on_chunk,
                )
                try:
                    result = future.result(timeout=timeout)
                except FutureTimeout:
                    future.cancel()
                    raise TimeoutError(f"Tool '{self.name}' timed out after {timeout:g}s") from None
        except Exception as exc:
            self._fail(exc)
        else:
            self._succeed(result)

    async def run_async(self, timeout: float | None) -> None:
        self._begin()
        try:
            if self.failure is not None:
                raise self.failure
            tool = self.tool
            assert tool is not None
            pending = tool.aexecute(self.call.parameters, self._on_chunk)
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


def run_jobs_sync(jobs: list[ToolJob], parallel: bool, timeout: float | None) -> list[ToolJob]:
    """Run the batch; results stay in call order whatever order the calls finish in."""
    if parallel and len(jobs) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(
            max_workers=len(jobs), thread_name_prefix="selectools-tool"
        ) as pool:
            futures = [
                pool.submit(contextvars.copy_context().run, job.run_sync, timeout) for job in jobs
            ]
            for future in futures:
                future.result()
    else:
        for job in jobs:
            job.run_sync(timeout)
    return jobs


async def run_jobs_async(
    jobs: list[ToolJob], parallel: bool, timeout: float | None
) -> list[ToolJob]:
    if parallel and len(jobs) > 1:
        import asyncio

        await asyncio.gather(*(job.run_async(timeout) for job in jobs))
    else:
        for job in jobs:
            await job.run_async(timeout)
    return jobs


def _error_content(tool_name: str, exc: BaseException) -> str:
    """What the model reads when a call fails."""
    if isinstance(exc, (UnknownToolError, ToolValidationError)):
        return str(exc).strip()
    if isinstance(exc, ToolExecutionError):
        return f"Error executing tool '{tool_name}': {exc.error}"
    return f"Error executing tool '{tool_name}': {exc}"
