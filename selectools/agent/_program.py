"""The agent loop, written once as a generator of effects (see :mod:`._effects`).

Per iteration: call the model (with retries), read its tool calls (native or
parsed from text), run them (in parallel when allowed), append results, and
repeat until the model answers without tools, a terminal tool fires, or
``max_iterations`` is reached. Every step is traced and announced to observers.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

from ..exceptions import ProviderError
from ..trace import StepType, TraceStep, now
from ..types import AgentResult, Message, Role, ToolCall
from ..usage import UsageStats
from ._context import RunContext
from ._effects import CallLLM, LLMRequest, RunTools, Sleep
from ._tool_jobs import ToolJob

__all__ = ["run_program"]

Program = Generator[Any, Any, AgentResult]


def run_program(ctx: RunContext) -> Program:
    emit = ctx.emitter.emit
    config = ctx.config
    if ctx.emitter.active:
        emit("on_run_start", ctx.history, ctx.system_prompt, model=ctx.model)
    try:
        while True:
            if ctx.iteration >= config.max_iterations:
                text = (
                    f"Stopped: reached max_iterations={config.max_iterations} "
                    "before the model gave a final answer."
                )
                return ctx.finish(Message(role=Role.ASSISTANT, content=text), "max_iterations")
            ctx.iteration += 1
            emit("on_iteration_start", ctx.iteration, ctx.history)
            response = yield from _call_model(ctx)
            if response is None:
                text = f"Provider error: {ctx.error or 'unknown error'}"
                return ctx.finish(Message(role=Role.ASSISTANT, content=text), "provider_error")
            calls = _read_tool_calls(ctx, response)
            if not calls:
                ctx.append(response)
                emit("on_iteration_end", ctx.iteration, response)
                return ctx.finish(response, "final")
            if config.routing_only:
                emit("on_iteration_end", ctx.iteration, response)
                return ctx.finish(response, "routing")
            jobs = _prepare_jobs(ctx, calls)
            ctx.append(
                Message(
                    role=Role.ASSISTANT, content=response.content, tool_calls=[j.call for j in jobs]
                )
            )
            yield RunTools(jobs, config.parallel_tool_execution, config.tool_timeout_seconds)
            tokens = ctx.last_usage.total_tokens if ctx.last_usage is not None else 0
            share, extra = divmod(tokens, len(jobs))
            for index, job in enumerate(jobs):
                ctx.record_tool_call(job.name, share + (extra if index == 0 else 0))
                ctx.append(
                    Message(
                        role=Role.TOOL,
                        content=job.content,
                        tool_name=job.name,
                        tool_call_id=job.call_id,
                        tool_result=job.result,
                        is_error=not job.ok,
                    )
                )
            emit("on_iteration_end", ctx.iteration, response)
            terminal = next((job for job in jobs if job.terminal), None)
            if terminal is not None:
                return ctx.finish(
                    Message(role=Role.ASSISTANT, content=terminal.content), "terminal_tool"
                )
    except GeneratorExit:
        raise
    except BaseException as exc:
        _record_failure(ctx, exc)
        raise


def _record_failure(ctx: RunContext, exc: BaseException) -> None:
    """Trace and announce an error that ends the run by propagating to the caller."""
    ctx.trace.record(
        StepType.CANCELLED if _is_cancellation(exc) else StepType.ERROR,
        now(),
        summary=f"{type(exc).__name__}: {exc}",
        iteration=ctx.iteration,
        status="error",
        error=str(exc),
    )
    ctx.trace.finish()
    if _is_cancellation(exc):
        ctx.emitter.emit("on_cancelled", f"{type(exc).__name__}")
    else:
        ctx.emitter.emit("on_error", exc, {"phase": "run", "iteration": ctx.iteration})


def _is_cancellation(exc: BaseException) -> bool:
    return isinstance(exc, KeyboardInterrupt) or type(exc).__name__ == "CancelledError"


def _call_model(ctx: RunContext) -> Generator[Any, Any, Message | None]:
    """One model turn with retries; ``None`` when every attempt failed."""
    config = ctx.config
    emitter = ctx.emitter
    request = LLMRequest(
        ctx.model,
        ctx.system_prompt,
        ctx.history,
        ctx.tools or None,
        config.temperature,
        config.max_tokens,
        config.request_timeout,
    )
    attempt = 0
    while True:
        attempt += 1
        started = now()
        if emitter.active:
            emitter.emit(
                "on_llm_start", ctx.history, ctx.model, ctx.system_prompt, iteration=ctx.iteration
            )
        try:
            message, usage = yield CallLLM(request, ctx.stream)
        except ProviderError as error:
            backoff = _provider_failed(ctx, error, attempt, started)
            if backoff is None:
                return None
            if backoff > 0:
                yield Sleep(backoff)
            continue
        if type(message) is not Message and not isinstance(message, Message):
            raise TypeError(
                f"{type(ctx.provider).__name__}.complete() must return (Message, UsageStats), "
                f"got {type(message).__name__}"
            )
        if usage is None:
            usage = UsageStats(model=ctx.model, provider=getattr(ctx.provider, "name", ""))
        ctx.add_usage(usage)
        ctx.last_usage = usage
        ctx.provider_used = usage.provider or getattr(ctx.provider, "name", None)
        model = usage.model or ctx.model
        ended = now()
        ctx.trace.steps.append(
            TraceStep(
                StepType.LLM_CALL,
                started,
                ended,
                summary=f"{model}: {usage.total_tokens} tokens",
                run_id=ctx.run_id,
                iteration=ctx.iteration,
                model=model,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                cost_usd=usage.cost_usd,
                data={"attempts": attempt} if attempt > 1 else {},
            )
        )
        if emitter.active:
            duration_ms = (ended - started) * 1000.0
            emitter.emit(
                "on_llm_end", message, usage, iteration=ctx.iteration, duration_ms=duration_ms
            )
            emitter.emit("on_usage", usage, iteration=ctx.iteration)
        return message


def _provider_failed(
    ctx: RunContext, error: ProviderError, attempt: int, started: float
) -> float | None:
    """Trace a failed attempt; the delay before the next one, or ``None`` to give up."""
    config = ctx.config
    ctx.trace.record(
        StepType.LLM_CALL,
        started,
        summary=f"{ctx.model}: {type(error).__name__}",
        iteration=ctx.iteration,
        model=ctx.model,
        status="error",
        error=str(error),
    )
    if not error.retryable or attempt > config.max_retries:
        ctx.error = error
        ctx.trace.record(
            StepType.ERROR,
            now(),
            summary=f"provider failed after {attempt} attempt(s): {error}",
            iteration=ctx.iteration,
            status="error",
            error=str(error),
        )
        ctx.emitter.emit(
            "on_error", error, {"phase": "llm", "attempts": attempt, "iteration": ctx.iteration}
        )
        return None
    backoff = config.retry_backoff_seconds * attempt
    if error.is_rate_limit:
        cooldown = config.rate_limit_cooldown_seconds * attempt
        backoff += max(cooldown, error.retry_after or 0.0)
    ctx.emitter.emit(
        "on_llm_retry", attempt, config.max_retries, error, backoff, iteration=ctx.iteration
    )
    return backoff


def _read_tool_calls(ctx: RunContext, response: Message) -> list[ToolCall]:
    """Native tool calls, else calls written in the text; records the reasoning."""
    if response.tool_calls:
        calls = list(response.tool_calls)
        reasoning = response.text.strip()
    elif ctx.tools and isinstance(response.content, str) and "{" in response.content:
        parsed = ctx.agent.parser.parse(response.content)
        calls = parsed.tool_calls
        reasoning = parsed.text.strip()
    else:
        return []
    if not calls:
        return []
    if reasoning:
        ctx.reasoning = reasoning
        ctx.reasoning_history.append(reasoning)
    for call in calls:
        if not call.id:
            call.id = f"call_{os.urandom(6).hex()}"
        ctx.trace.record(
            StepType.TOOL_SELECTION,
            now(),
            summary=f"{call.tool_name}({_format_args(call.parameters)})",
            iteration=ctx.iteration,
            call_id=call.id,
            tool_name=call.tool_name,
            tool_args=call.parameters,
            reasoning=reasoning or None,
        )
    ctx.tool_calls.extend(calls)
    return calls


def _prepare_jobs(ctx: RunContext, calls: list[ToolCall]) -> list[ToolJob]:
    parallel = ctx.config.parallel_tool_execution and len(calls) > 1
    return [
        ToolJob(ctx, call, call.id or f"call_{os.urandom(6).hex()}", index if parallel else 0)
        for index, call in enumerate(calls)
    ]


def _format_args(parameters: dict[str, Any]) -> str:
    text = ", ".join(f"{key}={value!r}" for key, value in parameters.items())
    return text if len(text) <= 80 else text[:79] + "…"
