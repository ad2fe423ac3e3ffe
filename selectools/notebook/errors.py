"""The one error type the notebook layer raises for bad input.

Magics turn it into IPython's one-line ``UsageError`` (no traceback), so a typo
in an option or a missing variable shows as a single clear line in the cell.
"""

from __future__ import annotations

from ..exceptions import SelectoolsError

__all__ = ["NotebookUsageError"]


class NotebookUsageError(SelectoolsError, ValueError):
    """A magic or notebook helper was given input it cannot use; the message says how to fix it."""
