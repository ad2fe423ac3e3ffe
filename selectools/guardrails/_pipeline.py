"""``GuardrailsPipeline``: ordered input and output guardrails and what they decided.

Guardrails run in list order and each sees the text the previous one passed
on (a rewrite included). A failing ``block`` guardrail stops the pipeline with
:class:`~selectools.guardrails.GuardrailError`; ``rewrite`` continues with the
sanitised text; ``warn`` logs a warning (logger ``selectools.guardrails``) and
continues with the text unchanged. Every failed check is a
:class:`GuardrailDecision`, which the agent traces and announces.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._base import Guardrail, GuardrailAction, GuardrailError, GuardrailResult

__all__ = ["GuardrailDecision", "GuardrailsPipeline", "PipelineOutcome"]


@dataclass(frozen=True)
class GuardrailDecision:
    """One guardrail that fired: by which rule, on which side, what it did and why."""

    guardrail_name: str
    side: str
    action: str
    reason: str
    details: dict[str, Any] = field(default_factory=dict)
    rewritten: bool = False

    def summary(self) -> str:
        verb = {"block": "blocked", "rewrite": "rewrote", "warn": "warned"}.get(
            self.action, self.action
        )
        return f"{self.side} guardrail '{self.guardrail_name}' {verb}: {self.reason}"


@dataclass
class PipelineOutcome:
    """The text after one side of the pipeline and the decisions made on the way."""

    content: str
    decisions: list[GuardrailDecision]


class GuardrailsPipeline:
    """Input guardrails run on every user message before the model sees it; output on its answer."""

    def __init__(
        self,
        input: Iterable[Guardrail] | None = None,  # the documented keyword
        output: Iterable[Guardrail] | None = None,
    ) -> None:
        self.input: list[Guardrail] = _checked(input, "input")
        self.output: list[Guardrail] = _checked(output, "output")

    def __bool__(self) -> bool:
        return bool(self.input or self.output)

    def check_input(self, content: str) -> PipelineOutcome:
        return run_side(self.input, content, "input")

    def check_output(self, content: str) -> PipelineOutcome:
        return run_side(self.output, content, "output")

    def __repr__(self) -> str:
        inputs = [g.name for g in self.input]
        outputs = [g.name for g in self.output]
        return f"GuardrailsPipeline(input={inputs}, output={outputs})"


def _checked(guardrails: Iterable[Guardrail] | None, side: str) -> list[Guardrail]:
    items = list(guardrails or [])
    for item in items:
        if not callable(getattr(item, "check", None)):
            raise TypeError(
                f"GuardrailsPipeline({side}=...): {item!r} is not a guardrail; pass instances of "
                "Guardrail subclasses such as TopicGuardrail(deny=[...]) or PIIGuardrail()"
            )
    return items


def run_side(guardrails: Sequence[Guardrail], content: str, side: str) -> PipelineOutcome:
    """Run ``guardrails`` in order over ``content`` (see the module docstring)."""
    decisions: list[GuardrailDecision] = []
    for guardrail in guardrails:
        result = guardrail.check(content)
        if not isinstance(result, GuardrailResult):
            raise TypeError(
                f"{type(guardrail).__name__}.check() must return a GuardrailResult, "
                f"got {type(result).__name__}"
            )
        if result.passed:
            content = result.content
            continue
        name = result.guardrail_name or guardrail.name
        action = GuardrailAction(getattr(guardrail, "action", GuardrailAction.BLOCK))
        reason = result.reason or "check failed"
        if action is GuardrailAction.BLOCK:
            decisions.append(GuardrailDecision(name, side, "block", reason, result.details))
            raise _blocked(name, reason, side, decisions)
        if action is GuardrailAction.REWRITE:
            rewritten = result.content != content
            decisions.append(
                GuardrailDecision(name, side, "rewrite", reason, result.details, rewritten)
            )
            content = result.content
        else:
            import logging

            logging.getLogger("selectools.guardrails").warning(
                "%s guardrail '%s' warned: %s", side, name, reason
            )
            decisions.append(GuardrailDecision(name, side, "warn", reason, result.details))
    return PipelineOutcome(content, decisions)


def _blocked(
    name: str, reason: str, side: str, decisions: list[GuardrailDecision]
) -> GuardrailError:
    error = GuardrailError(name, reason, side)
    error.decisions = decisions  # type: ignore[attr-defined]
    return error
