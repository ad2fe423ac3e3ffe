"""Progress bars where users wait: batches, evals, ingestion and embedding.

One context manager, :func:`progress_bar`, turns a ``progress=`` argument into an
``on_progress(done, total)`` callback (closed on exit, also when the work fails):

- ``tqdm.auto`` when tqdm is installed (a kept library: it renders as a widget in a
  notebook and as a text bar in a terminal);
- otherwise, in a notebook after ``%load_ext selectools``, the package's own HTML bar
  (the notebook layer registers it with :func:`register_bar`: the core never imports the
  notebook stack);
- otherwise a text bar on stderr when stderr is a terminal, and nothing when it is not
  (a log file gets no carriage-return noise).

``progress=False`` turns it off; a callable is used as the callback as it is.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

__all__ = ["ProgressArg", "ProgressBar", "progress_bar", "register_bar"]

ProgressCallback = Callable[[int, int], Any]
ProgressArg = bool | ProgressCallback | None


class ProgressBar(Protocol):
    """What a bar implementation offers: set the count, then close once at the end."""

    def update_to(self, done: int) -> None: ...

    def close(self) -> None: ...


#: ``factory(total, description) -> ProgressBar`` registered by the notebook layer
_notebook_bar: Callable[[int, str], ProgressBar] | None = None


def register_bar(factory: Callable[[int, str], ProgressBar] | None) -> None:
    """Install (or, with ``None``, remove) the bar used when tqdm is not installed."""
    global _notebook_bar
    _notebook_bar = factory


class _TqdmBar:
    def __init__(self, total: int, description: str) -> None:
        from tqdm.auto import tqdm

        self._bar = tqdm(total=total, desc=description, leave=True)

    def update_to(self, done: int) -> None:
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        self._bar.close()


class _TextBar:
    """``description [#####.....] 5/10`` redrawn in place on a terminal."""

    def __init__(self, total: int, description: str, width: int = 30) -> None:
        self.total, self.description, self.width = total, description, width

    def update_to(self, done: int) -> None:
        share = done / self.total if self.total else 1.0
        filled = int(share * self.width)
        bar = f"[{'#' * filled}{'.' * (self.width - filled)}]"
        sys.stderr.write(f"\r{self.description} {bar} {done}/{self.total}")
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")
        sys.stderr.flush()


def _bar(total: int, description: str) -> ProgressBar | None:
    try:
        return _TqdmBar(total, description)
    except ImportError:
        pass
    if _notebook_bar is not None:
        return _notebook_bar(total, description)
    if sys.stderr is not None and sys.stderr.isatty():
        return _TextBar(total, description)
    return None


class _Reporter:
    """A thread-safe ``(done, total)`` callback drawing on one bar."""

    def __init__(self, bar: ProgressBar) -> None:
        self._bar = bar
        self._lock = threading.Lock()
        self._closed = False

    def __call__(self, done: int, total: int) -> None:
        with self._lock:
            if not self._closed:
                self._bar.update_to(done)

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._bar.close()


@contextmanager
def progress_bar(
    progress: ProgressArg, total: int, description: str
) -> Iterator[ProgressCallback | None]:
    """The callback for ``progress=`` (``True``: a bar as the module docstring says).

    ``False``/``None`` or nothing to do gives ``None``; a callable is passed through.
    """
    if progress is None or progress is False or total <= 0:
        yield None
        return
    if callable(progress):
        yield progress
        return
    bar = _bar(total, description)
    if bar is None:
        yield None
        return
    reporter = _Reporter(bar)
    try:
        yield reporter
    finally:
        reporter.close()
