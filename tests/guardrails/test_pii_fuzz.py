"""The PII detector under hypothesis: no crash on any text, no Luhn-valid card missed.

Each generated case is random text (any Unicode) around a Luhn-valid card
number of 13-19 digits, written plain or in groups separated by spaces or
hyphens. The card is set off by " | " so the random text cannot glue digits to
it (digits touching a number make it a different number).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from selectools.guardrails import PIIGuardrail, luhn_valid

EXAMPLES = 10_000
GUARD = PIIGuardrail()
CUSTOM = PIIGuardrail(custom_patterns={"employee_id": r"EMP-\d{6}"})


def _check_digit(body: str) -> str:
    for digit in "0123456789":
        if luhn_valid(body + digit):
            return digit
    raise AssertionError("unreachable: one digit always completes a Luhn number")


@st.composite
def cards(draw: st.DrawFn) -> str:
    length = draw(st.integers(min_value=13, max_value=19))
    body = draw(st.text(alphabet="0123456789", min_size=length - 1, max_size=length - 1))
    digits = body + _check_digit(body)
    separator = draw(st.sampled_from(["", " ", "-"]))
    if not separator:
        return digits
    groups, position = [], 0
    while position < len(digits):
        size = draw(st.integers(min_value=3, max_value=6))
        groups.append(digits[position : position + size])
        position += size
    return separator.join(groups)


def test_pii_detection_fuzz() -> None:
    seen = 0

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(before=st.text(max_size=80), card=cards(), after=st.text(max_size=80))
    def check(before: str, card: str, after: str) -> None:
        nonlocal seen
        seen += 1
        text = f"{before} | {card} | {after}"
        matches = GUARD.detect(text)
        start = len(before) + 3
        assert any(
            m.pii_type == "credit_card" and (m.start, m.end) == (start, start + len(card))
            for m in matches
        ), (text, matches)
        redacted = GUARD.check(text).content
        assert card not in redacted and "[CREDIT_CARD:********]" in redacted
        spans = [(m.start, m.end) for m in matches]
        assert spans == sorted(spans) and all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
        CUSTOM.check(before + after)  # arbitrary text never crashes a custom detector

    check()
    print(f"\nPII fuzz: {seen} generated strings, every Luhn-valid card found")
    assert seen >= EXAMPLES
