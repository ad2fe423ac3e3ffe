"""The policy and approval step between the model asking for tools and the tools running.

For each call: a ``ToolPolicy`` (if set) decides allow / review / deny; a call
also needs review when ``ToolConfig(require_approval=...)`` names its tool or
the tool was defined with ``requires_approval=True`` (these compose with OR; a
policy deny wins over everything). A review goes to the approval handler
(``ToolConfig.approval_handler``, else ``AgentConfig.confirm_action``) through an
:class:`AskApproval` effect bounded by the approval timeout. Only a real
``True`` runs the call. Denied calls are not run: the model reads
``Tool '<name>' denied by ...: <reason>`` instead, and an identical call later
in the same run is denied again without asking. Every decision is an
``on_policy_decision`` event and a ``policy_decision`` trace step saying who or
what decided (``source``: policy, approval_handler, confirm_action, timeout,
handler_error, invalid_return, memoized, no_handler, cancelled) and why.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ..approval import ApprovalRequest, is_async_callable
from ..policy import PolicyDecision, PolicyResult
from ..trace import StepType, now
from ..types import ToolCall
from ._effects import AskApproval

if TYPE_CHECKING:
    from ._context import RunContext
    from ._tool_jobs import ToolJob

__all__ = ["gate_jobs"]

Gate = Generator[Any, Any, None]


def gate_jobs(ctx: RunContext, jobs: list[ToolJob]) -> Gate:
    """Decide every call of the batch; denied jobs are marked and will not run."""
    for job in jobs:
        if job.failure is None and job.tool is not None:
            yield from _gate(ctx, job)


def _gate(ctx: RunContext, job: ToolJob) -> Gate:
    config = ctx.config
    tool = job.tool
    assert tool is not None
    name = job.name
    gate = config.tool
    gated = tool.requires_approval or (gate is not None and gate.requires_approval(name))
    verdict: PolicyResult | None = None
    if config.tool_policy is not None:
        verdict = config.tool_policy.evaluate(name, job.call.parameters)
        _record(ctx, job, verdict.decision, verdict.reason, "policy", rule=verdict.rule)
        if verdict.decision is PolicyDecision.DENY:
            job.skip(f"Tool '{name}' denied by tool policy: {verdict.reason}")
            return
        if verdict.decision is PolicyDecision.ALLOW and not gated:
            return
        reason = (
            verdict.reason
            if verdict.decision is PolicyDecision.REVIEW
            else _gate_reason(tool, name)
        )
    elif gated:
        reason = _gate_reason(tool, name)
    else:
        return
    yield from _review(ctx, job, reason, verdict)


def _gate_reason(tool: Any, name: str) -> str:
    if tool.requires_approval:
        return f"'{name}' was defined with requires_approval=True"
    return f"'{name}' is listed in ToolConfig(require_approval=...)"


def _memo_key(job: ToolJob) -> tuple[str, str]:
    args = json.dumps(job.call.parameters, sort_keys=True, default=repr)
    return (job.name, args)


def _review(ctx: RunContext, job: ToolJob, reason: str, verdict: PolicyResult | None) -> Gate:
    config = ctx.config
    name = job.name
    key = _memo_key(job)
    if ctx.denials is not None and key in ctx.denials:
        message = ctx.denials[key]
        job.skip(message)
        _record(
            ctx,
            job,
            PolicyDecision.DENY,
            "the same call was denied earlier in this run",
            "memoized",
        )
        return
    gate = config.tool
    handler = gate.approval_handler if gate is not None else None
    source = "approval_handler"
    if handler is None and config.confirm_action is not None:
        handler, source = _confirm_adapter(config.confirm_action), "confirm_action"
    if handler is None:
        _deny(
            ctx,
            job,
            key,
            f"Tool '{name}' needs approval ({reason}) but no approval handler is configured; "
            "it was not run",
            "no_handler",
            reason,
        )
        return
    timeout = (gate.approval_timeout if gate is not None else None) or config.approval_timeout
    timeout = ctx.timeout_for(timeout) or timeout  # never past the run's deadline
    request = ApprovalRequest(
        name,
        job.call.parameters,
        reason,
        run_id=ctx.run_id,
        call_id=job.call_id,
        iteration=ctx.iteration,
        agent_name=ctx.agent.name,
        policy=verdict,
        timeout=timeout,
        tokens_used=ctx.usage.total_tokens,
        cost_usd=ctx.usage.total_cost_usd,
        tool=job.tool,
    )
    ctx.emitter.emit("on_approval_request", request, iteration=ctx.iteration, call_id=job.call_id)
    status, value = yield AskApproval(
        handler, request, timeout, is_async_callable(handler), ctx.cancel_tokens
    )
    decision = request.decision
    by = decision.by if decision is not None and decision.by else _handler_name(handler)
    if status == "ok" and value is True and (decision is None or decision.approved):
        request._close(True, by)
        edited = decision.tool_args if decision is not None else None
        if edited is not None:
            job.call = ToolCall(name, edited, id=job.call.id)
        why = decision.reason if decision is not None and decision.reason else "approved"
        _record(ctx, job, PolicyDecision.ALLOW, why, source, by=by, edited_args=edited)
        return
    why, source = _why_denied(status, value, request, timeout, source)
    human = by if source in ("approval_handler", "confirm_action") else None
    request._close(False, human or source, why)
    _deny(ctx, job, key, f"Tool '{name}' denied by approval handler: {why}", source, why, by=human)


def _why_denied(
    status: str, value: Any, request: ApprovalRequest, timeout: float, source: str
) -> tuple[str, str]:
    """Why an answer was not an approval, and what decided it (``source``)."""
    if status == "timeout":
        return f"no decision within {timeout:g}s (approval_timeout)", "timeout"
    if status == "cancelled":
        return "the run was cancelled while waiting for approval", "cancelled"
    if status == "error":
        return f"the approval handler raised {type(value).__name__}: {value}", "handler_error"
    if value is True or value is False:
        decision = request.decision
        denied = decision is not None and not decision.approved
        return (decision.reason if denied and decision else "not approved"), source
    if inspect.iscoroutine(value):
        value.close()  # a coroutine returned by mistake: never awaited, so close it quietly
    kind = type(value).__name__
    return (
        f"the approval handler returned {kind}, not True/False; only True approves",
        "invalid_return",
    )


def _confirm_adapter(confirm: Any) -> Any:
    """``confirm_action(tool_name, tool_args, reason)`` as a handler of requests."""
    if is_async_callable(confirm):

        async def ask_async(request: ApprovalRequest) -> Any:
            return await confirm(request.tool_name, request.tool_args, request.reason)

        ask_async.__name__ = _handler_name(confirm)
        return ask_async

    def ask(request: ApprovalRequest) -> Any:
        return confirm(request.tool_name, request.tool_args, request.reason)

    ask.__name__ = _handler_name(confirm)
    return ask


def _handler_name(handler: Any) -> str:
    return getattr(handler, "__name__", None) or type(handler).__name__


def _deny(
    ctx: RunContext,
    job: ToolJob,
    key: tuple[str, str],
    message: str,
    source: str,
    why: str,
    by: str | None = None,
) -> None:
    job.skip(message)
    if ctx.denials is None:
        ctx.denials = {}
    ctx.denials[key] = message
    _record(ctx, job, PolicyDecision.DENY, why, source, by=by)


def _record(
    ctx: RunContext,
    job: ToolJob,
    decision: PolicyDecision,
    reason: str,
    source: str,
    *,
    rule: str | None = None,
    by: str | None = None,
    edited_args: dict[str, Any] | None = None,
) -> None:
    data: dict[str, Any] = {"decision": decision.value, "source": source, "reason": reason}
    if rule is not None:
        data["rule"] = rule
    if by is not None:
        data["by"] = by
    if edited_args is not None:
        data["edited_args"] = edited_args
    who = f"{source} {by}" if by and by != source else source
    ctx.record(
        StepType.POLICY_DECISION,
        now(),
        f"{job.name}: {decision.value} — {who}: {reason}",
        {"decision": decision, "reason": reason, "source": source, "rule": rule, "by": by},
        call_id=job.call_id,
        tool_name=job.name,
        tool_args=job.call.parameters,
        data=data,
    )
