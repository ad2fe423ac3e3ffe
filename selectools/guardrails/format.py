"""``FormatGuardrail``: the text must be JSON (with required keys) and within length bounds."""

from __future__ import annotations

import json
from collections.abc import Iterable

from ._base import Guardrail, GuardrailAction, GuardrailResult, coerce_action

__all__ = ["FormatGuardrail"]


class FormatGuardrail(Guardrail):
    """Validates output format. ``required_keys`` implies ``require_json``.

    A JSON answer wrapped in a Markdown code fence (```json ... ```) is
    accepted: models often add one.
    """

    name = "format"

    def __init__(
        self,
        require_json: bool = False,
        required_keys: Iterable[str] | None = None,
        min_length: int | None = None,
        max_length: int | None = None,
        action: GuardrailAction | str = GuardrailAction.BLOCK,
    ) -> None:
        self.required_keys = list(required_keys or [])
        self.require_json = require_json or bool(self.required_keys)
        for knob, value in (("min_length", min_length), ("max_length", max_length)):
            if value is not None and (not isinstance(value, int) or value < 0):
                raise ValueError(f"FormatGuardrail: {knob} must be an int >= 0, got {value!r}")
        if min_length is not None and max_length is not None and min_length > max_length:
            raise ValueError("FormatGuardrail: min_length is greater than max_length")
        self.min_length = min_length
        self.max_length = max_length
        self.action = coerce_action(action, "FormatGuardrail")

    def check(self, content: str) -> GuardrailResult:
        size = len(content)
        if self.min_length is not None and size < self.min_length:
            return self._result(False, content, f"Too short: {size} < {self.min_length} characters")
        if self.max_length is not None and size > self.max_length:
            return self._result(False, content, f"Too long: {size} > {self.max_length} characters")
        if self.require_json:
            text = _strip_fence(content)
            try:
                value = json.loads(text)
            except ValueError as exc:
                return self._result(False, content, f"Invalid JSON: {exc}")
            except RecursionError:  # model text nested deeper than the interpreter's stack
                return self._result(False, content, "Invalid JSON: nested too deeply to read")
            if self.required_keys:
                if not isinstance(value, dict):
                    return self._result(
                        False, content, f"Expected a JSON object, got {type(value).__name__}"
                    )
                missing = [k for k in self.required_keys if k not in value]
                if missing:
                    return self._result(
                        False, content, f"Missing required keys: {', '.join(missing)}"
                    )
        return GuardrailResult(True, content, None, self.name)


def _strip_fence(content: str) -> str:
    text = content.strip()
    if text.startswith("```") and text.endswith("```") and len(text) >= 6:
        text = text[3:-3]
        newline = text.find("\n")
        if newline != -1 and text[:newline].strip().isalnum():
            text = text[newline + 1 :]
    return text
