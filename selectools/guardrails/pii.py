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
BUILTIN_PII_TYPES: tuple[str, ...] = (
    "email",
    "credit_card",
    "iban",
    "ssn",
    "phone_intl",
    "phone_us",
    "ipv4",
)
"""The PII kinds ``PIIGuardrail`` detects out of the box (``detect=`` picks among them)."""
#: the patterns of the regex-found types (``email`` and ``credit_card`` have dedicated scans below)
_BUILTIN: dict[str, str] = {
    "iban": r"[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])",
    "ssn": rf"(?<![0-9-]){_D}{{3}}-{_D}{{2}}-{_D}{{4}}(?![0-9-])",
    "phone_intl": rf"(?<![\w+])\+{_D}{{1,3}}[ .-]?(?:\(?{_D}{{1,4}}\)?[ .-]?){{1,4}}{_D}{{2,4}}(?![0-9])",
    "phone_us": rf"(?<![\w+])(?:\({_D}{{3}}\)\s?|{_D}{{3}}[-. ]){_D}{{3}}[-. ]{_D}{{4}}(?![0-9])",
    "ipv4": r"(?<![0-9.])(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}"
    r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?![0-9]|\.[0-9])",
}

#: Speed (guardrails run on every message): a scan that starts with a plain character class
#: lets the regex engine skip ahead, while a leading lookbehind makes it try every position.
#: So the text is scanned once for runs of digits and separators, and the digit-based
#: patterns run only inside those (small) windows; emails are found from their "@".
_NUMERIC = re.compile(r"[0-9](?:[0-9 ().\-]*[0-9])?")
_NUMERIC_TYPES = frozenset({"ssn", "phone_intl", "phone_us", "ipv4"})
_EMAIL_LOCAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._%+-")
_EMAIL_DOMAIN = re.compile(r"[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])")
_GROUP = re.compile(r"[0-9]+")


def _emails(content: str) -> list[PIIMatch]:
    found = []
    at = content.find("@")
    while at != -1:
        start = at
        while start > 0 and at - start < 64 and content[start - 1] in _EMAIL_LOCAL:
            start -= 1
        before = content[start - 1] if start else ""
        if start < at and not (before.isalnum() or before == "_"):
            domain = _EMAIL_DOMAIN.match(content, at + 1)
            if domain is not None:
                end = domain.end()
                found.append(PIIMatch("email", content[start:end], start, end))
                at = content.find("@", end)
                continue
        at = content.find("@", at + 1)
    return found


def _cards(content: str, lo: int, hi: int) -> list[PIIMatch]:
    """Luhn-valid card numbers in ``content[lo:hi]``: 13-19 digits in groups joined by one space or hyphen.

    Every group boundary is tried as a start, so a number next to other digits
    ("ref 12 4111 1111 1111 1111") is still found.
    """
    groups = [(m.start(), m.end()) for m in _GROUP.finditer(content, lo, hi)]
    found: list[PIIMatch] = []
    index = 0
    while index < len(groups):
        best = None
        digits = ""
        for j in range(index, len(groups)):
            start, end = groups[j]
            if j > index:
                gap = content[groups[j - 1][1] : start]
                if gap not in (" ", "-"):
                    break
            digits += content[start:end]
            if len(digits) > 19:
                break
            if len(digits) >= 13 and luhn_valid(digits):
                best = j
        if best is None:
            index += 1
            continue
        start, end = groups[index][0], groups[best][1]
        found.append(PIIMatch("credit_card", content[start:end], start, end))
        index = best + 1
    return found


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
        unknown = [t for t in types if t not in BUILTIN_PII_TYPES and t not in custom]
        if unknown:
            raise ValueError(
                f"PIIGuardrail: unknown PII type(s) {unknown}; built-in types are "
                f"{', '.join(BUILTIN_PII_TYPES)} (add others with custom_patterns={{name: regex}})"
            )
        self.action = coerce_action(action, "PIIGuardrail")
        self.detect_types = types
        self._email = "email" in types
        self._cards = "credit_card" in types
        self._iban = re.compile(_BUILTIN["iban"]) if "iban" in types else None
        self._numeric = [(t, re.compile(_BUILTIN[t])) for t in types if t in _NUMERIC_TYPES]
        self._custom: list[tuple[str, re.Pattern[str]]] = []
        for pii_type, regex in custom.items():
            try:
                self._custom.append((pii_type, re.compile(regex)))
            except re.error as exc:
                raise ValueError(
                    f"PIIGuardrail: custom pattern {pii_type!r} is not a valid regex: {exc}"
                ) from None

    def detect(self, content: str) -> list[PIIMatch]:
        """Every PII match in ``content``, in text order, without overlaps."""
        found: list[PIIMatch] = []
        if self._email and "@" in content:
            found += _emails(content)
        if self._iban is not None:
            for match in self._iban.finditer(content):
                start = match.start()
                if (start == 0 or not content[start - 1].isalnum()) and _iban_valid(match.group()):
                    found.append(PIIMatch("iban", match.group(), start, match.end()))
        if self._cards or self._numeric:
            size = len(content)
            for window in _NUMERIC.finditer(content):
                lo, hi = window.span()
                if self._cards and hi - lo >= 13:
                    found += _cards(content, lo, hi)
                if self._numeric:
                    lo = max(0, lo - 2)  # "+44 ..." and "(555) ..." start before the digits
                    for pii_type, pattern in self._numeric:
                        for match in pattern.finditer(content, lo, min(size, hi + 1)):
                            found.append(PIIMatch(pii_type, match.group(), *match.span()))
        for pii_type, pattern in self._custom:
            for match in pattern.finditer(content):
                found.append(PIIMatch(pii_type, match.group(), match.start(), match.end()))
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
