"""Human approval of tool calls: the question (:class:`ApprovalRequest`) and ready-made answers.

When a tool call needs review (a ``ToolPolicy`` review rule, a name in
``ToolConfig(require_approval=...)``, or ``@tool(requires_approval=True)``) the
agent builds an :class:`ApprovalRequest` and passes it to the approval handler
(``ToolConfig(approval_handler=...)``, falling back to ``AgentConfig(confirm_action=...)``).

A handler is a function ``handler(request) -> bool``, sync or async. Only a real
``True`` approves; anything else (``False``, ``None``, a coroutine returned by
mistake, a mock) denies. The handler may decide itself, or wait for someone
else to answer: ``request.approve(...)`` / ``request.deny(...)`` can be called
from any thread or asyncio task, and ``request.wait(timeout)`` (blocking) or
``await request`` (async) return True once approved. ``approve(tool_args=...)``
replaces the arguments, validated against the tool's schema first.

Nobody answering never hangs a run: after ``approval_timeout`` seconds the call
is denied. For runs with nobody there, pass :func:`auto_approve` or
:func:`auto_deny` as the handler. :class:`ApprovalQueue` is a handler that hands
each request to whoever listens (a UI, a console thread) and waits for them.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import queue
import threading
import time
from collections.abc import Awaitable, Callable, Generator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

from ._text import one_line
from .stability import beta

if TYPE_CHECKING:
    import asyncio

    from .policy import PolicyResult
    from .tools import ToolLike

__all__ = [
    "ApprovalDecision",
    "ApprovalHandler",
    "ApprovalQueue",
    "ApprovalRequest",
    "ConfirmAction",
    "auto_approve",
    "auto_deny",
    "is_async_callable",
]


def _warn(message: str, *args: Any) -> None:
    """Log a swallowed callback error; logging loads only when there is one."""
    import logging

    logging.getLogger("selectools.approval").warning(message, *args, exc_info=True)


#: ``handler(request) -> bool``, sync or async.
ApprovalHandler = Callable[["ApprovalRequest"], Union[bool, Awaitable[bool]]]  # noqa: UP007
#: The older form: ``confirm_action(tool_name, tool_args, reason) -> bool``, sync or async.
ConfirmAction = Callable[[str, dict[str, Any], str], Union[bool, Awaitable[bool]]]  # noqa: UP007


def is_async_callable(fn: Any) -> bool:
    """True for coroutine functions and objects whose ``__call__`` is one."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - the bound __call__ of an instance
    )


@dataclass(frozen=True, slots=True)
class ApprovalDecision:
    """An answer to a request: who gave it, why, and edited arguments if any."""

    approved: bool
    by: str | None = None
    reason: str = ""
    tool_args: dict[str, Any] | None = None
    decided_at: float = 0.0


def _preview(tool_name: str, tool_args: Mapping[str, Any], limit: int = 200) -> str:
    parts = []
    for key, value in tool_args.items():
        text = repr(value)
        parts.append(f"{key}={one_line(text, 60)}")
    return one_line(f"{tool_name}({', '.join(parts)})", limit)


@beta
class ApprovalRequest:
    """One tool call waiting for a yes or no; answerable once, from any thread or task.

    ``tool_args`` is a copy: changing it does not change what runs (use
    ``approve(tool_args=...)`` to edit). ``run_id``, ``call_id``, ``iteration``,
    ``agent_name``, ``policy`` (the :class:`~selectools.policy.PolicyResult`, if a
    policy was consulted), ``timeout``, ``tokens_used`` and ``cost_usd`` (the run
    so far) are there for a UI to show.
    """

    def __init__(
        self,
        tool_name: str,
        tool_args: Mapping[str, Any],
        reason: str,
        *,
        run_id: str = "",
        call_id: str = "",
        iteration: int = 0,
        agent_name: str = "agent",
        policy: PolicyResult | None = None,
        timeout: float | None = None,
        tokens_used: int = 0,
        cost_usd: float = 0.0,
        tool: ToolLike | None = None,
    ) -> None:
        self.tool_name = tool_name
        self.tool_args: dict[str, Any] = copy.deepcopy(dict(tool_args))
        self.reason = reason
        self.preview = _preview(tool_name, tool_args)
        self.run_id = run_id
        self.call_id = call_id
        self.iteration = iteration
        self.agent_name = agent_name
        self.policy = policy
        self.timeout = timeout
        self.tokens_used = tokens_used
        self.cost_usd = cost_usd
        self.created_at = time.time()
        self._tool = tool
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._decision: ApprovalDecision | None = None
        self._callbacks: list[Callable[[ApprovalRequest], Any]] = []

    # -- answering ----------------------------------------------------------
    def approve(
        self, tool_args: Mapping[str, Any] | None = None, *, by: str | None = None, reason: str = ""
    ) -> bool:
        """Approve, optionally with edited ``tool_args``; False if it was already decided.

        Edited arguments are checked against the tool's schema first: a
        :class:`~selectools.exceptions.ToolValidationError` leaves the request
        open so it can be answered again.
        """
        edited = None
        if tool_args is not None:
            if not isinstance(tool_args, Mapping):
                raise TypeError(f"tool_args must be a dict, got {type(tool_args).__name__}")
            edited = copy.deepcopy(dict(tool_args))
            if self._tool is not None:
                self._tool.validate(edited)
        return self._decide(ApprovalDecision(True, by, reason, edited, time.time()))

    def deny(self, reason: str = "", *, by: str | None = None) -> bool:
        """Deny; ``reason`` is shown to the model. False if it was already decided."""
        return self._decide(ApprovalDecision(False, by, reason or "denied", None, time.time()))

    def _close(self, approved: bool, by: str | None, reason: str = "") -> None:
        """Record the agent's final outcome unless someone answered first; later answers fail."""
        self._decide(ApprovalDecision(approved, by, reason, None, time.time()))

    def _decide(self, decision: ApprovalDecision) -> bool:
        with self._lock:
            if self._decision is not None:
                return False
            self._decision = decision
            callbacks, self._callbacks = self._callbacks, []
            self._done.set()
        for callback in callbacks:
            try:
                callback(self)
            except Exception:
                _warn("approval callback %r raised", callback)
        return True

    # -- reading the answer ---------------------------------------------------
    @property
    def decided(self) -> bool:
        return self._done.is_set()

    @property
    def decision(self) -> ApprovalDecision | None:
        return self._decision

    def wait(self, timeout: float | None = None) -> bool:
        """Block until answered (or ``timeout`` seconds); True only if approved."""
        self._done.wait(timeout)
        decision = self._decision
        return decision is not None and decision.approved

    def add_done_callback(self, callback: Callable[[ApprovalRequest], Any]) -> None:
        """Call ``callback(request)`` once decided (right away if it already is)."""
        with self._lock:
            if self._decision is None:
                self._callbacks.append(callback)
                return
        callback(self)

    def __await__(self) -> Generator[Any, None, bool]:
        """``await request``: wait without blocking the event loop; True only if approved."""
        return self._wait_async().__await__()

    async def _wait_async(self) -> bool:
        import asyncio

        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()

        self.add_done_callback(lambda _: resolve_soon(loop, waiter))
        await waiter
        decision = self._decision
        return decision is not None and decision.approved

    def __repr__(self) -> str:
        if self._decision is None:
            state = "pending"
        else:
            state = "approved" if self._decision.approved else "denied"
        return f"ApprovalRequest({self.preview}, {state})"


def resolve_soon(loop: asyncio.AbstractEventLoop, future: asyncio.Future[None]) -> None:
    """Complete ``future`` on its loop, from any thread (no-op once done or the loop is gone)."""

    def resolve() -> None:
        if not future.done():
            future.set_result(None)

    with contextlib.suppress(RuntimeError):  # the loop closed: nobody is waiting any more
        loop.call_soon_threadsafe(resolve)


# -- ready-made handlers ------------------------------------------------------
def auto_approve(request: ApprovalRequest) -> bool:
    """Approve every call (for trusted, unattended runs)."""
    request.approve(by="auto_approve")
    return True


def auto_deny(request: ApprovalRequest) -> bool:
    """Deny every call that needs review (for unattended runs)."""
    request.deny("nobody is available to approve it (auto_deny)", by="auto_deny")
    return False


class ApprovalQueue:
    """A handler that waits for an answer given elsewhere: a UI, another thread or task.

    ``queue.get(timeout)`` (blocking) or ``await queue.aget(timeout)`` hands out
    the next open request; ``subscribe(listener)`` calls ``listener(request)``
    as each request arrives (keep it quick: show a card, notify someone);
    ``pending`` lists the open ones. Unanswered requests are denied when the
    agent's ``approval_timeout`` runs out.
    """

    def __init__(self) -> None:
        self._queue: queue.Queue[ApprovalRequest] = queue.Queue()
        self._open: list[ApprovalRequest] = []
        self._listeners: list[Callable[[ApprovalRequest], Any]] = []
        self._lock = threading.Lock()

    async def __call__(self, request: ApprovalRequest) -> bool:
        with self._lock:
            self._open.append(request)
            listeners = list(self._listeners)
        self._queue.put(request)
        for listener in listeners:
            try:
                listener(request)
            except Exception:
                _warn("approval listener %r raised", listener)
        try:
            return await request
        finally:
            with self._lock:
                self._open.remove(request)

    @property
    def pending(self) -> list[ApprovalRequest]:
        """Requests still waiting for an answer, oldest first."""
        with self._lock:
            return [r for r in self._open if not r.decided]

    def subscribe(self, listener: Callable[[ApprovalRequest], Any]) -> Callable[[], None]:
        """Call ``listener(request)`` for every new request; returns an unsubscribe function."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def get(self, timeout: float | None = None) -> ApprovalRequest | None:
        """The next request nobody has answered yet, or None after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            try:
                request = self._queue.get(timeout=remaining)
            except queue.Empty:
                return None
            if not request.decided:
                return request

    async def aget(self, timeout: float | None = None) -> ApprovalRequest | None:
        """Async :meth:`get` (waits in a worker thread)."""
        import asyncio

        return await asyncio.to_thread(self.get, timeout)
