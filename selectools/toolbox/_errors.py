"""The toolbox's errors: typed, and saying what to do about them.

A toolbox tool that refuses or fails raises one of these; the agent wraps it in
``ToolExecutionError`` and the model reads the message, so the text is written
for a model as much as for a person.
"""

from __future__ import annotations

from typing import Any

from ..exceptions import SelectoolsError

__all__ = [
    "HTTPStatusError",
    "PathEscapeError",
    "ReadOnlyError",
    "ToolboxConfigError",
    "ToolboxError",
]


class ToolboxError(SelectoolsError):
    """Base class of the toolbox's errors."""


class PathEscapeError(ToolboxError, PermissionError):
    """A path given to a file tool points outside the tool's root directory.

    ``path`` is what was asked for, ``root`` the confinement directory and
    ``reason`` why it was refused (``"'..' leaves the root"``, ``"symlink to
    outside the root"``, ``"percent-encoded traversal"`` …).
    """

    def __init__(self, path: str, root: str, reason: str) -> None:
        self.path = path
        self.root = root
        self.reason = reason
        super().__init__(
            f"Refused path {path!r}: {reason}. File tools are confined to {root}; "
            "use a path relative to that directory (e.g. 'notes/todo.txt'). "
            "To confine them elsewhere, build them with get_all_tools(root=...) or "
            "make_file_tools(root=...); root=None turns confinement off."
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.path, self.root, self.reason))


class ReadOnlyError(ToolboxError, PermissionError):
    """A write was asked of a tool configured read-only."""


class ToolboxConfigError(ToolboxError):
    """A tool needs configuration it was not given (a search backend, a key)."""


class HTTPStatusError(ToolboxError):
    """A web tool got an error status (4xx/5xx); ``status_code`` and ``body`` say what came back."""

    def __init__(self, url: str, status_code: int, reason: str, body: str) -> None:
        self.url = url
        self.status_code = status_code
        self.reason = reason
        self.body = body
        snippet = body[:500] + ("..." if len(body) > 500 else "")
        super().__init__(f"HTTP {status_code} {reason} from {url}: {snippet}".rstrip(": "))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.url, self.status_code, self.reason, self.body))
