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

Deciding a call lives in ``_approval_review``, loaded (with ``selectools.approval``
and ``selectools.policy``) only when a batch is actually gated: a run without a
policy or an approval never imports them.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._context import RunContext
    from ._tool_jobs import ToolJob

__all__ = ["gate_jobs", "needs_gate"]

Gate = Generator[Any, Any, None]


def needs_gate(ctx: RunContext, jobs: list[ToolJob]) -> bool:
    """Whether any call of this batch has a policy or approval to go through."""
    config = ctx.config
    if config.tool_policy is not None or config.tool is not None:
        return True
    return any(job.tool is not None and job.tool.requires_approval for job in jobs)


def gate_jobs(ctx: RunContext, jobs: list[ToolJob]) -> Gate:
    """Decide every call of the batch; denied jobs are marked and will not run."""
    from ._approval_review import gate_job

    for job in jobs:
        if job.failure is None and job.tool is not None:
            yield from gate_job(ctx, job)
