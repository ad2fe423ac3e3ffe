"""Run an agent with a live view: streamed text, tool cards, then the rendered result.

``run_live`` drains ``agent.stream()`` in C (``list.extend``) and records the
run's observer events (the few the transcript shows, as :class:`Event` objects)
together with how many stream items preceded each one, so
the transcript can replay both in their true order. A background thread redraws
the view at most :data:`UPDATES_PER_SECOND` times a second, whatever the token
rate, so the view adds one list append per token to the run's thread. The last
redraw is the deterministic final render (see :mod:`.transcript`).
"""

from __future__ import annotations

import contextvars
import json
import sys
import threading
from typing import Any

from .._view._components import error_line
from ..observer import AgentObserver, Event
from ..types import AgentResult
from . import _frontend
from ._magic_options import OUTPUT_FORMATS
from .transcript import Transcript

__all__ = ["UPDATES_PER_SECOND", "LiveRun", "output_metadata", "run_live"]

#: upper bound on redraws of a running view
UPDATES_PER_SECOND = 30


class LiveRun(AgentObserver):
    """Observer of one run that keeps a surface (a notebook output or a terminal) current.

    It receives only the events the transcript shows (:attr:`events`), as
    :class:`Event` objects; stream chunks arrive through the stream itself.
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
        self.surface = surface
        self.transcript = Transcript(title)
        self._interval = 1.0 / updates_per_second
        self._items: list[Any] = []
        self._events: list[tuple[int, Event]] = []
        self._item_cursor = 0
        self._event_cursor = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()

    # -- observer side (any thread): keep the event and where the stream was -------
    def on_event(self, event: Event) -> None:
        self._events.append((len(self._items), event))

    # -- view side ------------------------------------------------------------------
    def _catch_up(self) -> bool:
        """Replay new items and events into the transcript in order; True if anything was new."""
        events, items, transcript = self._events, self._items, self.transcript
        n_events = len(events)  # events first: every recorded position is <= len(items) below
        n_items = len(items)
        if n_events == self._event_cursor and n_items == self._item_cursor:
            return False
        while self._event_cursor < n_events:
            position, event = events[self._event_cursor]
            if position > self._item_cursor:
                transcript.feed(items[self._item_cursor : position])
                self._item_cursor = position
            transcript.apply(event)
            self._event_cursor += 1
        if n_items > self._item_cursor:
            transcript.feed(items[self._item_cursor : n_items])
            self._item_cursor = n_items
        return True

    def _redraw_loop(self) -> None:
        while not self._stop.wait(self._interval):
            with self._lock:
                if self._catch_up():
                    self.surface.refresh(self.transcript)

    def consume(self, stream: Any) -> AgentResult:
        """Drain ``stream`` (an ``agent.stream(..., observers=[self])``) while redrawing."""
        self.surface.start()
        context = contextvars.copy_context()  # the kernel routes output by the cell's context
        redraw = threading.Thread(
            target=context.run, args=(self._redraw_loop,), name="selectools-live", daemon=True
        )
        redraw.start()
        try:
            self._items.extend(stream)
        finally:
            self._stop.set()
            redraw.join()
            with self._lock:
                self._catch_up()
        if self.transcript.result is None:
            raise RuntimeError("the agent's stream ended without an AgentResult")
        return self.transcript.result


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


def _provider_name(agent: Any) -> str:
    provider = agent.provider
    return str(getattr(provider, "name", "") or type(provider).__name__)


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
        shell = _current_shell()
    provider = _provider_name(agent)
    title = f"{agent.name} · {provider} · {agent.model}"
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
        outputs = _final_outputs(view.transcript, result, output_format, agent.model, provider)
        view.surface.finish(outputs, view.transcript)
    return result


def widget_surface_available() -> bool:
    """True in a kernel with anywidget installed (else the display-id view is used)."""
    from .approvals import _kernel_shell

    if _kernel_shell() is None:
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


def _final_outputs(
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


def _current_shell() -> Any:
    """The running IPython shell, if any (IPython is not imported just to find out)."""
    ipython = sys.modules.get("IPython")
    return ipython.get_ipython() if ipython is not None else None
