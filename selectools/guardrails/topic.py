"""``TopicGuardrail``: deny topics by keyword, matched on word boundaries."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ._base import Guardrail, GuardrailAction, GuardrailResult, coerce_action

__all__ = ["TopicGuardrail"]


class TopicGuardrail(Guardrail):
    """Fails when the text mentions a denied topic (``"politics"`` matches "politics", not "geopolitics").

    Matching ignores case unless ``case_sensitive=True``. All keywords are one
    compiled alternation, so the text is scanned once however many topics.
    """

    name = "topic"

    def __init__(
        self,
        deny: Iterable[str],
        case_sensitive: bool = False,
        action: GuardrailAction | str = GuardrailAction.BLOCK,
    ) -> None:
        topics = [t for t in deny if isinstance(t, str) and t.strip()]
        if not topics:
            raise ValueError("TopicGuardrail: deny must list at least one topic keyword")
        self.deny = topics
        self.case_sensitive = case_sensitive
        self.action = coerce_action(action, "TopicGuardrail")
        alternation = "|".join(re.escape(t) for t in sorted(topics, key=len, reverse=True))
        flags = 0 if case_sensitive else re.IGNORECASE
        self._pattern = re.compile(rf"(?<!\w)(?:{alternation})(?!\w)", flags)
        self._canonical = {(t if case_sensitive else t.lower()): t for t in topics}
        self._needles = list(self._canonical)

    def matched_topics(self, content: str) -> list[str]:
        """The denied topics found in ``content``, in the order they first appear."""
        seen: dict[str, None] = {}
        for found in self._pattern.findall(content):
            key = found if self.case_sensitive else found.lower()
            seen.setdefault(self._canonical.get(key, found), None)
        return list(seen)

    def check(self, content: str) -> GuardrailResult:
        if content.isascii():
            # a substring test per keyword (C speed) rules out most texts before the regex
            haystack = content if self.case_sensitive else content.lower()
            if not any(needle in haystack for needle in self._needles):
                return GuardrailResult(True, content, None, self.name)
        if self._pattern.search(content) is None:
            return GuardrailResult(True, content, None, self.name)
        topics = self.matched_topics(content)
        return self._result(
            False, content, f"Denied topics detected: {', '.join(topics)}", topics=topics
        )
