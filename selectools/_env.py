"""Settings from the environment, or from the nearest ``.env`` file.

The quickstart tells users to put ``OPENAI_API_KEY=...`` in a ``.env`` file, so
providers look there when a variable is not set. The file is found the way
python-dotenv finds it: in the working directory or the nearest folder above it (a
notebook in ``notebooks/`` finds the project's ``.env``). It is only *read*: it never
changes ``os.environ`` and never overrides a variable that is already set.

Parsing is python-dotenv's (a kept library: ``export``, quotes and escapes, comments,
multi-line quoted values, ``${VAR}`` expansion). A line it cannot read is skipped with a
:class:`DotenvWarning` naming its line number (never its content, which may hold a secret).
"""

from __future__ import annotations

import io
import os
import threading
import warnings
from pathlib import Path

__all__ = ["DotenvWarning", "env_value", "find_dotenv_file", "parse_dotenv", "read_dotenv"]


class DotenvWarning(UserWarning):
    """A line of a ``.env`` file could not be read and was skipped."""


# (path, mtime_ns, size) -> parsed values; re-read only when the file changes.
_cache: dict[str, tuple[int, int, dict[str, str]]] = {}
_lock = threading.Lock()


def parse_dotenv(text: str, source: str = ".env") -> dict[str, str]:
    """Parse the text of a ``.env`` file into a dict (later lines win, ``${VAR}`` expanded)."""
    from dotenv import dotenv_values
    from dotenv.parser import parse_stream

    for binding in parse_stream(io.StringIO(text)):
        if binding.error:
            warnings.warn(
                f"{source}: line {binding.original.line} is not KEY=VALUE (or has an unclosed "
                "quote); skipped",
                DotenvWarning,
                stacklevel=3,
            )
    values = dotenv_values(stream=io.StringIO(text), interpolate=True)
    return {key: value for key, value in values.items() if value is not None}


def find_dotenv_file() -> Path | None:
    """The ``.env`` in the working directory or the nearest folder above it, if any."""
    from dotenv import find_dotenv

    found = find_dotenv(usecwd=True)
    return Path(found) if found else None


def read_dotenv(path: str | os.PathLike[str] | None = None) -> dict[str, str]:
    """The variables of ``path`` (default: :func:`find_dotenv_file`); empty without a file."""
    file = Path(path) if path is not None else find_dotenv_file()
    if file is None:
        return {}
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
    """The first of ``names`` set (non-empty) in the environment, else in the nearest ``.env``."""
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
