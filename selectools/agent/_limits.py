"""Budgets, cancellation and the deadline: the checks made before each model call and tool batch.

A run stops when its spend reaches ``max_total_tokens`` or ``max_cost_usd``
(``>=``, checked before the call, so no call is made past the limit), when a
:class:`~selectools.cancellation.CancellationToken` was cancelled, or when
``run_timeout`` has passed (model calls, retry waits, tools and approvals are
all cut to it, so the check comes right after the step that ran out of time).
Either way it ends cleanly with a result holding the partial work, never an
exception.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..trace import StepType, now
from ..types import Message, Role

if TYPE_CHECKING:
    from ._context import RunContext

__all__ = ["check_limits", "deadline_stop", "partial_content"]


def partial_content(ctx: RunContext) -> str:
    """The latest text this run produced: an assistant reply, else a tool result."""
    fallback = ""
    for message in reversed(ctx.run_messages()):
        text = message.text.strip()
        if not text:
            continue
        if message.role is Role.ASSISTANT:
            return text
        if message.role is Role.TOOL and not fallback:
            fallback = text
    return fallback


def _ending(ctx: RunContext, headline: str, partial: str = "") -> Message:
    partial = partial.strip() or partial_content(ctx)
    text = f"{headline}\n\nPartial result:\n{partial}" if partial else headline
    return Message(role=Role.ASSISTANT, content=text)


def check_limits(ctx: RunContext, budgets: bool = True) -> tuple[Message, str] | None:
    """``(final message, stop reason)`` when the run must stop here, else None.

    Before a tool batch only cancellation and the deadline are checked
    (``budgets=False``): the batch was already paid for, budgets apply to the
    next model call.
    """
    for token in ctx.cancel_tokens:
        if token.cancelled:
            reason = token.reason or "cancelled by a CancellationToken"
            ctx.record(StepType.CANCELLED, now(), f"Cancelled: {reason}", {"reason": reason})
            return _ending(ctx, f"Cancelled: {reason}."), "cancelled"
    if ctx.deadline is not None and ctx.timed_out():
        return deadline_stop(ctx)
    if not budgets:
        return None
    config = ctx.config
    tokens = ctx.usage.total_tokens
    cost = ctx.usage.total_cost_usd
    limit_tokens, limit_cost = config.max_total_tokens, config.max_cost_usd
    if limit_tokens is not None and tokens >= limit_tokens:
        reason = f"Token budget exceeded: {tokens}/{limit_tokens} tokens"
    elif limit_cost is not None and cost >= limit_cost:
        reason = f"Cost budget exceeded: ${cost:.6f}/${limit_cost:.6f}"
    else:
        return None
    ctx.record(
        StepType.BUDGET_EXCEEDED,
        now(),
        reason,
        {"reason": reason},
        data={"tokens_used": tokens, "cost_used": cost},
    )
    return _ending(ctx, f"Budget exceeded: {reason}."), "budget_exceeded"


def deadline_stop(ctx: RunContext, cut_text: str = "") -> tuple[Message, str]:
    """End the run at its ``run_timeout``: stop reason ``"run_timeout"``, partial work kept.

    ``cut_text`` is a streamed reply the deadline cut short: it is the partial result.
    """
    limit = ctx.config.run_timeout
    reason = f"Time limit reached: run_timeout={limit:g}s"
    ctx.record(
        StepType.BUDGET_EXCEEDED,
        now(),
        reason,
        {"reason": reason},
        data={"tokens_used": ctx.usage.total_tokens, "cost_used": ctx.usage.total_cost_usd},
    )
    return _ending(ctx, f"Stopped: {reason} passed.", cut_text), "run_timeout"
