"""Run an agent with a live view: streamed text, tool cards, then the rendered result.

``run_live`` drains ``agent.stream()`` in C (``deque(stream, maxlen=0)``) and keeps
no chunk: the run already collects the text it streams to build the model's
message, so a redraw reads the text of the call in progress from the stream
(``AgentStream.partial_text``) and each finished call's text arrives with
``on_llm_end``. Observer events (the few the transcript shows, as :class:`Event`
objects) are kept in order; the result arrives with ``on_run_end``.

One shared background thread (:class:`_Redrawer`) redraws running views at most
:data:`UPDATES_PER_SECOND` times a second, whatever the token rate; a thread of
its own per cell would cost a start and a join (about 0.4 ms) on every run. The
last redraw is the deterministic final render (see :mod:`.transcript`).
"""

from __future__ import annotations

import contextvars
import json
import os
import threading
import time
import traceback
from collections import deque
from collections.abc import Iterable
from typing import Any, Protocol

from .._view._components import error_line
from ..agent.background import RunRecording
from ..agent.stream import AgentStream
from ..providers.base import provider_label
from ..types import AgentResult
from . import _frontend
from ._kernel import current_shell, kernel_shell
from ._magic_options import OUTPUT_FORMATS
from .transcript import Transcript

__all__ = ["UPDATES_PER_SECOND", "LiveRun", "output_metadata", "run_live"]

#: upper bound on redraws of a running view
UPDATES_PER_SECOND = 30
#: how often the idle redraw thread looks for a new view, and for how long after
#: the last view left before it parks (a view that joins meanwhile is not waited for)
_TICK = 1.0 / UPDATES_PER_SECOND
_LINGER = 2.0


class LiveRun(RunRecording):
    """Observer of one run that keeps a surface (a notebook output or a terminal) current.

    A :class:`~selectools.agent.background.RunRecording` of the events the transcript
    shows (:attr:`events`); the text of the model call in progress comes from the
    stream it drains (``AgentStream.partial_text``), read at each redraw.
    """

    events = Transcript.EVENTS

    def __init__(
        self,
        surface: _frontend.Surface,
        title: str,
        *,
        updates_per_second: float = UPDATES_PER_SECOND,
    ) -> None:
        if updates_per_second <= 0:
            raise ValueError(f"updates_per_second must be > 0, got {updates_per_second!r}")
        super().__init__()
        self.surface = surface
        self.transcript = Transcript(title)
        self.interval = 1.0 / updates_per_second
        #: the context of the cell that started the run: the kernel sends redraws to that cell
        self.context: contextvars.Context | None = None
        self._event_cursor = 0
        self._lock = threading.Lock()
        self._drawing = False

    # -- view side ------------------------------------------------------------------
    def _catch_up(self) -> bool:
        """Apply new events, then the partial text of the call in progress; True if anything changed."""
        self._event_cursor, changed = self.transcript.follow(
            self.recorded, self._event_cursor, self.stream
        )
        return changed

    def redraw(self) -> None:
        """Bring the surface up to date (called by the shared redraw thread)."""
        with self._lock:
            if self._drawing and self._catch_up():
                self.surface.refresh(self.transcript)

    def consume(self, stream: Iterable[Any]) -> AgentResult:
        """Drain ``stream`` (an ``agent.stream(..., observers=[self])``) while redrawing."""
        self.surface.start()
        if isinstance(stream, AgentStream):
            self.stream = stream
        self.context = contextvars.copy_context()
        self._drawing = redraws = getattr(self.surface, "redraws", True)
        if redraws:
            REDRAWER.add(self)
        try:
            deque(stream, maxlen=0)  # drained in C; the run keeps the text it streams
        finally:
            if redraws:
                REDRAWER.discard(self)
            with self._lock:
                self._drawing = False
                self._catch_up()
        result = self.transcript.result  # from on_run_end, which every finished run emits
        if result is None:
            raise RuntimeError(
                "the agent's stream ended without on_run_end: pass this view as an observer "
                "(agent.stream(prompt, observers=[view]))"
            )
        return result


class Redrawn(Protocol):
    """What the shared redraw thread drives: a live view, or a shown run handle's widget."""

    interval: float
    context: contextvars.Context | None

    def redraw(self) -> None: ...


class _Redrawer:
    """One daemon thread that redraws every running view (:class:`Redrawn`) on its own schedule.

    Started on first use (and again in a forked child). A view joins with
    :meth:`add` and leaves with :meth:`discard`. The thread sleeps until the next
    view is due; with none, it looks every :data:`_TICK` seconds for
    :data:`_LINGER` seconds, then parks until the next view arrives. Joining wakes
    it only when parked: a woken thread competes for the GIL with the run that
    just started, which costs a fast cell more than the redraw it would prepare. Each redraw runs in the context of the cell
    that started the run, so the kernel sends it to that cell.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._due: dict[Redrawn, float] = {}
        self._thread: threading.Thread | None = None
        self._parked = False

    def add(self, view: Redrawn) -> None:
        with self._cond:
            self._due[view] = time.monotonic() + view.interval
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="selectools-live", daemon=True
                )
                self._thread.start()
            elif self._parked:
                self._cond.notify()

    def discard(self, view: Redrawn) -> None:
        with self._cond:
            self._due.pop(view, None)

    def forget_thread(self) -> None:
        """In a forked child the thread is gone: the next :meth:`add` starts one."""
        self._cond = threading.Condition()
        self._thread = None
        self._parked = False

    def _loop(self) -> None:
        idle_since = time.monotonic()
        while True:
            with self._cond:
                now = time.monotonic()
                if self._due:
                    idle_since = now
                elif now - idle_since > _LINGER:
                    self._parked = True
                    while not self._due:
                        self._cond.wait()
                    self._parked = False
                    idle_since = now = time.monotonic()
                ready = [view for view, due in self._due.items() if due <= now]
                for view in ready:
                    self._due[view] = now + view.interval
                if not ready:
                    self._cond.wait(min(self._due.values()) - now if self._due else _TICK)
                    continue
            for view in ready:
                self._redraw(view)

    def _redraw(self, view: Redrawn) -> None:
        context = view.context
        try:
            if context is not None:
                context.run(view.redraw)
        except Exception:  # a broken surface stops redrawing its view, not the others
            self.discard(view)
            if context is not None:
                context.run(traceback.print_exc)


REDRAWER = _Redrawer()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=REDRAWER.forget_thread)


def output_metadata(result: AgentResult, model: str, provider: str) -> dict[str, Any]:
    """What each agent output records about its run (kept out of the rendered text).

    ``model`` is the one the provider reported for the last call, else the one asked for.
    """
    usage = result.usage
    trace = result.trace
    served = usage.iterations[-1].model if usage is not None and usage.iterations else ""
    return {
        "selectools": {
            "model": served or model,
            "provider": result.provider_used or provider,
            "tokens": usage.total_tokens if usage is not None else 0,
            "prompt_tokens": usage.total_prompt_tokens if usage is not None else 0,
            "completion_tokens": usage.total_completion_tokens if usage is not None else 0,
            "cost_usd": usage.total_cost_usd if usage is not None else 0.0,
            "latency_ms": round(trace.total_duration_ms, 3) if trace is not None else None,
            "trace_id": trace.run_id if trace is not None else None,
            "stop_reason": result.stop_reason,
            "iterations": result.iterations,
            "approvals": _decisions(trace),
        }
    }


def _decisions(trace: Any) -> list[dict[str, Any]]:
    """Every policy / approval decision of the run (tool, decision, source, by, reason)."""
    if trace is None:
        return []
    from ..trace import StepType

    return [
        {"tool": step.tool_name, "call_id": step.call_id, **step.data}
        for step in trace.steps
        if step.type == StepType.POLICY_DECISION
    ]


def _answer_bundle(result: AgentResult, output_format: str) -> tuple[dict[str, Any] | None, str]:
    """The answer as its own output for ``markdown``/``json``, or ``None`` and why not."""
    if output_format == "text" or result.stop_reason != "final":
        return None, ""
    answer = result.content
    if output_format == "markdown":
        return {"text/markdown": answer, "text/plain": answer}, ""
    try:
        data = json.loads(answer)
    except ValueError as exc:
        return None, f"--format json: the answer is not valid JSON ({exc})"
    pretty = json.dumps(data, indent=2, ensure_ascii=False)
    return {"application/json": data, "text/plain": pretty}, ""


def run_live(
    agent: Any,
    prompt: Any,
    *,
    response_format: Any = None,
    output_format: str = "text",
    shell: Any = None,
    display: str = "auto",
    updates_per_second: float = UPDATES_PER_SECOND,
    cancellation_token: Any = None,
    surface: _frontend.Surface | None = None,
) -> AgentResult:
    """Run ``agent`` on ``prompt`` with a live view in the current notebook or terminal.

    ``output_format`` ``markdown`` or ``json`` shows the final answer as its own
    rendered output. Returns the :class:`AgentResult`; if the run raises, the view
    is closed (showing what happened) and the exception propagates.
    """
    if output_format not in OUTPUT_FORMATS:
        raise ValueError(f"output_format must be one of {OUTPUT_FORMATS}, got {output_format!r}")
    if shell is None:
        shell = current_shell()
    provider = provider_label(agent.provider)
    model = agent.model
    # a scripted run's model is "scripted": named once, not as if it were a paid model
    title = " · ".join([agent.name, provider] + ([model] if model != provider else []))
    if surface is None and display == "widget":
        surface, cancellation_token = _widget_surface(cancellation_token)
    if surface is None:
        surface = _frontend.make_surface(shell, display)
    view = LiveRun(surface, title, updates_per_second=updates_per_second)
    result: AgentResult | None = None
    cards = getattr(surface, "cards", None)  # a widget run shows its approval cards below it
    host = None
    if cards is not None:
        from .approvals import CARD_HOST

        host = CARD_HOST.set(cards)
    try:
        result = view.consume(
            agent.stream(
                prompt,
                response_format=response_format,
                observers=[view],
                cancellation_token=cancellation_token,
            )
        )
    except BaseException as exc:
        view.transcript.stop(error_line(exc))
        raise
    finally:
        if host is not None:
            from .approvals import CARD_HOST

            CARD_HOST.reset(host)
        outputs = final_outputs(view.transcript, result, output_format, agent.model, provider)
        view.surface.finish(outputs, view.transcript)
    return result


def widget_surface_available() -> bool:
    """True in a kernel with anywidget installed (else the display-id view is used)."""
    if kernel_shell() is None:
        return False
    try:
        import anywidget  # noqa: F401
    except ImportError:
        return False
    return True


def _widget_surface(token: Any) -> tuple[Any, Any]:
    """A :class:`~.live_widget.WidgetSurface` and the token its Stop button cancels."""
    if not widget_surface_available():
        return None, token
    from ..cancellation import CancellationToken
    from .live_widget import WidgetSurface

    token = token if token is not None else CancellationToken()
    return WidgetSurface(token), token


def final_outputs(
    transcript: Transcript,
    result: AgentResult | None,
    output_format: str,
    model: str,
    provider: str,
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The final render (and the answer on its own for markdown/json), with run metadata."""
    if result is None:
        return [({"text/html": transcript.html(), "text/plain": transcript.text()}, {})]
    metadata = output_metadata(result, model, provider)
    answer, problem = _answer_bundle(result, output_format)
    if problem:
        transcript.errors.append(problem)
    hide = answer is not None
    view = {
        "text/html": transcript.html(hide_answer=hide),
        "text/plain": transcript.text(hide_answer=hide),
    }
    outputs = [(view, metadata)]
    if answer is not None:
        outputs.append((answer, metadata))
    return outputs
