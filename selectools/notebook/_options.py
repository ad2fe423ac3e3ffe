"""Option parsing for the magics' first line.

Not argparse: the one-line ``%agent`` form takes everything after its options as
the prompt verbatim (apostrophes included, which shlex-based parsing rejects),
and a mistyped option should get a "did you mean" instead of a usage dump.
Options take ``--name value`` or ``--name=value``; values may be quoted.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .errors import NotebookUsageError

__all__ = ["Option", "ParsedLine", "parse_budget", "parse_line"]

_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|(\S+))')
_ESCAPE = re.compile(r"\\(.)")


@dataclass(frozen=True)
class Option:
    """One option: ``flag`` (no value), ``value`` (required), ``optional`` (only as ``--x=v``)."""

    name: str
    kind: str = "value"
    short: str = ""
    metavar: str = "VALUE"
    help: str = ""
    choices: tuple[str, ...] = ()
    integer: bool = False

    @property
    def dest(self) -> str:
        return self.name.lstrip("-").replace("-", "_")

    def usage(self) -> str:
        names = f"{self.short}, {self.name}" if self.short else self.name
        if self.kind == "value":
            names += f" {self.metavar}"
        elif self.kind == "optional":
            names += f"[={self.metavar}]"
        return f"{names:<28} {self.help}"


@dataclass
class ParsedLine:
    options: dict[str, Any]
    positional: list[str]
    rest: str


def _tokens(line: str, start: int) -> tuple[str, int, int, bool] | None:
    """The token at ``start``: (text, token start, end, was quoted); None at the end."""
    match = _TOKEN.match(line, start)
    if match is None or match.end() == start:
        return None
    double, single, bare = match.groups()
    begin = match.start(1) - 1 if double is not None else match.start(2) - 1
    if bare is not None:
        return bare, match.start(3), match.end(), False
    text = _ESCAPE.sub(r"\1", double) if double is not None else single
    return text, begin, match.end(), True


def parse_line(
    magic: str,
    line: str,
    options: Sequence[Option],
    *,
    positional: int = 0,
    text_rest: bool = False,
) -> ParsedLine:
    """Parse options; up to ``positional`` bare words; with ``text_rest`` the rest is raw text."""
    by_name = {o.name: o for o in options} | {o.short: o for o in options if o.short}
    values: dict[str, Any] = {o.dest: (False if o.kind == "flag" else None) for o in options}
    words: list[str] = []
    position = 0
    while True:
        token = _tokens(line, position)
        if token is None:
            return ParsedLine(values, words, "")
        text, begin, end, quoted = token
        if quoted or not text.startswith("-") or text == "-":
            if text_rest:
                return ParsedLine(values, words, line[begin:].strip())
            if len(words) >= positional:
                raise _unexpected(magic, text, positional)
            words.append(text)
            position = end
            continue
        if text == "--":
            rest = line[end:].strip()
            if text_rest:
                return ParsedLine(values, words, rest)
            if rest:
                raise _unexpected(magic, rest, positional)
            return ParsedLine(values, words, "")
        name, has_value, inline = text.partition("=")
        option = by_name.get(name)
        if option is None:
            raise _unknown(magic, name, options)
        position = end
        if option.kind == "flag":
            if has_value:
                raise NotebookUsageError(f"{magic}: {name} takes no value")
            values[option.dest] = True
            continue
        if option.kind == "optional":
            values[option.dest] = inline if has_value else ""
            continue
        if not has_value:
            token = _tokens(line, position)
            if token is None:
                raise NotebookUsageError(f"{magic}: {name} needs a value ({option.metavar})")
            inline, _, position, _ = token
        values[option.dest] = _convert(magic, option, inline)


def _convert(magic: str, option: Option, value: str) -> Any:
    if option.choices and value not in option.choices:
        raise NotebookUsageError(
            f"{magic}: {option.name} must be one of {', '.join(option.choices)}, got '{value}'"
        )
    if option.integer:
        try:
            return int(value)
        except ValueError:
            raise NotebookUsageError(
                f"{magic}: {option.name} needs a whole number, got '{value}'"
            ) from None
    return value


def _unknown(magic: str, name: str, options: Sequence[Option]) -> NotebookUsageError:
    names = [o.name for o in options]
    close = difflib.get_close_matches(name, names, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    listed = ", ".join(o.name for o in options)
    return NotebookUsageError(f"{magic}: unknown option {name}{hint}; options: {listed}")


def _unexpected(magic: str, text: str, positional: int) -> NotebookUsageError:
    if positional == 0:
        return NotebookUsageError(f"{magic}: unexpected argument '{text}' (it takes only options)")
    return NotebookUsageError(f"{magic}: unexpected extra argument '{text}'")


def parse_budget(where: str, value: str) -> float | None:
    """A cost limit in USD (``none`` for no limit); anything else is a usage error."""
    if value.strip().lower() in ("none", "off", ""):
        return None
    try:
        amount = float(value.strip().lstrip("$"))
    except ValueError:
        amount = -1.0
    if not (0 < amount < float("inf")):
        raise NotebookUsageError(
            f"{where} must be a cost in USD above 0 (such as 0.05) or none; got '{value}'"
        )
    return amount
