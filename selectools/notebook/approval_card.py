"""The approval card: an anywidget showing one pending tool call, answered in the browser.

The front-end is ``widgets/approval_card.js`` + ``.css`` (plain ES module, no
build step), shipped in the wheel as ``selectools/_widgets``. The card sends
``{"action": ...}`` messages; this side answers the :class:`ApprovalRequest`
(edited arguments are validated against the tool's schema: a bad edit sets
``error``, shown inline, and leaves the request open). When the request is
decided, by a person, a rule or the timeout, the card collapses to its record,
and its output becomes that record's static HTML alone (no widget view), so a
notebook reopened without a kernel shows the decision instead of a widget that
cannot load. :class:`CardBox` holds the cards of a run whose cell has ended and
does the same for all of them once none is pending.
"""

from __future__ import annotations

import json
import threading
import time
from typing import TYPE_CHECKING, Any

import anywidget
import ipywidgets
import traitlets

from .._view.approval import approval_html, approval_text
from ..approval import _preview
from ..exceptions import SelectoolsError
from ._widget_files import widget_path

if TYPE_CHECKING:
    from ..approval import ApprovalRequest
    from .approvals import NotebookApprover

__all__ = ["ApprovalCard", "CardBox"]


#: what each "Always allow" button of the card allows, as the record says it
SCOPES = {"run": "in this run", "notebook": "in this notebook"}


def record_line(request: ApprovalRequest, scope: str = "") -> str:
    """``approved get_price(...) — by person at 22:51:03 UTC``: a decided card's one line.

    It is the notebook's audit trail, so it shows what ran: edited arguments as
    ``original → edited``, and the scope of an "Always allow" given with it.
    """
    decision = request.decision
    if decision is None:
        return ""
    verb = "approved" if decision.approved else "denied"
    call = request.preview
    if decision.tool_args is not None:
        call += f" → {_preview(request.tool_name, decision.tool_args)} (edited)"
    when = time.strftime("%H:%M:%S UTC", time.gmtime(decision.decided_at))
    why = f": {decision.reason}" if decision.reason and not decision.approved else ""
    allowed = (
        f"; {request.tool_name} is now always allowed {SCOPES[scope]}"
        if decision.approved and scope in SCOPES
        else ""
    )
    return f"{verb} {call} — by {decision.by or 'unknown'} at {when}{why}{allowed}"


class ApprovalCard(anywidget.AnyWidget):
    """One tool call waiting for review; ``repr`` and the static HTML show its current state."""

    _esm = widget_path("approval_card.js")
    _css = widget_path("approval_card.css")

    tool = traitlets.Unicode("").tag(sync=True)
    preview = traitlets.Unicode("").tag(sync=True)
    args_json = traitlets.Unicode("{}").tag(sync=True)
    schema = traitlets.Dict().tag(sync=True)
    rule = traitlets.Unicode("").tag(sync=True)
    tokens = traitlets.Int(0).tag(sync=True)
    cost_usd = traitlets.Float(0.0).tag(sync=True)
    status = traitlets.Unicode("pending").tag(sync=True)
    record = traitlets.Unicode("").tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)

    def __init__(self, request: ApprovalRequest, approver: NotebookApprover | None = None) -> None:
        tool = request._tool
        schema = tool.schema().get("parameters", {}) if tool is not None else {}
        policy = request.policy
        rule = f"rule {policy.rule}: {request.reason}" if policy and policy.rule else request.reason
        super().__init__(
            tool=request.tool_name,
            preview=request.preview,
            args_json=json.dumps(request.tool_args, indent=2, ensure_ascii=False, default=repr),
            schema=schema,
            rule=rule,
            tokens=request.tokens_used,
            cost_usd=request.cost_usd,
        )
        self.request = request
        self.approver = approver
        #: the "Always allow" scope answered with (``run``/``notebook``), for the record
        self.scope = ""
        self.rendered = threading.Event()
        #: the display handle, once shown: a decision replaces the output with the static record
        self.handle: Any = None
        #: the box holding it, if any (the box's output is updated instead)
        self.box: CardBox | None = None
        self.on_msg(self._on_message)
        request.add_done_callback(self._decided)

    # -- messages from the browser ---------------------------------------------------
    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        action = content.get("action")
        if action == "rendered":
            self.rendered.set()
            if self.approver is not None:
                self.approver.frontend_seen = True
        elif action == "approve":
            self.answer(True, args=content.get("args"), scope=content.get("scope") or "")
        elif action == "deny":
            self.answer(False, reason=str(content.get("reason") or ""))

    def answer(
        self,
        approved: bool,
        *,
        args: Any = None,
        reason: str = "",
        scope: str = "",
        by: str = "person",
    ) -> bool:
        """Answer as the card's buttons do; False (and ``error`` set) when refused."""
        if self.request.decided:
            return False
        if not approved:
            return self.request.deny(reason or "the person reviewing it said no", by=by)
        approver = self.approver if scope else None
        if approver is not None:  # before the approval: the run may reach its next call at once
            approver.always_allow(self.request, scope)
        self.scope = scope if approver is not None else ""
        try:
            accepted = self.request.approve(args, by=by)
        except (SelectoolsError, TypeError) as exc:
            accepted = False
            self.error = f"not accepted: {exc}"
        if not accepted:
            self.scope = ""
            if approver is not None:
                approver.always_allow(self.request, scope, revoke=True)
        return accepted

    def _decided(self, request: ApprovalRequest) -> None:
        self.error = ""
        self.record = record_line(request, self.scope)
        decision = request.decision
        self.status = "approved" if decision is not None and decision.approved else "denied"
        if self.handle is not None:
            self.handle.update(self.static_bundle(), raw=True)
        if self.box is not None:
            self.box.refresh()

    # -- static views ------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "record": self.record,
            "tool": self.tool,
            "preview": self.preview,
            "args_json": self.args_json,
            "args_preview": self.request.preview.partition("(")[2].rstrip(")"),
            "rule": self.rule,
            "tokens": self.tokens,
            "cost_usd": self.cost_usd,
        }

    def static_bundle(self) -> dict[str, str]:
        """The card's current state without the widget: what a viewer without a kernel shows."""
        return {"text/html": approval_html(self.state()), "text/plain": repr(self)}

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return _with_static(super()._repr_mimebundle_(**kwargs), self.static_bundle())

    def __repr__(self) -> str:
        return f"ApprovalCard({approval_text(self.state())})"


def _with_static(bundle: Any, static: dict[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A widget's mimebundle with ``static`` (text/html, text/plain) next to its view."""
    data, meta = bundle if isinstance(bundle, tuple) else (bundle or {}, {})
    return {**(data or {}), **static}, dict(meta or {})


class CardBox(ipywidgets.VBox):  # type: ignore[misc]  # ipywidgets ships no type hints
    """The approval cards of a run that outlives its cell, shown in one output.

    Shown while the cell runs (a finished cell only takes display updates), it is
    the live box while a card is pending and the cards' static records whenever
    none is (a new card brings the live box back); :meth:`settle` at the run's end
    leaves the records, or nothing, never a widget a kernel-less viewer cannot load.
    """

    def __init__(self) -> None:
        super().__init__()
        self.handle: Any = None
        #: the static records the output shows (None: the live box)
        self._shown: dict[str, str] | None = None
        self._lock = threading.Lock()

    def add(self, card: ApprovalCard) -> None:
        card.box = self
        with self._lock:
            self.children = (*self.cards(), card)
        self.refresh()

    def cards(self) -> list[ApprovalCard]:
        children: tuple[Any, ...] = self.children
        return [child for child in children if isinstance(child, ApprovalCard)]

    def static_bundle(self) -> dict[str, str]:
        cards = self.cards()
        return {
            "text/html": "".join(approval_html(card.state()) for card in cards),
            "text/plain": "\n".join(approval_text(card.state()) for card in cards),
        }

    def refresh(self, *, settle: bool = False) -> None:
        """Show the live box while a card is pending, else (once it has cards) the records."""
        with self._lock:
            if self.handle is None:
                return
            cards = self.cards()
            if any(card.status == "pending" for card in cards):
                if self._shown is not None:
                    self._shown = None
                    self.handle.update(self)
            elif cards or settle:
                static = self.static_bundle()
                if static != self._shown:
                    self._shown = static
                    self.handle.update(static, raw=True)

    def settle(self) -> None:
        """The run ended: keep only the static records (nothing, if it had no cards)."""
        self.refresh(settle=True)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return _with_static(super()._repr_mimebundle_(**kwargs), self.static_bundle())

    def __repr__(self) -> str:
        return f"CardBox({len(self.cards())} cards)"
