"""The approval card: an anywidget showing one pending tool call, answered in the browser.

The front-end is ``widgets/approval_card.js`` + ``.css`` (plain ES module, no
build step), shipped in the wheel as ``selectools/_widgets``. The card sends
``{"action": ...}`` messages; this side answers the :class:`ApprovalRequest`
(edited arguments are validated against the tool's schema: a bad edit sets
``error``, shown inline, and leaves the request open). When the request is
decided, by a person, a rule or the timeout, the card collapses to its record.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anywidget
import traitlets

from .._view.approval import approval_html, approval_text
from ..exceptions import SelectoolsError

if TYPE_CHECKING:
    from ..approval import ApprovalRequest
    from .approvals import NotebookApprover

__all__ = ["ApprovalCard", "widget_asset"]


def widget_asset(name: str) -> Path:
    """A front-end file: inside the installed package, else the repository's ``widgets/``."""
    here = Path(__file__).resolve().parents[1]
    for folder in (here / "_widgets", here.parent / "widgets"):
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(f"selectools widget asset {name!r} is missing from the installation")


def record_line(request: ApprovalRequest) -> str:
    """``approved get_price(...) — by person at 22:51:03 UTC``: a decided card's one line."""
    decision = request.decision
    if decision is None:
        return ""
    verb = "approved" if decision.approved else "denied"
    edited = " with edited arguments" if decision.tool_args is not None else ""
    when = time.strftime("%H:%M:%S UTC", time.gmtime(decision.decided_at))
    why = f": {decision.reason}" if decision.reason and not decision.approved else ""
    return f"{verb} {request.preview}{edited} — by {decision.by or 'unknown'} at {when}{why}"


class ApprovalCard(anywidget.AnyWidget):
    """One tool call waiting for review; ``repr`` and the static HTML show its current state."""

    _esm = widget_asset("approval_card.js")
    _css = widget_asset("approval_card.css")

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
        self.rendered = threading.Event()
        #: the display handle, once shown: a decision updates the output's static HTML
        self.handle: Any = None
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
        try:
            accepted = self.request.approve(args, by=by)
        except (SelectoolsError, TypeError) as exc:
            self.error = f"not accepted: {exc}"
            return False
        if accepted and scope and self.approver is not None:
            self.approver.always_allow(self.request, scope)
        return accepted

    def _decided(self, request: ApprovalRequest) -> None:
        self.error = ""
        self.record = record_line(request)
        decision = request.decision
        self.status = "approved" if decision is not None and decision.approved else "denied"
        if self.handle is not None:
            self.handle.update(self)

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

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        data, meta = bundle if isinstance(bundle, tuple) else (bundle or {}, {})
        data = dict(data or {})
        data["text/html"] = approval_html(self.state())
        data["text/plain"] = repr(self)
        return data, meta

    def __repr__(self) -> str:
        return f"ApprovalCard({approval_text(self.state())})"
