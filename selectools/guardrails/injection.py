"""``PromptInjectionGuardrail``: the tool-output screen of :mod:`selectools.security` as a guardrail.

Put it on the input side to refuse user messages that carry injection
payloads (for example text a user pasted from a web page).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..security import screen_output
from ._base import Guardrail, GuardrailAction, GuardrailResult, coerce_action

__all__ = ["PromptInjectionGuardrail"]


class PromptInjectionGuardrail(Guardrail):
    """Fails when :func:`~selectools.security.screen_output` finds an injection pattern.

    ``rewrite`` replaces the whole text with the screening notice.
    """

    name = "prompt_injection"

    def __init__(
        self,
        extra_patterns: Iterable[str] | None = None,
        action: GuardrailAction | str = GuardrailAction.BLOCK,
    ) -> None:
        self.extra_patterns = tuple(extra_patterns or ())
        self.action = coerce_action(action, "PromptInjectionGuardrail")
        screen_output("", self.extra_patterns)  # a bad extra pattern fails here, not mid-run

    def check(self, content: str) -> GuardrailResult:
        screened = screen_output(content, self.extra_patterns)
        if screened.safe:
            return GuardrailResult(True, content, None, self.name)
        count = len(screened.matched_patterns)
        return self._result(
            False,
            screened.content,
            f"Prompt injection detected: {count} suspicious pattern(s)",
            patterns=screened.matched_patterns,
            decoded_from=screened.decoded_from,
        )
