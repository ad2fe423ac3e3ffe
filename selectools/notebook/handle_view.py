"""A shown :class:`~selectools.agent.background.RunHandle`: the live run widget with a Stop button.

``%load_ext selectools`` registers :func:`show_handle` for ``display(handle)``
(or a handle as a cell's value). For a handle of ``agent.start(...)``, which
records its run's events (and keeps its stream, for the text in progress), the
widget replays the recording from the start and then follows the run on the live
view's shared redraw thread, at most :data:`~.live.UPDATES_PER_SECOND` redraws a second; Stop cancels the handle (the run ends ``cancelled``). Approval cards of
the run go to a box under the widget. When the run ends, the output becomes the
same final render ``%%agent`` ends with (static HTML and the run's metadata).
Handles without a recording (``%%agent --background`` draws its own view) show
their one-line ``repr``, as does any handle outside a kernel with anywidget.
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING

from .._view._components import error_line
from .live import REDRAWER, UPDATES_PER_SECOND, final_outputs, widget_surface_available
from .transcript import Transcript

if TYPE_CHECKING:
    from ..agent.background import RunHandle

__all__ = ["show_handle"]


def show_handle(handle: RunHandle) -> None:
    """Display ``handle``: its live widget (see the module docstring), else its ``repr``."""
    from IPython.display import display

    if handle.recording is None or not widget_surface_available():
        display({"text/plain": repr(handle)}, raw=True)
        return
    _HandleView(handle).start()


class _HandleView:
    """Keeps one shown handle's widget current from the run's recording."""

    def __init__(self, handle: RunHandle) -> None:
        from IPython.display import display

        from ._kernel import route_to_subshell
        from .approvals import card_host
        from .live_widget import LiveRunWidget

        self.handle = handle
        title = f"{handle.name} · {handle.provider} · {handle.model}"
        self.transcript = Transcript(title)
        self.widget = LiveRunWidget(title)
        self.widget.token = handle.token
        route_to_subshell(self.widget)
        self._display = display(self.widget, display_id=True)
        handle.card_host = card_host()
        self.interval = 1.0 / UPDATES_PER_SECOND
        #: the context of the cell that shows the handle: the kernel routes the final render there
        self.context: contextvars.Context | None = contextvars.copy_context()
        self._events = 0

    def start(self) -> None:
        REDRAWER.add(self)

    def redraw(self) -> None:
        """Follow the run (called by the live view's shared redraw thread); end with the final render."""
        ended = self.handle.done()  # first: a run that has ended recorded all its events
        recording = self.handle.recording
        assert recording is not None
        self._events, changed = self.transcript.follow(
            recording.recorded, self._events, recording.stream
        )
        if ended:
            REDRAWER.discard(self)
            self._finish()
        elif changed:
            self.widget.html = self.transcript.html()

    def _finish(self) -> None:
        handle, transcript = self.handle, self.transcript
        result = None
        try:
            result = handle.result(timeout=0)
        except BaseException as exc:  # the run failed: the view says how
            transcript.stop(error_line(exc))
        if result is not None and transcript.result is None:
            transcript.result = result
        outputs = final_outputs(transcript, result, "text", handle.model, handle.provider)
        bundle, metadata = outputs[0]
        self.widget.status = handle.status
        self.widget.html = bundle.get("text/html", "")
        self._display.update(bundle, metadata=metadata, raw=True)
        host = handle.card_host
        if host is not None:
            host.settle()
