"""The notebook's own progress bar, for when tqdm is not installed.

Registered with :func:`selectools._progress.register_bar` by ``%load_ext selectools``: one
display per bar, updated in place (``display_id``), at most ten redraws a second, and a
final redraw on close so a saved notebook shows the true count. Plain HTML with the
JupyterLab theme variables (fallback colours for Notebook 7 and saved notebooks), and a
plain-text form for frontends without HTML.
"""

from __future__ import annotations

import html
import time
from typing import Any

from IPython.display import display

__all__ = ["HtmlProgressBar"]

_MIN_INTERVAL = 0.1  # seconds between redraws


class _Bar:
    """A display bundle: text/plain and text/html of one moment of the bar."""

    def __init__(self, done: int, total: int, description: str) -> None:
        self.done, self.total, self.description = done, total, description

    def _repr_mimebundle_(self, **_: Any) -> dict[str, str]:
        share = self.done / self.total if self.total else 1.0
        label = f"{self.description} {self.done}/{self.total} ({share:.0%})"
        page = (
            '<div class="selectools-progress" style="display:flex;align-items:center;gap:8px;'
            "font-family:var(--jp-ui-font-family,sans-serif);font-size:12px;"
            'color:var(--jp-ui-font-color1,#333)">'
            f'<progress value="{self.done}" max="{max(self.total, 1)}" style="width:240px">'
            f"</progress><span>{html.escape(label)}</span></div>"
        )
        return {"text/plain": label, "text/html": page}


class HtmlProgressBar:
    """``update_to(done)`` redraws (throttled); ``close()`` draws the final count."""

    def __init__(self, total: int, description: str) -> None:
        self.total, self.description = total, description
        self.done = 0
        self._drawn_at = 0.0
        self._handle = display(_Bar(0, total, description), display_id=True)

    def update_to(self, done: int) -> None:
        self.done = done
        now = time.monotonic()
        if now - self._drawn_at >= _MIN_INTERVAL:
            self._drawn_at = now
            self._draw()

    def close(self) -> None:
        self._draw()

    def _draw(self) -> None:
        if self._handle is not None:
            self._handle.update(_Bar(self.done, self.total, self.description))
