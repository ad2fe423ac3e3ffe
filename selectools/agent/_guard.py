"""The loop's safety hooks: guardrails, coherence checks and tool-output screening.

Loaded only when a run uses one of them; the loop's cost when they are off is
one attribute check per feature. Where each hook sits (the documented
defence-in-depth order)::

    user message -> input guardrails -> model -> (final answer) output guardrails
                                             -> (tool calls) coherence check -> tool
                                                -> output screening -> back to the model

Every decision is a trace step (``guardrail``, ``coherence_check``,
``output_screening``) announced through the run's events. A blocked coherence
check also leaves an ``error`` step whose summary starts with "Coherence", as
the SECURITY page shows. Output guardrails check the final answer (not the text
that comes with tool calls); when streaming, the deltas have already been shown
by the time the answer is checked, but the returned and remembered answer is
the guarded one.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from .._side_call import ask_in_run, side_model, usage_fields
from ..coherence import (
    COHERENCE_INSTRUCTIONS,
    build_coherence_messages,
    failed_open,
    parse_coherence,
)
from ..guardrails import GuardrailError
from ..guardrails._pipeline import GuardrailDecision
from ..security import screen_output
from ..trace import StepType, TraceStep, now
from ..types import Message, Role

if TYPE_CHECKING:
    from ._context import RunContext
    from ._tool_jobs import ToolJob

__all__ = ["check_coherence_of", "guard_input", "guard_output", "screen_results"]


def guard_input(ctx: RunContext) -> None:
    """Run the input guardrails over the run's user messages; the model sees what they pass on."""
    pipeline = ctx.config.guardrails
    if pipeline is None or not pipeline.input:
        return
    messages = ctx.input_messages
    for index, message in enumerate(messages):
        if message.role is not Role.USER or not isinstance(message.content, str):
            continue
        started = now()
        try:
            outcome = pipeline.check_input(message.content)
        except GuardrailError as error:
            _record(ctx, getattr(error, "decisions", ()), started)
            raise
        _record(ctx, outcome.decisions, started)
        if outcome.content != message.content:
            guarded = Message(role=Role.USER, content=outcome.content)
            messages[index] = guarded
            history = ctx.history
            for position, old in enumerate(history):
                if old is message:
                    history[position] = guarded
                    break


def guard_output(ctx: RunContext, response: Message) -> Message:
    """The final answer after the output guardrails (raises ``GuardrailError`` on a block)."""
    pipeline = ctx.config.guardrails
    if pipeline is None or not pipeline.output or not isinstance(response.content, str):
        return response
    started = now()
    try:
        outcome = pipeline.check_output(response.content)
    except GuardrailError as error:
        _record(ctx, getattr(error, "decisions", ()), started)
        raise
    _record(ctx, outcome.decisions, started)
    if outcome.content == response.content:
        return response
    return Message(role=Role.ASSISTANT, content=outcome.content, tool_calls=response.tool_calls)


def _record(ctx: RunContext, decisions: Any, started: float) -> None:
    for decision in decisions:
        assert isinstance(decision, GuardrailDecision)
        ctx.record(
            StepType.GUARDRAIL,
            started,
            decision.summary(),
            status="error" if decision.action == "block" else "ok",
            error=decision.reason if decision.action == "block" else None,
            data={
                "guardrail_name": decision.guardrail_name,
                "side": decision.side,
                "action": decision.action,
                "reason": decision.reason,
                "details": decision.details,
                "rewritten": decision.rewritten,
            },
        )


def _user_request(ctx: RunContext) -> str:
    for message in reversed(ctx.input_messages):
        if message.role is Role.USER:
            return message.text
    for message in reversed(ctx.history):
        if message.role is Role.USER:
            return message.text
    return ""


def check_coherence_of(ctx: RunContext, jobs: list[ToolJob]) -> Generator[Any, Any, None]:
    """Ask the checking model about each call; an incoherent one is skipped with the reason."""
    config = ctx.config
    provider = config.coherence_provider or ctx.provider
    model = side_model(provider, config.coherence_model, ctx.provider, ctx.model)
    request_text = _user_request(ctx)
    for job in jobs:
        if job.denied or job.failure is not None:
            continue
        started = now()
        request = ctx.model_request(
            model,
            COHERENCE_INSTRUCTIONS,
            build_coherence_messages(request_text, job.name, job.call.parameters),
            120,
        )
        usage = None
        try:
            message, usage = yield from ask_in_run(ctx, provider, request)
        except Exception as exc:  # fail-open (selectools.coherence)
            verdict = failed_open(exc)
        else:
            verdict = parse_coherence(message.text)
        blocked = not verdict.coherent
        ctx.record(
            StepType.COHERENCE_CHECK,
            started,
            f"Coherence check {'blocked' if blocked else 'passed'}: {job.name}",
            {"explanation": verdict.explanation},
            call_id=job.call_id,
            lane=job.lane,
            status="error" if blocked else "ok",
            error=verdict.explanation if blocked else None,
            tool_name=job.name,
            tool_args=job.call.parameters,
            **usage_fields(usage, model),
            data={
                "coherent": verdict.coherent,
                "explanation": verdict.explanation,
                "failed_open": verdict.failed_open,
            },
        )
        if blocked:
            text = f"Coherence check blocked {job.name}: {verdict.explanation}"
            ctx.trace.steps.append(
                TraceStep(
                    StepType.ERROR,
                    started,
                    now(),
                    text,
                    ctx.run_id,
                    ctx.iteration,
                    job.call_id,
                    job.lane,
                    "error",
                    verdict.explanation,
                    tool_name=job.name,
                    tool_args=job.call.parameters,
                    data={"phase": "coherence"},
                )
            )
            job.skip(
                f"Tool call '{job.name}' was blocked: it does not match the user's request "
                f"({verdict.explanation})"
            )


def screen_results(ctx: RunContext, jobs: list[ToolJob]) -> None:
    """Screen the results of calls that ran (all tools, or those marked ``screen_output``)."""
    config = ctx.config
    everything = config.screen_tool_output
    extra = config.output_screening_patterns
    for job in jobs:
        if not job.ok or not (
            everything or (job.tool is not None and getattr(job.tool, "screen_output", False))
        ):
            continue
        started = now()
        screened = screen_output(job.content, extra)
        if not screened.safe:
            job.content = screened.content
            job.result = screened.content
        count = len(screened.matched_patterns)
        ctx.record(
            StepType.OUTPUT_SCREENING,
            started,
            f"{job.name}: output blocked, {count} suspicious pattern(s)"
            if count
            else f"{job.name}: output passed screening",
            {"safe": screened.safe, "matched_patterns": screened.matched_patterns},
            call_id=job.call_id,
            lane=job.lane,
            status="ok" if screened.safe else "error",
            error=None if screened.safe else screened.content,
            tool_name=job.name,
            data={
                "safe": screened.safe,
                "matched_patterns": screened.matched_patterns,
                "decoded_from": screened.decoded_from,
            },
        )
