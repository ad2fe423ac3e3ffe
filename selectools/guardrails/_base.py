"""The guardrail contract: an action, a result, the base class and the error a block raises.

A guardrail looks at one piece of text (a user message on the input side, the
model's answer on the output side) and returns a :class:`GuardrailResult`. When
the check fails, the guardrail's :class:`GuardrailAction` decides what the
pipeline does: ``block`` raises :class:`GuardrailError`, ``rewrite`` passes the
sanitised ``result.content`` on, ``warn`` logs and keeps the text unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ..exceptions import SelectoolsError

__all__ = ["Guardrail", "GuardrailAction", "GuardrailError", "GuardrailResult", "coerce_action"]


class GuardrailAction(str, Enum):
    """What happens when a check fails. Plain strings (``"rewrite"``) work too."""

    BLOCK = "block"
    REWRITE = "rewrite"
    WARN = "warn"

    def __str__(self) -> str:
        return self.value


def coerce_action(action: GuardrailAction | str, owner: str) -> GuardrailAction:
    """``action`` as a :class:`GuardrailAction`; a clear error for anything else."""
    if isinstance(action, GuardrailAction):
        return action
    try:
        return GuardrailAction(str(action).lower())
    except ValueError:
        raise ValueError(
            f"{owner}: action must be 'block', 'rewrite' or 'warn' (or GuardrailAction.*), "
            f"got {action!r}"
        ) from None


@dataclass
class GuardrailResult:
    """The outcome of one check.

    ``content`` is the text after the check: unchanged, or sanitised (PII
    redacted, text truncated) for the ``rewrite`` action to pass on.
    ``details`` says what the check found without repeating sensitive values
    (for example ``{"redacted": {"email": 1}}``); traces and the notebook view
    show it.
    """

    passed: bool
    content: str
    reason: str | None = None
    guardrail_name: str = ""
    details: dict[str, Any] = field(default_factory=dict)


class Guardrail:
    """Base class: set ``name`` and ``action`` and override :meth:`check`.

    Subclasses need not call ``super().__init__()``: the class attributes are
    the defaults.
    """

    name: str = "guardrail"
    action: GuardrailAction = GuardrailAction.BLOCK

    def check(self, content: str) -> GuardrailResult:
        raise NotImplementedError(f"{type(self).__name__} must override check(content)")

    def _result(
        self, passed: bool, content: str, reason: str | None = None, **details: Any
    ) -> GuardrailResult:
        return GuardrailResult(passed, content, reason, self.name, details)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, action={str(self.action)!r})"


class GuardrailError(SelectoolsError):
    """A guardrail whose action is ``block`` rejected the content.

    ``str(error)`` is ``"Guardrail '<name>' blocked: <reason>"``; ``side`` is
    ``"input"`` or ``"output"`` when the error comes from an agent run.
    """

    def __init__(self, guardrail_name: str, reason: str, side: str | None = None) -> None:
        self.guardrail_name = guardrail_name
        self.reason = reason
        self.side = side
        super().__init__(f"Guardrail '{guardrail_name}' blocked: {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.guardrail_name, self.reason, self.side))
