"""A shown :class:`~selectools.agent.background.RunHandle`: the live run widget with a Stop button.

``%load_ext selectools`` registers :func:`show_handle` for ``display(handle)``
(or a handle as a cell's value). For a handle of ``agent.start(...)``, which
records its run's events (and keeps its stream, for the text in progress), the
widget replays the recording from the start and then follows the run, at most :data:`~.live.UPDATES_PER_SECOND` redraws a
second; Stop cancels the handle (the run ends ``cancelled``). Approval cards of
the run go to a box under the widget. When the run ends, the output becomes the
same final render ``%%agent`` ends with (static HTML and the run's metadata).
Handles without a recording (``%%agent --background`` draws its own view) show
their one-line ``repr``, as does any handle outside a kernel with anywidget.
"""

from __future__ import annotations

import contextvars
import threading
from typing import TYPE_CHECKING

from .._view._components import error_line
from .live import UPDATES_PER_SECOND, _final_outputs, widget_surface_available
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

        from .approvals import _kernel_shell, _route_to_subshell, card_host
        from .live_widget import LiveRunWidget

        self.handle = handle
        title = f"{handle.name} · {handle.provider} · {handle.model}"
        self.transcript = Transcript(title)
        self.widget = LiveRunWidget(title)
        self.widget.token = handle.token
        shell = _kernel_shell()
        if shell is not None:
            _route_to_subshell(shell.kernel, self.widget)
        self._display = display(self.widget, display_id=True)
        handle.card_host = card_host()
        self._events = 0
        self._ended = threading.Event()

    def start(self) -> None:
        self.handle.add_done_callback(lambda _handle: self._ended.set())
        context = contextvars.copy_context()  # the kernel routes output by the cell's context
        threading.Thread(
            target=context.run, args=(self._follow,), name="selectools-handle-view", daemon=True
        ).start()

    def _catch_up(self) -> bool:
        """Apply the run's new events, then the text of the call in progress; True if anything changed."""
        recording = self.handle.recording
        assert recording is not None
        self._events, changed = self.transcript.follow(
            recording.recorded, self._events, recording.stream
        )
        return changed

    def _follow(self) -> None:
        interval = 1.0 / UPDATES_PER_SECOND
        while not self._ended.wait(interval):
            if self._catch_up():
                self.widget.html = self.transcript.html()
        self._catch_up()
        self._finish()

    def _finish(self) -> None:
        handle, transcript = self.handle, self.transcript
        result = None
        try:
            result = handle.result(timeout=0)
        except BaseException as exc:  # the run failed: the view says how
            transcript.stop(error_line(exc))
        if result is not None and transcript.result is None:
            transcript.result = result
        outputs = _final_outputs(transcript, result, "text", handle.model, handle.provider)
        bundle, metadata = outputs[0]
        self.widget.status = handle.status
        self.widget.html = bundle.get("text/html", "")
        self._display.update(bundle, metadata=metadata, raw=True)
        host = handle.card_host
        if host is not None:
            host.settle()
