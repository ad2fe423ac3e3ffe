"""The requests the shared agent loop hands to a driver.

The loop (:mod:`._program`) is a generator that never blocks: whenever it needs
the outside world (the LLM, tools, a pause) it yields one of these effects and
the driver performs it, blocking (``run``) or awaiting (``arun``), streaming or
not, and sends the outcome back. One loop therefore serves every entry point.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..providers.base import LLMRequest

if TYPE_CHECKING:
    from ..approval import ApprovalRequest
    from ..cancellation import CancellationToken
    from ..providers.base import AnyProvider
    from ._tool_jobs import ToolJob

__all__ = ["AskApproval", "CallBlocking", "CallLLM", "LLMRequest", "RunTools", "Sleep"]


@dataclass(slots=True)
class CallLLM:
    """Call the provider; with ``stream`` the driver streams and forwards text deltas.

    ``provider`` overrides the run's provider (summaries may use a cheaper one).
    """

    request: LLMRequest
    stream: bool
    provider: AnyProvider | None = None


@dataclass(slots=True)
class RunTools:
    """Run a batch of tool calls (concurrently when ``parallel``); returns their jobs.

    Each call gets ``timeout`` seconds, cut to what is left before ``deadline``
    (``time.monotonic()``, the run's ``run_timeout``).
    """

    jobs: list[ToolJob]
    parallel: bool
    timeout: float | None
    deadline: float | None = None


@dataclass(slots=True)
class Sleep:
    seconds: float


@dataclass(slots=True)
class CallBlocking:
    """Run a blocking function (file or network I/O); async drivers use a worker thread."""

    fn: Callable[[], Any]


@dataclass(slots=True)
class AskApproval:
    """Ask ``handler(request)`` for a decision, giving up after ``timeout`` seconds.

    Sync handlers run in a worker thread (context variables copied); async ones
    are awaited (``arun``) or run on a private loop (``run``). The driver sends
    back ``(status, value)``: ``("ok", returned)``, ``("error", exception)``,
    ``("timeout", None)`` or ``("cancelled", None)`` when a token fired meanwhile.
    """

    handler: Callable[[ApprovalRequest], Any]
    request: ApprovalRequest
    timeout: float
    is_async: bool
    tokens: tuple[CancellationToken, ...]
