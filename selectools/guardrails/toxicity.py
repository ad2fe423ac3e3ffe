"""``ToxicityGuardrail``: score text against a keyword blocklist.

The score is the share of the text's words that are on the blocklist (0.0 to
1.0). The check fails when the score is above ``threshold``, so the default
``threshold=0.0`` fails on any blocklisted word and ``0.3`` only when nearly a
third of the words are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ._base import Guardrail, GuardrailAction, GuardrailResult, coerce_action

__all__ = ["DEFAULT_BLOCKLIST", "ToxicityGuardrail"]

#: A small default list of abusive and threatening words; pass ``blocklist=`` for your domain.
DEFAULT_BLOCKLIST: frozenset[str] = frozenset(
    {
        "idiot",
        "idiots",
        "moron",
        "morons",
        "stupid",
        "dumbass",
        "imbecile",
        "retard",
        "loser",
        "scum",
        "bastard",
        "bitch",
        "asshole",
        "fuck",
        "fucking",
        "shit",
        "kill yourself",
        "kys",
        "hate you",
        "die",
        "worthless",
        "pathetic",
        "disgusting",
    }
)

_WORD = re.compile(r"\w+")
#: ASCII characters that are not word characters, mapped to spaces (tokens = \w+ runs)
_NON_WORD = str.maketrans(
    {chr(c): " " for c in range(128) if not (chr(c).isalnum() or chr(c) == "_")}
)


class ToxicityGuardrail(Guardrail):
    """Fails when the share of blocklisted words is above ``threshold``."""

    name = "toxicity"

    def __init__(
        self,
        threshold: float = 0.0,
        blocklist: Iterable[str] | None = None,
        action: GuardrailAction | str = GuardrailAction.BLOCK,
    ) -> None:
        if not 0.0 <= threshold < 1.0:
            raise ValueError(
                f"ToxicityGuardrail: threshold must be in [0.0, 1.0), got {threshold!r}"
            )
        words = sorted({w.lower() for w in (DEFAULT_BLOCKLIST if blocklist is None else blocklist)})
        if not words:
            raise ValueError("ToxicityGuardrail: blocklist is empty; omit it for the default list")
        self.threshold = threshold
        self.blocklist = frozenset(words)
        self.action = coerce_action(action, "ToxicityGuardrail")
        alternation = "|".join(
            re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True)
        )
        self._pattern = re.compile(rf"(?<!\w)(?:{alternation})(?!\w)", re.IGNORECASE)
        self._single = frozenset(w for w in words if " " not in w)
        self._phrases = [" ".join(w.split()) for w in words if " " in w]

    def _maybe_toxic(self, content: str) -> bool:
        """False when no blocklisted word can be in ``content`` (an ASCII text's word set, no regex)."""
        if not content.isascii():
            return True
        tokens = content.lower().translate(_NON_WORD).split()
        if not self._single.isdisjoint(tokens):
            return True
        if self._phrases:
            joined = " ".join(tokens)
            return any(phrase in joined for phrase in self._phrases)
        return False

    def matched_words(self, content: str) -> list[str]:
        """Blocklisted words found in ``content`` (lower case, each once, in order)."""
        return list(
            dict.fromkeys(" ".join(m.lower().split()) for m in self._pattern.findall(content))
        )

    def score(self, content: str) -> float:
        """Blocklisted words / all words (0.0 for an empty text)."""
        hits = len(self._pattern.findall(content))
        if not hits:
            return 0.0
        total = len(_WORD.findall(content))
        return min(1.0, hits / total) if total else 0.0

    def check(self, content: str) -> GuardrailResult:
        if not self._maybe_toxic(content) or self._pattern.search(content) is None:
            return GuardrailResult(True, content, None, self.name)
        value = self.score(content)
        if value <= self.threshold:
            return self._result(True, content, score=value)
        words = self.matched_words(content)
        return self._result(
            False,
            content,
            f"Toxic content (score {value:.2f} > {self.threshold:.2f}): {', '.join(words)}",
            score=value,
            words=words,
        )
