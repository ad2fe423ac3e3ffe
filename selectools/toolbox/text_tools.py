"""Text tools: counting, regex search and replace, extraction, case and truncation."""

from __future__ import annotations

import re

from .._untrusted_regex import UntrustedPattern
from ..tools import tool

__all__ = [
    "convert_case",
    "count_text",
    "extract_emails",
    "extract_urls",
    "replace_text",
    "search_text",
    "truncate_text",
]

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_URL = re.compile(r"\b(?:https?|ftp)://[^\s<>\"'`]+|\bwww\.[^\s<>\"'`]+", re.IGNORECASE)
_WORDS = re.compile(r"[A-Za-z0-9]+")
_TRAILING = ".,;:!?)]}'\""


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


@tool
def count_text(text: str, detailed: bool = True) -> str:
    """Count the words, characters and lines of a text.

    Args:
        text: The text to count.
        detailed: Also count characters without spaces, sentences and paragraphs.
    """
    words = len(text.split())
    if not detailed:
        return f"{words} words"
    lines = len(text.splitlines()) if text else 0
    sentences = len([s for s in re.split(r"[.!?]+(?:\s|$)", text) if s.strip()])
    paragraphs = len([p for p in re.split(r"\n\s*\n", text) if p.strip()])
    no_spaces = len(re.sub(r"\s", "", text))
    return "\n".join(
        [
            f"Words: {words}",
            f"Characters: {len(text)}",
            f"Characters (no spaces): {no_spaces}",
            f"Lines: {lines}",
            f"Sentences: {sentences}",
            f"Paragraphs: {paragraphs}",
        ]
    )


@tool
def search_text(
    text: str, pattern: str, case_sensitive: bool = True, return_matches: bool = True
) -> str:
    """Search a text with a regular expression.

    Args:
        text: The text to search.
        pattern: A Python regular expression.
        case_sensitive: Match case exactly.
        return_matches: List the matches with their positions, not just their number.
    """
    found = UntrustedPattern(pattern, ignore_case=not case_sensitive).finditer(text)
    if not found:
        return f"No matches for {pattern!r}"
    head = f"Found {len(found)} match{'es' if len(found) != 1 else ''}"
    if not return_matches:
        return head
    lines = [f"- {m.group(0)!r} at {m.start()}" for m in found[:100]]
    if len(found) > 100:
        lines.append(f"... and {len(found) - 100} more")
    return head + ":\n" + "\n".join(lines)


@tool
def replace_text(
    text: str,
    pattern: str,
    replacement: str,
    case_sensitive: bool = True,
    max_replacements: int = 0,
) -> str:
    """Replace regular-expression matches in a text and return the new text.

    Args:
        text: The text to change.
        pattern: A Python regular expression.
        replacement: The replacement (may use \\1 group references).
        case_sensitive: Match case exactly.
        max_replacements: Replace at most this many matches; 0 replaces all.
    """
    if max_replacements < 0:
        raise ValueError("max_replacements must be 0 (all) or a positive number")
    matcher = UntrustedPattern(pattern, ignore_case=not case_sensitive)
    return matcher.sub(replacement, text, count=max_replacements)


@tool
def extract_emails(text: str) -> str:
    """Find the email addresses in a text (one per line, duplicates removed).

    Args:
        text: The text to search.
    """
    found = _unique(_EMAIL.findall(text))
    return "\n".join(found) if found else "No email addresses found"


@tool
def extract_urls(text: str) -> str:
    """Find the URLs in a text (one per line, duplicates removed).

    Args:
        text: The text to search.
    """
    found = _unique([m.rstrip(_TRAILING) for m in _URL.findall(text)])
    return "\n".join(found) if found else "No URLs found"


def _words(text: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)
    return [w.lower() for w in _WORDS.findall(spaced)]


@tool(
    param_metadata={
        "case_type": {"enum": ["upper", "lower", "title", "sentence", "camel", "snake", "kebab"]}
    }
)
def convert_case(text: str, case_type: str) -> str:
    """Change the case of a text: upper, lower, title, sentence, camel, snake or kebab.

    Args:
        text: The text to convert.
        case_type: One of upper, lower, title, sentence, camel, snake, kebab.
    """
    if case_type == "upper":
        return text.upper()
    if case_type == "lower":
        return text.lower()
    if case_type == "title":
        return text.title()
    if case_type == "sentence":
        lowered = text.lower()
        return re.sub(r"(^\s*|[.!?]\s+)([a-z])", lambda m: m.group(1) + m.group(2).upper(), lowered)
    words = _words(text)
    if case_type == "camel":
        return "".join(w if i == 0 else w.capitalize() for i, w in enumerate(words))
    if case_type == "snake":
        return "_".join(words)
    if case_type == "kebab":
        return "-".join(words)
    raise ValueError(
        f"case_type must be upper, lower, title, sentence, camel, snake or kebab, got {case_type!r}"
    )


@tool
def truncate_text(text: str, max_length: int = 100, suffix: str = "...") -> str:
    """Shorten a text to at most max_length characters, ending with suffix when cut.

    Args:
        text: The text to shorten.
        max_length: The longest result allowed, suffix included.
        suffix: Appended when the text is cut.
    """
    if max_length < len(suffix):
        raise ValueError(f"max_length ({max_length}) must be at least the suffix length")
    if len(text) <= max_length:
        return text
    return text[: max_length - len(suffix)].rstrip() + suffix
