"""Whether a batch of tool calls goes through the policy and approval gate.

Kept apart from ``_approval_gate`` so that the loop can ask on every tool turn
without importing the gate, ``selectools.approval`` and ``selectools.policy``:
they load only when a batch is actually gated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._context import RunContext
    from ._tool_jobs import ToolJob

__all__ = ["needs_gate"]


def needs_gate(ctx: RunContext, jobs: list[ToolJob]) -> bool:
    """Whether any call of this batch has a policy or approval to go through."""
    config = ctx.config
    if config.tool_policy is not None or config.tool is not None:
        return True
    return any(job.tool is not None and job.tool.requires_approval for job in jobs)
