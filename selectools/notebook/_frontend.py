"""Every frontend-specific decision of the notebook layer, in one place.

Two kinds of frontend matter:

* ``live``: a Jupyter kernel (JupyterLab 4, Notebook 7, VS Code, nbclient) or
  any display publisher that records rich output. Views are rich bundles; a
  running view is one output updated in place through its display id.
  JupyterLab and Notebook 7 share the same output renderers, so they need no
  separate branch.
* ``text``: a terminal IPython (its publisher prints ``text/plain``) or no
  IPython at all. Streamed text and tool lines are printed as they arrive.

``%selectools display=live|text`` overrides the detection; ``display=widget`` draws
runs as a widget with a Stop button (:mod:`.live_widget`) where a kernel and
anywidget are there, else as ``live``.
"""

from __future__ import annotations

import contextlib
import sys
import uuid
from collections.abc import Iterator
from typing import Any, Protocol

__all__ = [
    "DISPLAY_MODES",
    "BackgroundSurface",
    "LiveSurface",
    "Surface",
    "TextSurface",
    "detect",
    "make_surface",
    "show",
]

#: accepted values of the ``display`` setting
DISPLAY_MODES = ("auto", "live", "text", "widget")

Bundle = dict[str, Any]

#: what a live view's output holds once the final render has been appended below it;
#: it equals the first display, so tools that ignore display updates (nbval) see the same
_PLACEHOLDER: Bundle = {"text/plain": ""}


class _Rendered(Protocol):
    """What a surface draws (a :class:`~selectools.notebook.transcript.Transcript`)."""

    log: list[str]

    def html(self, *, hide_answer: bool = ...) -> str: ...

    def text(self, *, hide_answer: bool = ...) -> str: ...


class Surface(Protocol):
    """Where a live run is drawn."""

    def start(self) -> None: ...

    def refresh(self, view: _Rendered) -> None: ...

    def finish(self, outputs: list[tuple[Bundle, dict[str, Any]]], view: _Rendered) -> None: ...


def detect(shell: Any) -> str:
    """``live`` when the shell's display publisher keeps rich output, else ``text``."""
    publisher = getattr(shell, "display_pub", None)
    if publisher is None:
        return "text"
    from IPython.core.displaypub import DisplayPublisher

    return "text" if type(publisher) is DisplayPublisher else "live"


def make_surface(shell: Any, mode: str = "auto") -> Surface:
    if mode not in DISPLAY_MODES:
        raise ValueError(f"display mode must be one of {DISPLAY_MODES}, got {mode!r}")
    if mode == "auto":
        mode = detect(shell)
    if mode in ("live", "widget") and getattr(shell, "display_pub", None) is not None:
        return LiveSurface(shell)  # (run_live draws "widget" runs itself when it can)
    return TextSurface()


def show(shell: Any, bundle: Bundle, mode: str = "auto") -> None:
    """Display one bundle: rich on a live frontend, its ``text/plain`` printed otherwise."""
    if mode == "auto":
        mode = detect(shell)
    if mode == "text":
        print(bundle.get("text/plain", ""))
        return
    shell.display_pub.publish(data=bundle, metadata={})


class LiveSurface:
    """One output updated in place while the run goes, then the final render below it.

    The live output returns to an empty placeholder at the end and the final render
    is a new output: a saved notebook, nbclient and nbval (which ignores display
    updates) all hold the same final render. The placeholder goes out before the
    run starts, so the kernel sends it while the run goes; a run that ends before
    the first redraw leaves it as it is (two messages in all, not three).
    """

    def __init__(self, shell: Any) -> None:
        self._publisher = shell.display_pub
        self._id = uuid.uuid4().hex  # transient: never saved in the notebook
        self._started = self._drawn = False
        self.updates = 0

    def _publish(self, bundle: Bundle, metadata: dict[str, Any], *, update: bool) -> None:
        self._publisher.publish(
            data=bundle, metadata=metadata, transient={"display_id": self._id}, update=update
        )

    def start(self) -> None:
        if not self._started:
            self._started = True
            with _no_idle_flush(self._publisher):
                self._publish(_PLACEHOLDER, {}, update=False)

    def refresh(self, view: _Rendered) -> None:
        # HTML only: the frontend renders it, and the output ends as the placeholder
        # anyway, so a text/plain copy would double every redraw's payload for nothing
        self._drawn = True
        self.updates += 1
        self._publish({"text/html": view.html()}, {}, update=True)

    def finish(self, outputs: list[tuple[Bundle, dict[str, Any]]], view: _Rendered) -> None:
        with _no_idle_flush(self._publisher):
            if self._drawn:
                self._publish(_PLACEHOLDER, {}, update=True)
            for bundle, meta in outputs:
                self._publisher.publish(data=bundle, metadata=meta)


def _streams_idle() -> bool:
    """True when ipykernel's stdout and stderr hold nothing unsent (else unknown: False)."""
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "_flush_pending", True) or getattr(
            stream, "_subprocess_flush_pending", False
        ):
            return False
    return True


def _skip_flush() -> None:
    return None


@contextlib.contextmanager
def _no_idle_flush(publisher: Any) -> Iterator[None]:
    """Skip the kernel publisher's stream flush while both streams are idle.

    ipykernel flushes stdout and stderr before every display message, a round trip
    to its IO thread (about 0.3 ms each); with nothing buffered there is nothing to
    order, so the view's start and final render skip it. Any other publisher, or
    pending output, keeps the ordinary path.
    """
    if "_flush_streams" not in type(publisher).__dict__ or not _streams_idle():
        yield
        return
    publisher._flush_streams = _skip_flush
    try:
        yield
    finally:
        del publisher._flush_streams


class BackgroundSurface(LiveSurface):
    """A live surface for a run that outlives its cell (``%%agent --background``).

    It is opened while the cell still runs; afterwards only display updates reach
    the cell (new outputs of a finished cell are dropped by the frontend), so the
    final render replaces the live output in place.
    """

    def finish(self, outputs: list[tuple[Bundle, dict[str, Any]]], view: _Rendered) -> None:
        bundle, metadata = outputs[0] if outputs else ({"text/plain": view.text()}, {})
        self._publish(bundle, metadata, update=True)


class TextSurface:
    """Prints the transcript's log as it grows, then the final status line."""

    def __init__(self) -> None:
        self._printed = 0
        self._line_open = False
        self.updates = 0

    def start(self) -> None:
        return None

    def refresh(self, view: _Rendered) -> None:
        log = view.log
        end = len(log)
        if end > self._printed:
            self.updates += 1
            text = "".join(log[self._printed : end])
            sys.stdout.write(text)
            sys.stdout.flush()
            self._printed = end
            self._line_open = not text.endswith("\n")

    def finish(self, outputs: list[tuple[Bundle, dict[str, Any]]], view: _Rendered) -> None:
        self.refresh(view)
        status = view.text().rsplit("\n", 1)[-1]
        sys.stdout.write(("\n" if self._line_open else "") + status + "\n")
        sys.stdout.flush()
