"""``LengthGuardrail``: bounds in characters and/or words; ``rewrite`` truncates to fit."""

from __future__ import annotations

import re

from ._base import Guardrail, GuardrailAction, GuardrailResult, coerce_action

__all__ = ["LengthGuardrail"]

_WORD = re.compile(r"\S+")


class LengthGuardrail(Guardrail):
    """Fails when the text is longer or shorter than the bounds.

    With ``action="rewrite"`` a text over a maximum is truncated (at a word
    boundary for ``max_words``); a text under a minimum cannot be rewritten and
    passes through unchanged with a warning in the trace.
    """

    name = "length"

    def __init__(
        self,
        max_chars: int | None = None,
        max_words: int | None = None,
        min_chars: int | None = None,
        min_words: int | None = None,
        action: GuardrailAction | str = GuardrailAction.BLOCK,
    ) -> None:
        bounds = {
            "max_chars": max_chars,
            "max_words": max_words,
            "min_chars": min_chars,
            "min_words": min_words,
        }
        for knob, value in bounds.items():
            if value is not None and (
                not isinstance(value, int) or isinstance(value, bool) or value < 0
            ):
                raise ValueError(f"LengthGuardrail: {knob} must be an int >= 0, got {value!r}")
        if all(v is None for v in bounds.values()):
            raise ValueError(
                "LengthGuardrail: give at least one of max_chars, max_words, min_chars, min_words"
            )
        self.max_chars = max_chars
        self.max_words = max_words
        self.min_chars = min_chars
        self.min_words = min_words
        self.action = coerce_action(action, "LengthGuardrail")

    def check(self, content: str) -> GuardrailResult:
        size = len(content)
        if self.max_chars is not None and size > self.max_chars:
            return self._result(
                False,
                content[: self.max_chars],
                f"Too long: {size} > {self.max_chars} characters",
            )
        if self.min_chars is not None and size < self.min_chars:
            return self._result(False, content, f"Too short: {size} < {self.min_chars} characters")
        if self.max_words is None and self.min_words is None:
            return GuardrailResult(True, content, None, self.name)
        if (
            self.max_words is not None
            and (size + 1) // 2 <= self.max_words
            and self.min_words is None
        ):
            # a word takes at least two characters with its separator: no need to count
            return GuardrailResult(True, content, None, self.name)
        words = _WORD.findall(content) if self.max_words is None else None
        if self.max_words is not None:
            matches = list(_WORD.finditer(content))
            count = len(matches)
            if count > self.max_words:
                cut = matches[self.max_words - 1].end() if self.max_words else 0
                return self._result(
                    False,
                    content[:cut],
                    f"Too long: {count} > {self.max_words} words",
                )
        else:
            count = len(words or ())
        if self.min_words is not None and count < self.min_words:
            return self._result(False, content, f"Too short: {count} < {self.min_words} words")
        return GuardrailResult(True, content, None, self.name)
