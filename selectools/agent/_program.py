"""The agent loop, written once as a generator of effects (see :mod:`._effects`).

Per iteration: check budgets and cancellation, call the model (the response
cache first, then the provider with retries), read its tool calls (native or
parsed from text), pass them through the tool policy and approval gate, run
the allowed ones (in parallel when allowed), append results, and repeat until
the model answers without tools (validated against ``response_format`` when
given, retried within ``RetryConfig``), a terminal tool fires, a limit stops the
run, or ``max_iterations`` is reached. At the end, trimmed memory is summarized
and the session saved when configured. Every step is traced and announced to
observers; features that are not configured cost one attribute check.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .._text import one_line
from ..exceptions import ProviderError
from ..providers.base import uses_native_tools
from ..trace import StepType, TraceStep, now
from ..types import AgentResult, Message, ReplyText, Role, ToolCall
from ..usage import UsageStats
from ._context import RunContext
from ._effects import CallLLM, RunTools, Sleep
from ._gate_check import needs_gate
from ._limits import check_limits, deadline_stop
from ._response_cache import cache_lookup, cache_store
from ._retry import retry_delay
from ._session import begin_turn, end_turn, report_session_load, save_session
from ._summarize import summarize_trimmed
from ._tool_jobs import ToolJob

if TYPE_CHECKING:
    from ..structured import ResponseFormat

__all__ = ["run_program"]

Program = Generator[Any, Any, AgentResult]


def run_program(ctx: RunContext) -> Program:
    """The run's generator; with a session store, one turn under the session's lock."""
    if ctx.config.session_store is None:
        return _program(ctx)
    return _session_turn(ctx)


def _session_turn(ctx: RunContext) -> Program:
    yield from begin_turn(ctx)
    try:
        return (yield from _program(ctx))
    finally:
        end_turn(ctx.agent)


def _program(ctx: RunContext) -> Program:
    emitter = ctx.emitter
    emit = emitter.emit
    config = ctx.config
    if ctx.agent._memory_kinds:
        from ._memory_kinds import inject_memory  # loaded when these memories are configured

        yield from inject_memory(ctx)
    if emitter.active:
        emit("on_run_start", ctx.history, ctx.system_prompt, model=ctx.model)
    try:
        agent = ctx.agent
        if config.guardrails is not None:
            from ._guard import guard_input  # guardrails load when configured

            guard_input(ctx)
        if agent.memory is not None:
            ctx.remember(ctx.input_messages)
        if agent._session_loaded is not None:
            report_session_load(ctx)
        while True:
            # structured-output retries have their own budget (RetryConfig)
            if ctx.iteration - ctx.structured_retries >= config.max_iterations:
                text = (
                    f"Stopped: reached max_iterations={config.max_iterations} "
                    "before the model gave a final answer."
                )
                message, stop_reason = Message(role=Role.ASSISTANT, content=text), "max_iterations"
                break
            if ctx.guarded:
                stop = check_limits(ctx)
                if stop is not None:
                    message, stop_reason = stop
                    break
            ctx.iteration += 1
            if emitter.active:
                emit("on_iteration_start", ctx.iteration, ctx.history)
            response = yield from _call_model(ctx)
            if response is None:
                if ctx.deadline is not None and ctx.timed_out():
                    message, stop_reason = deadline_stop(ctx)
                    break
                text = f"Provider error: {ctx.error or 'unknown error'}"
                message, stop_reason = Message(role=Role.ASSISTANT, content=text), "provider_error"
                break
            content = response.content
            calls = (
                _read_tool_calls(ctx, response)
                # native calls, or (text-mode tools: the prompt asked for TOOL_CALL) the text's
                if response.tool_calls
                or (
                    ctx.tools
                    and isinstance(content, str)
                    and "{" in content
                    and not uses_native_tools(ctx.provider)
                )
                else None
            )
            if not calls:
                if ctx.stream and ctx.deadline is not None and ctx.timed_out():
                    message, stop_reason = deadline_stop(ctx, response.text)  # the text was cut
                    break
                if ctx.stream and ctx.cancel_tokens:  # cancelled mid-stream: the text was cut
                    stop = check_limits(ctx, budgets=False)
                    if stop is not None:
                        message, stop_reason = stop
                        break
                stop_reason = "final"
                if ctx.response_format is not None:
                    stop_reason = _check_structured(ctx, response, ctx.response_format)
                    if stop_reason == "retry":
                        emit("on_iteration_end", ctx.iteration, ReplyText(response))
                        continue
                if config.guardrails is not None:
                    from ._guard import guard_output

                    response = guard_output(ctx, response)
                ctx.append(response)
                if emitter.active:
                    emit("on_iteration_end", ctx.iteration, ReplyText(response))
                message = response
                break
            if config.routing_only:
                emit("on_iteration_end", ctx.iteration, ReplyText(response))
                message, stop_reason = response, "routing"
                break
            stop = yield from _tool_turn(ctx, response, calls)
            if stop is not None:
                message, stop_reason = stop
                break
        if ctx.trimmed:
            yield from summarize_trimmed(ctx)
        if agent._memory_kinds:
            from ._memory_kinds import extract_memory

            yield from extract_memory(ctx)
        if config.session_store is not None:
            yield from save_session(ctx)
        return ctx.finish(message, stop_reason)
    except GeneratorExit:
        raise
    except BaseException as exc:
        _record_failure(ctx, exc)
        raise


def _tool_turn(
    ctx: RunContext, response: Message, calls: list[ToolCall]
) -> Generator[Any, Any, tuple[Message, str] | None]:
    """Gate and run one batch of tool calls; ``(message, stop reason)`` when the run ends."""
    config = ctx.config
    jobs = _prepare_jobs(ctx, calls)
    ctx.append(Message(Role.ASSISTANT, response.content, [j.call for j in jobs]))
    stop = check_limits(ctx, budgets=False) if ctx.guarded else None
    if stop is not None:
        for job in jobs:
            job.skip(f"Not run: {stop[0].text.splitlines()[0]}")
    elif needs_gate(ctx, jobs):
        from ._approval_gate import gate_jobs  # policy/approval load when a batch is gated

        yield from gate_jobs(ctx, jobs)
    if config.coherence_check and stop is None:
        from ._guard import check_coherence_of

        yield from check_coherence_of(ctx, jobs)
    runnable = [job for job in jobs if not job.denied]
    if runnable:
        yield RunTools(
            runnable, config.parallel_tool_execution, config.tool_timeout_seconds, ctx.deadline
        )
        if config.screen_tool_output or ctx.screen_tools:
            from ._guard import screen_results

            screen_results(ctx, runnable)
        tokens = ctx.last_usage.total_tokens if ctx.last_usage is not None else 0
        share, extra = divmod(tokens, len(runnable))
        for index, job in enumerate(runnable):
            ctx.record_tool_call(job.name, share + (extra if index == 0 else 0))
    for job in jobs:
        ctx.append(Message.tool_reply(job.name, job.call_id, job.content, job.result, not job.ok))
    if ctx.emitter.active:
        ctx.emitter.emit("on_iteration_end", ctx.iteration, ReplyText(response))
    if stop is not None:
        return stop
    for job in jobs:
        if job.terminal:
            return Message(Role.ASSISTANT, job.content), "terminal_tool"
    return None


def _check_structured(ctx: RunContext, response: Message, fmt: ResponseFormat) -> str:
    """Validate a final answer against ``response_format``: "final", "retry" or a failure."""
    from ..structured import StructuredOutputError, parse_and_validate, validation_retry_message

    attempt = ctx.structured_retries + 1
    emit = ctx.emitter.emit
    try:
        ctx.parsed = parse_and_validate(response.text, fmt)
    except ValueError as exc:
        problem = str(exc)
    else:
        emit("on_structured_validate", True, attempt, None, iteration=ctx.iteration)
        return "final"
    emit("on_structured_validate", False, attempt, problem, iteration=ctx.iteration)
    budget = ctx.config.retry.max_retries
    retrying = ctx.structured_retries < budget
    ctx.record(
        StepType.STRUCTURED_RETRY,
        now(),
        f"attempt {attempt} did not match response_format"
        + (f"; retry {attempt}/{budget}" if retrying else "; retry budget spent"),
        status="error",
        error=problem,
        data={"attempt": attempt, "max_retries": budget},
    )
    if retrying:
        # the failed answer and the correction stay out of memory: only the final answer is kept
        ctx.structured_retries += 1
        ctx.history.append(response)
        ctx.history.append(Message(role=Role.USER, content=validation_retry_message(problem)))
        return "retry"
    ctx.error = StructuredOutputError(attempt, problem, response.text)
    return "structured_output_failed"


def _record_failure(ctx: RunContext, exc: BaseException) -> None:
    """Trace and announce an error that ends the run by propagating to the caller."""
    summary = f"{type(exc).__name__}: {exc}"
    if _is_cancellation(exc):
        ctx.record(
            StepType.CANCELLED,
            now(),
            summary,
            {"reason": type(exc).__name__},
            status="error",
            error=str(exc),
        )
    else:
        ctx.fail("run", exc, summary)
    ctx.trace.finish()


def _is_cancellation(exc: BaseException) -> bool:
    return isinstance(exc, KeyboardInterrupt) or type(exc).__name__ == "CancelledError"


def _call_model(ctx: RunContext) -> Generator[Any, Any, Message | None]:
    """One model turn with retries; ``None`` when every attempt failed."""
    config = ctx.config
    emitter = ctx.emitter
    request = ctx.model_request(
        ctx.model,
        ctx.system_prompt,
        ctx.history,
        config.max_tokens,
        ctx.tools or None,
        config.temperature,
    )
    cache = config.cache
    key = None
    if cache is not None and not ctx.stream:
        key, cached = yield from cache_lookup(ctx, cache, request)
        if cached is not None:
            return cached
    attempt = 0
    while True:
        attempt += 1
        if attempt > 1 and ctx.deadline is not None:
            request = replace(request, timeout=ctx.timeout_for(config.request_timeout))
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
            usage = UsageStats(model=ctx.model, provider=ctx.provider_name)
        ctx.add_usage(usage)
        ctx.last_usage = usage
        ctx.provider_used = usage.provider or ctx.provider_name
        model = usage.model or ctx.model
        ended = now()
        step = TraceStep.llm_call(
            started,
            ended,
            f"{model}: {usage.total_tokens} tokens",
            ctx.run_id,
            ctx.iteration,
            model,
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.cost_usd,
            _llm_step_data(attempt, ctx.model, model),
        )
        ctx.trace.steps.append(step)
        if emitter.active:
            ctx.announce(
                step,
                {
                    "response": ReplyText(message),
                    "usage": usage,
                    "duration_ms": step.duration_ms,
                },
            )
        if key is not None:
            yield from cache_store(ctx, cache, key, message, usage)
        return message


def _llm_step_data(attempt: int, requested: str, answered: str) -> dict[str, Any]:
    """An LLM step's extras: retries, and the model asked for when another one answered.

    The step's ``model`` is the one that answered (the provider's usage);
    OpenTelemetry's ``gen_ai.request.model`` and Langfuse's generation model
    are the requested one (``request_model``, kept only when they differ).
    """
    data: dict[str, Any] = {"attempts": attempt} if attempt > 1 else {}
    if requested and requested != answered:
        data["request_model"] = requested
    return data


def _provider_failed(
    ctx: RunContext, error: ProviderError, attempt: int, started: float
) -> float | None:
    """Trace a failed attempt; the delay before the next one, or ``None`` to give up."""
    config = ctx.config
    ctx.record(
        StepType.LLM_CALL,
        started,
        f"{ctx.model}: {type(error).__name__}",
        model=ctx.model,
        status="error",
        error=str(error),
    )
    backoff = retry_delay(config, error, attempt)
    left = ctx.time_left()
    if backoff is None or (left is not None and left <= backoff):
        # not retryable, out of attempts, a Retry-After past the cap, or no time for another try
        ctx.error = error
        ctx.fail(
            "llm", error, f"provider failed after {attempt} attempt(s): {error}", attempts=attempt
        )
        return None
    ctx.emitter.emit(
        "on_llm_retry", attempt, config.max_retries, error, backoff, iteration=ctx.iteration
    )
    return backoff


def _read_tool_calls(ctx: RunContext, response: Message) -> list[ToolCall]:
    """Native tool calls, else calls written in the text; records the reasoning.

    The caller checked that there are native calls or a text that may hold some.
    """
    if response.tool_calls:
        calls = list(response.tool_calls)
        reasoning = response.text.strip()
    else:
        parsed = ctx.agent.parser.parse(response.text)
        calls = parsed.tool_calls
        reasoning = parsed.text.strip()
    if not calls:
        return []
    if reasoning:
        ctx.reasoning = reasoning
        ctx.reasoning_history.append(reasoning)
    steps = ctx.trace.steps
    for call in calls:
        if not call.id:
            call.id = f"call_{os.urandom(6).hex()}"
        # a selection announces no event (STEP_EVENTS), so the step is only traced
        steps.append(
            TraceStep.tool_selection(
                now(),
                f"{call.tool_name}({_format_args(call.parameters)})",
                ctx.run_id,
                ctx.iteration,
                call.id,
                call.tool_name,
                call.parameters,
                reasoning or None,
            )
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
    text = ", ".join([f"{key}={value!r}" for key, value in parameters.items()])
    return one_line(text, 80)
