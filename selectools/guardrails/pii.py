"""PII detection and redaction with regular expressions plus checksums.

Built-in types: ``email``, ``phone_us``, ``phone_intl`` (``+`` country code),
``ssn`` (US social security number), ``credit_card`` (13-19 digits, spaces or
hyphens allowed, **Luhn-valid only**), ``iban`` (country code, check digits and
BBAN, **mod-97 valid only**), ``ipv4``. The checksums keep order numbers and
dates from being redacted as cards or IBANs.

A match is replaced by ``[TYPE:********]`` (``[EMAIL:********]``), so the text
stays readable and the model still knows *what* was there. Overlapping matches
keep the earliest (then the longest) one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ._base import Guardrail, GuardrailAction, GuardrailResult, coerce_action

__all__ = ["BUILTIN_PII_TYPES", "PIIGuardrail", "PIIMatch", "luhn_valid", "redact_pii"]


@dataclass(frozen=True, slots=True)
class PIIMatch:
    """One piece of PII found in a text: its type, the matched value and its span."""

    pii_type: str
    value: str
    start: int
    end: int


def luhn_valid(digits: str) -> bool:
    """The Luhn checksum of a string of digits (payment card numbers)."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if index % 2:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def _iban_valid(text: str) -> bool:
    compact = text.replace(" ", "").upper()
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(ch, 36)) for ch in rearranged)
    return int(number) % 97 == 1


_D = "[0-9]"
#: type -> (pattern, a cheap necessary condition the text must meet before the scan)
_BUILTIN: dict[str, str] = {
    "email": r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])",
    "credit_card": rf"(?<![0-9]){_D}(?:[ -]?{_D}){{12,18}}(?![0-9])",
    "iban": r"(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])",
    "ssn": rf"(?<![0-9-]){_D}{{3}}-{_D}{{2}}-{_D}{{4}}(?![0-9-])",
    "phone_intl": rf"(?<![\w+])\+{_D}{{1,3}}[ .-]?(?:\(?{_D}{{1,4}}\)?[ .-]?){{1,4}}{_D}{{2,4}}(?![0-9])",
    "phone_us": rf"(?<![\w+])(?:\({_D}{{3}}\)\s?|{_D}{{3}}[-. ]){_D}{{3}}[-. ]{_D}{{4}}(?![0-9])",
    "ipv4": r"(?<![0-9.])(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}"
    r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?![0-9]|\.[0-9])",
}
BUILTIN_PII_TYPES: tuple[str, ...] = tuple(_BUILTIN)

_VALIDATORS = {
    "credit_card": lambda value: luhn_valid(value.replace(" ", "").replace("-", "")),
    "iban": _iban_valid,
}
_DIGIT = re.compile(r"[0-9]")
_NEEDS_DIGIT = frozenset({"credit_card", "iban", "ssn", "phone_intl", "phone_us", "ipv4"})


class PIIGuardrail(Guardrail):
    """Finds PII and, by default, rewrites the text with each match redacted.

    ``detect`` limits the built-in types; ``custom_patterns`` adds
    ``{type: regex}`` of your own. ``action`` defaults to ``rewrite`` (block
    and warn work too: a block reports the types found, never the values).
    """

    name = "pii"

    def __init__(
        self,
        detect: Iterable[str] | None = None,
        action: GuardrailAction | str = GuardrailAction.REWRITE,
        custom_patterns: Mapping[str, str] | None = None,
    ) -> None:
        types = list(BUILTIN_PII_TYPES if detect is None else detect)
        custom = dict(custom_patterns or {})
        unknown = [t for t in types if t not in _BUILTIN and t not in custom]
        if unknown:
            raise ValueError(
                f"PIIGuardrail: unknown PII type(s) {unknown}; built-in types are "
                f"{', '.join(BUILTIN_PII_TYPES)} (add others with custom_patterns={{name: regex}})"
            )
        self.action = coerce_action(action, "PIIGuardrail")
        self.detect_types = types
        patterns: list[tuple[str, re.Pattern[str], bool]] = []
        for pii_type in types:
            if pii_type in _BUILTIN:
                patterns.append(
                    (pii_type, re.compile(_BUILTIN[pii_type]), pii_type in _NEEDS_DIGIT)
                )
        for pii_type, regex in custom.items():
            try:
                compiled = re.compile(regex)
            except re.error as exc:
                raise ValueError(
                    f"PIIGuardrail: custom pattern {pii_type!r} is not a valid regex: {exc}"
                ) from None
            patterns.append((pii_type, compiled, False))
        self._patterns = patterns

    def detect(self, content: str) -> list[PIIMatch]:
        """Every PII match in ``content``, in text order, without overlaps."""
        found: list[PIIMatch] = []
        has_digit: bool | None = None
        for pii_type, pattern, needs_digit in self._patterns:
            if needs_digit:
                if has_digit is None:
                    has_digit = _DIGIT.search(content) is not None
                if not has_digit:
                    continue
            elif pii_type == "email" and "@" not in content:
                continue
            validate = _VALIDATORS.get(pii_type)
            for match in pattern.finditer(content):
                value = match.group(0)
                if validate is None or validate(value):
                    found.append(PIIMatch(pii_type, value, match.start(), match.end()))
        if len(found) < 2:
            return found
        found.sort(key=lambda m: (m.start, m.start - m.end))
        kept: list[PIIMatch] = []
        end = -1
        for item in found:
            if item.start >= end:
                kept.append(item)
                end = item.end
        return kept

    def redact(self, content: str, matches: list[PIIMatch] | None = None) -> str:
        """``content`` with each match replaced by ``[TYPE:********]``."""
        if matches is None:
            matches = self.detect(content)
        return redact_pii(content, matches)

    def check(self, content: str) -> GuardrailResult:
        matches = self.detect(content)
        if not matches:
            return GuardrailResult(True, content, None, self.name)
        counts: dict[str, int] = {}
        for match in matches:
            counts[match.pii_type] = counts.get(match.pii_type, 0) + 1
        kinds = ", ".join(f"{kind} ({n})" if n > 1 else kind for kind, n in counts.items())
        return GuardrailResult(
            False,
            redact_pii(content, matches),
            f"PII detected: {kinds}",
            self.name,
            {"redacted": counts},
        )


def redact_pii(content: str, matches: list[PIIMatch]) -> str:
    """Replace non-overlapping ``matches`` (in text order) by ``[TYPE:********]``."""
    parts: list[str] = []
    position = 0
    for match in matches:
        parts.append(content[position : match.start])
        parts.append(f"[{match.pii_type.upper()}:********]")
        position = match.end
    parts.append(content[position:])
    return "".join(parts)
