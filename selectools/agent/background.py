"""``agent.start(...)``: a run in a background thread, returned as a :class:`RunHandle`.

The handle can be polled (``done()``, ``status``), waited for (``result(timeout)``
or ``await handle``) and cancelled (``cancel()``: the run stops at its next step,
or inside a streaming model call, with ``stop_reason="cancelled"``). In a
notebook the cell that started it finishes at once; approval cards of the run
can still be answered because the kernel is idle and reads their messages.
Showing the handle (``display(handle)``, or the handle as a cell's value) renders
the live run widget with a Stop button: :class:`RunRecording` keeps what the run
shows, so a view shown later replays it from the start.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, ClassVar, cast

from ..cancellation import CancellationToken
from ..observer import EVENTS, AgentObserver, Event, EventName

if TYPE_CHECKING:
    from ..types import AgentResult
    from .stream import AgentStream

__all__ = ["RunHandle", "RunRecording", "current_run_handle"]

_CURRENT: contextvars.ContextVar[RunHandle | None] = contextvars.ContextVar(
    "selectools_run_handle", default=None
)


def current_run_handle() -> RunHandle | None:
    """The :class:`RunHandle` whose run is executing in this thread, if any."""
    return _CURRENT.get()


class RunRecording(AgentObserver):
    """What a background run has shown so far: its events, and its stream for the text in progress.

    No chunk is kept: the text of a finished model call arrives with its
    ``on_llm_end``, the text of the call in progress is the stream's
    ``partial_text``, and the result arrives with ``on_run_end``.
    """

    events: ClassVar[frozenset[EventName] | None] = frozenset(
        cast("EventName", name) for name in EVENTS if name != "on_stream_chunk"
    )

    def __init__(self) -> None:
        self.recorded: list[Event] = []
        #: the run's :class:`~selectools.agent.stream.AgentStream`, once it started
        self.stream: AgentStream | None = None

    def on_event(self, event: Event) -> None:
        if event.name == "on_run_start":  # the run appends to this list: keep what went in
            event.data["messages"] = list(event.data["messages"])
        self.recorded.append(event)


class RunHandle:
    """One background run: ``target(token)`` in a daemon thread, cancellable through ``token``."""

    def __init__(
        self,
        target: Callable[[CancellationToken], AgentResult],
        name: str,
        *,
        recording: RunRecording | None = None,
        model: str = "",
        provider: str = "",
    ) -> None:
        self.name = name
        #: what the run streamed so far (``agent.start`` records; None: nothing to replay)
        self.recording = recording
        #: what a shown view names: the agent's model and provider
        self.model, self.provider = model, provider
        #: where a shown view wants the run's approval cards (set by the notebook view)
        self.card_host: Any = None
        self.token = CancellationToken()
        self._done = threading.Event()
        self._result: AgentResult | None = None
        self._error: BaseException | None = None
        self._callbacks: list[Callable[[RunHandle], Any]] = []
        self._lock = threading.Lock()
        context = contextvars.copy_context()  # a kernel routes output by the cell's context
        self._thread = threading.Thread(
            target=context.run, args=(self._work, target), name=f"selectools-{name}", daemon=True
        )
        self._thread.start()

    def _work(self, target: Callable[[CancellationToken], AgentResult]) -> None:
        _CURRENT.set(self)
        try:
            self._result = target(self.token)
        except BaseException as exc:  # kept for result(); the thread ends quietly
            self._error = exc
        with self._lock:
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)

    # -- polling -------------------------------------------------------------------
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def status(self) -> str:
        """``running``, ``failed``, or the run's stop reason (``final``, ``cancelled``...)."""
        if not self._done.is_set():
            return "running"
        if self._error is not None:
            return "failed"
        assert self._result is not None
        return str(self._result.stop_reason)

    def add_done_callback(self, callback: Callable[[RunHandle], Any]) -> None:
        """Call ``callback(handle)`` when the run ends (now, if it has)."""
        with self._lock:
            if not self._done.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    # -- waiting -------------------------------------------------------------------
    def result(self, timeout: float | None = None) -> AgentResult:
        """The run's result (its exception, re-raised, if it failed); waits up to ``timeout``."""
        if not self._done.wait(timeout):
            raise TimeoutError(f"the background run {self.name!r} is still running")
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result

    def __await__(self) -> Generator[Any, None, AgentResult]:
        return self._wait_async().__await__()

    async def _wait_async(self) -> AgentResult:
        import asyncio

        await asyncio.to_thread(self._done.wait)
        return self.result()

    # -- stopping -------------------------------------------------------------------
    def cancel(self, reason: str = "cancelled") -> bool:
        """Ask the run to stop; False if it was already asked or has ended."""
        return not self._done.is_set() and self.token.cancel(reason)

    def __repr__(self) -> str:
        return f"RunHandle({self.name!r}, {self.status})"
