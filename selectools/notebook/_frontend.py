"""Display modes and surfaces: how a run is drawn on each kind of frontend.

The kernel quirks these decisions rest on (shell lookup, the headless rule,
subshell routing, ui-poll) live in :mod:`._kernel`. Two kinds of frontend matter:

* ``live``: a Jupyter kernel (JupyterLab 4, Notebook 7, VS Code, nbclient) or
  any display publisher that records rich output. Views are rich bundles; a
  running view is one output updated in place through its display id, and a
  kernel driven by a runner nobody watches (nbclient, nbval) gets the final
  render only. JupyterLab and Notebook 7 share the same output renderers, so
  they need no separate branch.
* ``text``: a terminal IPython (its publisher prints ``text/plain``) or no
  IPython at all. Streamed text and tool lines are printed as they arrive.

``%selectools display=live|text`` overrides the detection (``live`` also redraws
where nobody seems to watch, e.g. a Voila dashboard); ``display=widget`` draws
runs as a widget with a Stop button (:mod:`.live_widget`) where a kernel and
anywidget are there, else as ``live``.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
from collections.abc import Iterator
from typing import Any, Protocol

from ._kernel import watched

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

#: display ids: unique in this process (and across kernels), cheaper than uuid4 per run
_ID_PREFIX = os.urandom(6).hex()
_ids = itertools.count(1)

#: what a background run's output shows from its cell's end until the first redraw
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
    asked = mode
    if mode == "auto":
        mode = detect(shell)
    if mode in ("live", "widget") and getattr(shell, "display_pub", None) is not None:
        # (run_live draws "widget" runs itself when it can); display=live asked for
        # redraws even where nobody seems to watch (a Voila dashboard runs like nbclient)
        return LiveSurface(shell, redraws=True if asked == "live" else None)
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
    """One output per run: drawn at the first redraw, updated in place, ended as the final render.

    A run that ends before its first redraw sends one message, its final render.
    Runs nobody watches (see :func:`~._kernel.watched`) are never redrawn, so the only display
    they send is the final render: tools that ignore display updates (nbval) see
    what a saved notebook holds.
    """

    def __init__(self, shell: Any, *, redraws: bool | None = None) -> None:
        self._publisher = shell.display_pub
        self._id = f"selectools-{_ID_PREFIX}-{next(_ids)}"  # transient: never saved
        self._open = False
        #: redraw while the run goes (default: when a frontend watches, see :func:`~._kernel.watched`)
        self.redraws = watched(shell) if redraws is None else redraws
        self.updates = 0

    def _publish(self, bundle: Bundle, metadata: dict[str, Any]) -> None:
        self._publisher.publish(
            data=bundle,
            metadata=metadata,
            transient={"display_id": self._id},
            update=self._open,
        )
        self._open = True

    def start(self) -> None:
        return None

    def refresh(self, view: _Rendered) -> None:
        if self.redraws:
            # HTML only: the final render replaces it, with its text/plain
            self.updates += 1
            self._publish({"text/html": view.html()}, {})

    def finish(self, outputs: list[tuple[Bundle, dict[str, Any]]], view: _Rendered) -> None:
        first, *more = outputs or [({"text/plain": view.text()}, {})]
        with _no_idle_flush(self._publisher):
            self._publish(*first)
            for bundle, metadata in more:
                self._publisher.publish(data=bundle, metadata=metadata)


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

    It is opened while the cell still runs, as an empty output: once the cell has
    ended only display updates reach it (new outputs of a finished cell are
    dropped by the frontend), and the final render replaces it in place.
    """

    def start(self) -> None:
        if not self._open:
            with _no_idle_flush(self._publisher):
                self._publish(_PLACEHOLDER, {})


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
