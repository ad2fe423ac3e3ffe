"""Settings from the environment, or from a ``.env`` file in the working directory.

The quickstart tells users to put ``OPENAI_API_KEY=...`` in a ``.env`` file, so
providers look there when a variable is not set. The file is only *read*: it
never changes ``os.environ`` and never overrides a variable that is already
set. The parser is deliberately small (python-dotenv is not required):

* ``KEY=VALUE`` lines, optionally prefixed with ``export``;
* blank lines and ``#`` comments are skipped, and so is `` # comment`` after an
  unquoted value;
* values may be wrapped in single quotes (taken literally) or double quotes
  (``\\n``, ``\\t``, ``\\"`` and ``\\\\`` are unescaped);
* a line that is none of these is skipped with a :class:`DotenvWarning` naming
  its line number (never its content, which may hold a secret).
"""

from __future__ import annotations

import os
import re
import threading
import warnings
from pathlib import Path

__all__ = ["DotenvWarning", "env_value", "parse_dotenv", "read_dotenv"]


class DotenvWarning(UserWarning):
    """A line of a ``.env`` file could not be read and was skipped."""


_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*?)\s*$")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}

# (path, mtime_ns, size) -> parsed values; re-read only when the file changes.
_cache: dict[str, tuple[int, int, dict[str, str]]] = {}
_lock = threading.Lock()


def _unquote(raw: str) -> str | None:
    """The value of a ``.env`` right-hand side, or ``None`` when its quoting is broken."""
    if raw[:1] == "'":
        end = raw.find("'", 1)
        return raw[1:end] if end > 0 else None
    if raw[:1] == '"':
        out: list[str] = []
        index = 1
        while index < len(raw):
            char = raw[index]
            if char == "\\" and index + 1 < len(raw):
                nxt = raw[index + 1]
                out.append(_ESCAPES.get(nxt, "\\" + nxt))
                index += 2
                continue
            if char == '"':
                return "".join(out)
            out.append(char)
            index += 1
        return None
    comment = re.search(r"\s#", raw)
    return (raw[: comment.start()] if comment else raw).strip()


def parse_dotenv(text: str, source: str = ".env") -> dict[str, str]:
    """Parse the text of a ``.env`` file into a dict (later lines win)."""
    values: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _LINE.match(line)
        value = _unquote(match.group(2)) if match else None
        if match is None or value is None:
            warnings.warn(
                f"{source}: line {number} is not KEY=VALUE (or has an unclosed quote); skipped",
                DotenvWarning,
                stacklevel=3,
            )
            continue
        values[match.group(1)] = value
    return values


def read_dotenv(path: str | os.PathLike[str] | None = None) -> dict[str, str]:
    """The variables of ``path`` (default ``./.env``); empty when there is no such file."""
    file = Path(path) if path is not None else Path.cwd() / ".env"
    try:
        stat = file.stat()
    except OSError:
        return {}
    key = str(file.resolve())
    with _lock:
        cached = _cache.get(key)
        if cached is not None and cached[:2] == (stat.st_mtime_ns, stat.st_size):
            return cached[2]
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        warnings.warn(f"{file}: could not be read as UTF-8 text; ignored", DotenvWarning, 2)
        return {}
    values = parse_dotenv(text, source=str(file))
    with _lock:
        _cache[key] = (stat.st_mtime_ns, stat.st_size, values)
    return values


def env_value(*names: str) -> str | None:
    """The first of ``names`` set (non-empty) in the environment, else in ``./.env``."""
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    dotenv = read_dotenv()
    for name in names:
        value = dotenv.get(name)
        if value:
            return value
    return None
