"""The notebook's approval handler: cards in the browser, rules when nobody can answer.

:func:`notebook_approver` is the kernel's one :class:`NotebookApprover` (``%%agent``
uses it for agents without a handler of their own; pass it as
``ToolConfig(approval_handler=notebook_approver())`` to ``agent.run`` /
``agent.arun`` yourself). For each request it applies, in order: "always allow"
answers given on earlier cards (this run / this notebook), the configured rule
(``%selectools approval=ask|allow|deny``, per tool ``approval.TOOL=RULE``), and
for ``ask`` an :class:`~.approval_card.ApprovalCard`.

The three ways a cell runs an agent:

1. **blocking** (``agent.run``, ``%%agent``): the cell's thread waits in
   synchronous code, so the kernel's main loop would not read the card's messages
   until the cell ends. On ipykernel ≥ 7 with subshells, the card's comm routes
   its messages to a kernel subshell (a thread of its own, created once), so they
   are handled while the main thread waits. On kernels without subshells (6.x),
   :meth:`NotebookApprover.wait_for` (called by the agent while it waits) processes
   the kernel's pending UI events itself, the ``jupyter-ui-poll`` technique:
   comm messages are handled, other cells' execute requests are held and replayed
   when this cell ends. Limits: that only runs on the kernel's main thread, cannot
   nest, and handles messages in ~20 ms ticks; elsewhere the wait is bounded by
   ``approval_timeout`` and cards can only be answered once the cell ends.
2. **await** (``await agent.arun(...)``): ipykernel ≥ 7 handles comm messages while
   a cell awaits; nothing extra is needed (older kernels: run it blocking).
3. **background** (a run in another thread): the kernel is idle, messages arrive
   normally; cards can be answered after the cell finished.

**Headless never hangs.** Without a kernel (terminal IPython, plain Python) or
without anywidget, ``ask`` denies at once with a message to the model saying
why; so does a kernel whose cell came from a runner nobody watches (nbclient,
``nbconvert --execute``, papermill, nbval: they execute with ``allow_stdin``
false, see :func:`~._kernel.watched`). Otherwise the card's script reports when
a frontend really renders it; if none does within ``grace`` seconds (a kernel
nobody has open) the call is denied as headless. After one card rendered, later cards wait
for an answer up to the agent's ``approval_timeout``, which bounds every wait.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from ._kernel import kernel_shell, route_to_subshell, ui_poll, watched

if TYPE_CHECKING:
    from ..approval import ApprovalRequest
    from .approval_card import ApprovalCard

__all__ = [
    "APPROVAL_RULES",
    "CARD_HOST",
    "NotebookApprover",
    "card_host",
    "cell_approvals",
    "notebook_approver",
]

#: what ``%selectools approval=`` accepts
APPROVAL_RULES = ("ask", "allow", "deny")

HEADLESS = (
    "no notebook frontend is attached to answer it (terminal IPython, nbclient/nbval, CI or a "
    "kernel nobody has open); set %selectools approval=allow (or approval.{tool}=allow) to run "
    "such calls unattended"
)


class NotebookApprover:
    """Approval handler for notebooks (see the module docstring)."""

    __name__ = "notebook"

    def __init__(self, rule: str = "ask", *, grace: float = 10.0) -> None:
        self.rule = _check_rule(rule)
        self.overrides: dict[str, str] = {}
        self.grace = grace
        self.frontend_seen = False
        self.cards: list[ApprovalCard] = []
        self._notebook_allowed: set[str] = set()
        self._run_allowed: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

    # -- settings ----------------------------------------------------------------------
    def set_rule(self, rule: str, tool: str | None = None) -> None:
        """``approval=RULE`` for every tool, or ``approval.TOOL=RULE`` for one."""
        rule = _check_rule(rule)
        if tool is None:
            self.rule = rule
        else:
            self.overrides[tool] = rule

    def always_allow(self, request: ApprovalRequest, scope: str, *, revoke: bool = False) -> None:
        """Approve later calls of this tool without a card, for this ``run`` or the ``notebook``.

        ``revoke`` takes the rule back (a card's approval that was refused).
        """
        if scope == "notebook":
            allowed: set[Any] = self._notebook_allowed
            key: Any = request.tool_name
        elif scope == "run":
            allowed, key = self._run_allowed, (request.run_id, request.tool_name)
        else:
            raise ValueError(f"always-allow scope must be 'run' or 'notebook', got {scope!r}")
        with self._lock:
            if revoke:
                allowed.discard(key)
            else:
                allowed.add(key)

    def _allowed_by(self, request: ApprovalRequest) -> str | None:
        with self._lock:
            if request.tool_name in self._notebook_allowed:
                return "rule: always allow (notebook)"
            if (request.run_id, request.tool_name) in self._run_allowed:
                return "rule: always allow (run)"
        return None

    # -- the handler ---------------------------------------------------------------------
    async def __call__(self, request: ApprovalRequest) -> bool:
        allowed = self._allowed_by(request)
        if allowed is not None:
            request.approve(by=allowed)
            self._show(request, pending=False)
            return True
        rule = self.overrides.get(request.tool_name, self.rule)
        if rule == "allow":
            request.approve(by="rule: approval=allow")
            self._show(request, pending=False)
            return True
        if rule == "deny":
            request.deny(
                f"calls needing review are denied in this notebook "
                f"(%selectools approval.{request.tool_name}=allow runs them)",
                by="rule: approval=deny",
            )
            self._show(request, pending=False)
            return False
        shell = kernel_shell()
        if shell is not None and not watched(shell):  # nbclient, nbval: nobody to ask
            request.deny(HEADLESS.format(tool=request.tool_name), by="headless")
            self._show(request, pending=False)
            return False
        card = self._show(request, pending=True)
        if card is None or not await self._rendered(card):
            request.deny(HEADLESS.format(tool=request.tool_name), by="headless")
            return False
        return await request

    async def _rendered(self, card: ApprovalCard) -> bool:
        """True once a frontend rendered ``card`` (or any card before it)."""
        if self.frontend_seen:
            return True
        import asyncio

        return await asyncio.to_thread(card.rendered.wait, self.grace)

    def _show(self, request: ApprovalRequest, *, pending: bool) -> ApprovalCard | None:
        """Display a card for ``request`` in the running cell; None without a widget frontend."""
        shell = kernel_shell()
        if shell is None:
            return None
        try:
            from .approval_card import ApprovalCard
        except ImportError:  # anywidget is not installed: no cards, the rules still apply
            return None
        card = ApprovalCard(request, self)
        if pending:
            route_to_subshell(card)
        with self._lock:
            self.cards.append(card)
        from IPython.display import display

        host = CARD_HOST.get()
        if host is None:  # a shown agent.start() handle offers its view's box
            from ..agent.background import current_run_handle

            host = getattr(current_run_handle(), "card_host", None)
        if host is not None:  # a run that outlives its cell: the cards join a shown box
            host.add(card)
            return card
        if pending:
            card.handle = display(card, display_id=True)  # updated to the record once decided
        else:  # decided by a rule: only its record, which needs no kernel to show
            display(card.static_bundle(), raw=True)
        return card

    # -- blocking mode: keep the kernel's UI events flowing while the cell waits -------
    def wait_for(self, event: threading.Event, timeout: float | None) -> None:
        """Wait for ``event`` up to ``timeout`` s, handling widget messages on the main thread."""
        poll = ui_poll() if threading.current_thread() is threading.main_thread() else None
        if poll is None:
            event.wait(timeout)
            return
        deadline = None if timeout is None else time.monotonic() + timeout
        with poll() as process:
            while not event.wait(0.02):
                process(20)
                if deadline is not None and time.monotonic() >= deadline:
                    return

    def __repr__(self) -> str:
        extra = "".join(f", {tool}={rule}" for tool, rule in sorted(self.overrides.items()))
        return f"NotebookApprover(approval={self.rule}{extra})"


def _check_rule(rule: str) -> str:
    if rule not in APPROVAL_RULES:
        raise ValueError(f"approval rule must be one of {', '.join(APPROVAL_RULES)}, got {rule!r}")
    return rule


#: where cards go instead of the running cell's output (a widget box shown earlier)
CARD_HOST: ContextVar[Any] = ContextVar("selectools_card_host", default=None)


def card_host() -> Any:
    """Show an empty :class:`~.approval_card.CardBox` in the running cell for cards that arrive after it has ended."""
    from IPython.display import display

    from .approval_card import CardBox

    box = CardBox()
    box.handle = display(box, display_id=True)
    return box


_APPROVER: NotebookApprover | None = None


def notebook_approver() -> NotebookApprover:
    """The kernel's approver (one per process: a kernel is one notebook)."""
    global _APPROVER
    if _APPROVER is None:
        _APPROVER = NotebookApprover()
    return _APPROVER


@contextlib.contextmanager
def cell_approvals(agent: Any, host: Any = None) -> Iterator[None]:
    """For one ``%%agent`` cell: give an agent with no approval handler the notebook's.

    ``host`` (from :func:`card_host`) receives the cards instead of the cell's output.
    """
    from dataclasses import replace

    if host is not None:
        token = CARD_HOST.set(host)
        try:
            with cell_approvals(agent):
                yield
        finally:
            CARD_HOST.reset(token)
        return
    config = agent.config
    gate = config.tool
    if (
        not agent.tools  # no tool, nothing to approve
        or config.confirm_action is not None
        or (gate is not None and gate.approval_handler)
    ):
        yield
        return
    from ..agent.config_groups import ToolConfig

    handler = notebook_approver()
    tool = (
        ToolConfig(approval_handler=handler)
        if gate is None
        else replace(gate, approval_handler=handler)
    )
    agent.config = replace(config, tool=tool)
    try:
        yield
    finally:
        agent.config = config
