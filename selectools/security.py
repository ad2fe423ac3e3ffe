"""Tool-output screening: catch prompt-injection payloads before the model reads them.

A tool that fetches outside content (a web page, an email, a file) can carry
instructions aimed at the model. :func:`screen_output` matches the content
against known injection patterns; when one matches, the agent replaces the tool
result with a short notice the model can relay to the user::

    [Tool output blocked: potential prompt injection detected. N suspicious pattern(s) found.]

Opt in per tool (``@tool(screen_output=True)``) or for every tool
(``AgentConfig(screen_tool_output=True)``); add your own regexes with
``AgentConfig(output_screening_patterns=[...])``.

Besides the text as written, the screen reads simple disguises of it: Unicode
look-alikes (NFKC), zero-width characters, HTML entities, URL escapes, base64
blobs, digit-for-letter spelling and letter-by-letter spacing. Patterns cover
English plus the common phrasing of "ignore previous instructions" in ten other
languages. This is a pattern screen, not a proof: pair it with coherence
checking (:mod:`selectools.coherence`) for attacks no pattern knows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

__all__ = [
    "BUILTIN_PATTERNS",
    "MULTILINGUAL_PATTERNS",
    "ScreeningResult",
    "blocked_message",
    "screen_output",
]

#: The English injection patterns (matched ignoring case), one technique each.
BUILTIN_PATTERNS: tuple[str, ...] = (
    # ignore instructions
    r"ignore\s+(all\s+)?previous\s+instructions",
    r"ignore\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+|these\s+)?(?:prior|above|earlier|preceding|former|original|system|previous\s+(?:rules|prompts?|directions|guidelines|context))\b(?:\s+(?:instructions?|directions?|rules|prompts?|guidelines|context))?",
    # disregard context
    r"disregard\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+)?(?:previous\s+|prior\s+|above\s+|earlier\s+|preceding\s+|system\s+)?(?:instructions?|context|rules|prompts?|guidelines|directions?)",
    # role hijacking
    r"you\s+are\s+now\s+(?:an?\s+|the\s+|in\s+)?(?:[\w-]+\s+){0,3}?(?:ai|assistant|bot|model|dan|jailbroken|unrestricted|unfiltered|uncensored|developer\s+mode)\b",
    # "You are now a <role>." (the SECURITY page's example); a status notice such as
    # "You are now a member of ..." / "the owner of ..." (a preposition follows) is not
    r"you\s+are\s+now\s+(?:an?|the)\s+(?:(?!(?:of|to|on|in|at|for|with|from|by)\b)[\w-]+\s+){0,2}?"
    r"(?!(?:of|to|on|in|at|for|with|from|by)\b)[\w-]+\b(?!\s+(?:of|to|on|in|at|for|with|from|by)\b)",
    r"act\s+as\s+if\s+you\s+(?:are|were|have)\b",
    # new instructions
    r"new\s+(?:system\s+)?instructions\s*:",
    # system tag injection
    r"<\s*/?\s*system\s*>",
    # chat template markers
    r"\[/?INST\]|<<\s*/?\s*SYS\s*>>",
    r"<\|(?:im_start|im_end|system|endoftext|start_header_id|eot_id)\|>",
    # memory wipe
    r"forget\s+(?:everything|all\s+(?:previous|prior|your|the|of\s+your)\b|your\s+(?:instructions|rules|previous))",
    # end-of-sequence tokens
    r"</s>",
    # impersonation
    r"pretend\s+(?:to\s+be|you\s+are)\s+(?:DAN\b|an?\s+(?:unrestricted|unfiltered|uncensored|jailbroken|evil)\b|(?:an?\s+)?(?:ai|assistant|model|chatbot)\s+(?:without|with\s+no)\b)",
    r"(?:enable|enter|activate|switch\s+to)\s+(?:developer|god|jailbreak|DAN)\s+mode",
    # override directives
    r"important\s*[:!-]\s*(?:override|ignore|disregard|new\s+instructions|you\s+must\s+now|system\s+update)",
    r"(?:override|bypass|disable|ignore)\s+(?:your\s+|the\s+|all\s+)?(?:safety|security|content)\s+(?:rules|filters?|guidelines|policies|restrictions|protocols?)",
    # prompt extraction and exfiltration
    r"(?:reveal|print|output|show|repeat|leak)\s+(?:me\s+)?(?:your|the)\s+(?:full\s+)?(?:system\s+prompt|hidden\s+instructions|initial\s+instructions|instructions\s+above)",
    r"(?:send|forward|email|post|upload|exfiltrate)\s+(?:all\s+|the\s+|a\s+copy\s+of\s+)?(?:the\s+)?(?:user'?s'?|conversation|chat|private|confidential|stored)\s+(?:data|secrets|history|messages|credentials|files|information|api\s+keys?|passwords?)",
    r"(?:do\s+not|don't|never)\s+(?:tell|inform|alert|notify|mention\s+(?:this\s+)?to)\s+the\s+user",
    # a tool call ordered from inside content
    r"(?:instead|now|immediately),?\s+(?:call|invoke|execute|run|use)\s+(?:the\s+)?`?[a-z]+_[a-z_]+`?(?:\s+(?:tool|function))?\s*(?:\(|with\b)",
)

#: "Ignore the previous instructions" and close variants in other languages.
MULTILINGUAL_PATTERNS: tuple[str, ...] = (
    r"ignora\s+(?:todas\s+)?(?:las\s+)?instrucciones\s+(?:anteriores|previas)",  # es
    r"ignore[zr]?\s+(?:toutes\s+)?(?:les\s+)?(?:consignes|instructions)\s+(?:pr[ée]c[ée]dentes|ant[ée]rieures)",  # fr
    r"ignorier(?:e|en)?\s+(?:du\s+|sie\s+)?(?:alle\s+)?(?:vorherigen|bisherigen|vorigen|obigen)\s+(?:anweisungen|instruktionen|befehle)",  # de
    r"ignora\s+(?:tutte\s+)?(?:le\s+)?istruzioni\s+precedenti",  # it
    r"ignor[ea]\s+(?:todas\s+)?(?:as\s+)?instru[çc][õo]es\s+anteriores",  # pt
    r"negeer\s+(?:alle\s+)?(?:vorige|eerdere|voorgaande)\s+instructies",  # nl
    r"игнорируй(?:те)?\s+(?:все\s+)?(?:предыдущие|прошлые|прежние)\s+(?:инструкции|указания)",  # ru
    r"忽略(?:之前|以前|上面|先前|前面)?的?(?:所有)?的?(?:指令|指示|说明)",  # zh
    r"(?:以前|前|これまで|上記)の(?:すべての)?(?:指示|命令)を無視",  # ja
    r"이전\s*(?:의\s*)?(?:모든\s*)?(?:지시|명령)\S*\s*무시",  # ko
    r"önceki\s+(?:tüm\s+)?talimatları\s+(?:yok\s+say|görmezden\s+gel)",  # tr
)


@dataclass
class ScreeningResult:
    """``safe``: nothing matched; ``content``: the text to give the model (the notice when unsafe)."""

    safe: bool
    content: str
    matched_patterns: list[str] = field(default_factory=list)
    #: which readings of the text matched besides the text as written ("base64", "leet", ...)
    decoded_from: list[str] = field(default_factory=list)


def blocked_message(count: int) -> str:
    """The notice that replaces a screened-out tool result."""
    return (
        "[Tool output blocked: potential prompt injection detected. "
        f"{count} suspicious pattern(s) found.]"
    )


@lru_cache(maxsize=32)
def _compiled(extra: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    compiled = []
    for source in (*BUILTIN_PATTERNS, *MULTILINGUAL_PATTERNS, *extra):
        try:
            compiled.append((source, re.compile(source, re.IGNORECASE)))
        except re.error as exc:
            raise ValueError(
                f"output screening pattern {source!r} is not a valid regex: {exc}"
            ) from None
    return tuple(compiled)


def screen_output(content: str, extra_patterns: Iterable[str] | None = None) -> ScreeningResult:
    """Screen ``content`` for prompt injection (see the module docstring).

    ``matched_patterns`` lists the source of each pattern that matched the text
    or one of its decoded readings, in pattern order.
    """
    text = content if isinstance(content, str) else str(content)
    patterns = _compiled(tuple(extra_patterns or ()))
    matched: dict[str, None] = {}
    decoded_from: list[str] = []
    for label, variant in _readings(text):
        hit = False
        for source, pattern in patterns:
            if source not in matched and pattern.search(variant) is not None:
                matched[source] = None
                hit = True
        if hit and label != "text":
            decoded_from.append(label)
    if not matched:
        return ScreeningResult(True, text)
    names = list(matched)
    return ScreeningResult(False, blocked_message(len(names)), names, decoded_from)


_ZERO_WIDTH = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{16,}={0,2}(?![A-Za-z0-9+/=])")
_URL_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_SPACED = re.compile(r"(?<!\S)(?:\w[ .\-_]){3,}\w(?!\S)")
_LEET_WORD = re.compile(r"\b(?=\w*[A-Za-z])(?=\w*[0134578@$])[\w@$]+\b")
_LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "@": "a", "$": "s"}
)


def _readings(text: str) -> Sequence[tuple[str, str]]:
    """The text as written and each decoded reading that differs from it."""
    out = [("text", text)]
    base = text
    if not text.isascii():
        import unicodedata

        normal = _ZERO_WIDTH.sub("", unicodedata.normalize("NFKC", text))
        if normal != text:
            out.append(("unicode", normal))
            base = normal
    if "&" in base and ";" in base:
        import html

        unescaped = html.unescape(base)
        if unescaped != base:
            out.append(("html", unescaped))
    if "%" in base and _URL_ESCAPE.search(base):
        from urllib.parse import unquote

        out.append(("url", unquote(base)))
    decoded = _base64_texts(base)
    if decoded:
        out.append(("base64", decoded))
    if _SPACED.search(base):
        out.append(("spaced", _SPACED.sub(lambda m: re.sub(r"[ .\-_]", "", m.group(0)), base)))
    if _LEET_WORD.search(base):
        leet = _LEET_WORD.sub(lambda m: m.group(0).translate(_LEET), base)
        if leet != base:
            out.append(("leet", leet))
    return out


def _base64_texts(text: str) -> str:
    """The printable texts hidden in base64 blobs of ``text``, joined by newlines."""
    if len(text) < 16:
        return ""
    import base64
    import binascii

    found = []
    for blob in _BASE64.findall(text):
        padded = blob + "=" * (-len(blob) % 4)
        try:
            raw = base64.b64decode(padded, validate=True)
            decoded = raw.decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        if decoded and sum(ch.isprintable() or ch in "\n\t" for ch in decoded) >= 0.9 * len(
            decoded
        ):
            found.append(decoded)
    return "\n".join(found)
