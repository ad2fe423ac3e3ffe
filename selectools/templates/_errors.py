"""The one error a bad agent config raises: where it is and what was expected."""

from __future__ import annotations

from ..exceptions import SelectoolsError

__all__ = ["TemplateConfigError"]


class TemplateConfigError(SelectoolsError, ValueError):
    """An agent config (YAML file or dict) that cannot be used.

    ``path`` and ``line`` locate it when it came from a file; the message says
    what was expected.
    """

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.detail = message
        where = ""
        if path is not None:
            where = f"{path}, line {line}: " if line is not None else f"{path}: "
        super().__init__(where + message)
