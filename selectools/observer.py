"""Observers: the typed event stream every run emits.

One table, :data:`EVENTS`, defines every event and its parameters. The
observer base classes, the logging observer and the dispatcher are generated
from it, so adding an event is one line. Each callback receives ``run_id``
first (``batch_id`` for batch events); tool events also carry a ``call_id``.

Besides the named callbacks, an observer may implement ``on_event(event)`` to
receive every event as an :class:`Event` with a timestamp and any extra fields
the emitter attached (iteration numbers, models, durations). That is the form
the notebook layer consumes.

An observer that raises never breaks a run: the error is logged and ignored.
In the sync ``run()`` only sync observers fire; in ``arun()``/``astream()``
:class:`AsyncAgentObserver` callbacks are awaited (``blocking = True``) or
scheduled as tasks after the sync ones. Parallel tool calls may emit from
worker threads, so observers should be thread-safe.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import logging
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

__all__ = [
    "EVENTS",
    "AgentObserver",
    "AsyncAgentObserver",
    "Event",
    "EventEmitter",
    "LoggingObserver",
    "SimpleStepObserver",
]

_log = logging.getLogger("selectools.observer")

#: event name -> (scope, parameter names after ``run_id``)
EVENTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "on_run_start": ("run", ("messages", "system_prompt")),
    "on_run_end": ("run", ("result",)),
    "on_error": ("run", ("error", "context")),
    "on_cancelled": ("run", ("reason",)),
    "on_budget_exceeded": ("run", ("reason", "tokens_used", "cost_used")),
    "on_iteration_start": ("iteration", ("iteration", "messages")),
    "on_iteration_end": ("iteration", ("iteration", "response")),
    "on_llm_start": ("llm", ("messages", "model", "system_prompt")),
    "on_llm_end": ("llm", ("response", "usage")),
    "on_stream_chunk": ("llm", ("chunk",)),
    "on_cache_hit": ("llm", ("model", "response")),
    "on_usage": ("llm", ("usage",)),
    "on_llm_retry": ("llm", ("attempt", "max_retries", "error", "backoff_seconds")),
    "on_provider_fallback": ("llm", ("failed_provider", "next_provider", "error")),
    "on_tool_start": ("tool", ("call_id", "tool_name", "tool_args")),
    "on_tool_end": ("tool", ("call_id", "tool_name", "result", "duration_ms")),
    "on_tool_error": ("tool", ("call_id", "tool_name", "error", "tool_args", "duration_ms")),
    "on_tool_chunk": ("tool", ("call_id", "tool_name", "chunk")),
    "on_policy_decision": ("policy", ("tool_name", "decision", "reason", "tool_args")),
    "on_approval_request": ("policy", ("request",)),
    "on_structured_validate": ("structured", ("success", "attempt", "error")),
    "on_batch_start": ("batch", ("prompts_count",)),
    "on_batch_end": ("batch", ("results_count", "errors_count", "total_duration_ms")),
    "on_memory_trim": ("memory", ("messages_removed", "messages_remaining", "reason")),
    "on_memory_summarize": ("memory", ("summary", "messages_summarized")),
    "on_session_load": ("memory", ("session_id", "message_count")),
    "on_session_save": ("memory", ("session_id", "message_count")),
    "on_entity_extraction": ("memory", ("entities", "turn_count")),
    "on_kg_extraction": ("memory", ("triples_extracted", "triples_total", "triples")),
    "on_guardrail_triggered": ("guardrail", ("guardrail_name", "action", "reason")),
    "on_coherence_blocked": ("guardrail", ("tool_name", "reason")),
    "on_graph_start": ("graph", ("graph_name", "entry_node", "state")),
    "on_graph_end": ("graph", ("graph_name", "steps", "total_duration_ms")),
    "on_graph_error": ("graph", ("graph_name", "node_name", "error")),
    "on_node_start": ("graph", ("node_name", "step")),
    "on_node_end": ("graph", ("node_name", "step", "duration_ms")),
    "on_graph_routing": ("graph", ("from_node", "to_node")),
    "on_graph_interrupt": ("graph", ("node_name", "interrupt_id")),
    "on_graph_resume": ("graph", ("node_name", "interrupt_id")),
    "on_parallel_start": ("graph", ("group_name", "child_nodes")),
    "on_parallel_end": ("graph", ("group_name", "child_count")),
    "on_stall_detected": ("graph", ("node_name", "stall_count")),
    "on_loop_detected": ("graph", ("node_name", "loop_count")),
    "on_supervisor_replan": ("graph", ("stall_count", "new_plan")),
}


@dataclass(slots=True)
class Event:
    """One emitted event, as delivered to ``on_event``.

    ``data`` maps the callback's parameter names to their values, plus any
    extra fields the emitter attached (``iteration``, ``model``, ``duration_ms``…).
    """

    name: str
    run_id: str
    timestamp: float
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        """The event name without its ``on_`` prefix (``"tool_end"``)."""
        return self.name[3:]

    @property
    def scope(self) -> str:
        return EVENTS[self.name][0]

    @property
    def call_id(self) -> str | None:
        value = self.data.get("call_id")
        return value if isinstance(value, str) else None

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)


def _generate_methods(prefix: str, is_async: bool) -> dict[str, Callable[..., Any]]:
    """No-op callbacks with real signatures, one per row of :data:`EVENTS`."""
    keyword = "async def" if is_async else "def"
    source = []
    for name, (scope, params) in EVENTS.items():
        first = "batch_id" if scope == "batch" else "run_id"
        args = ", ".join(("self", first, *params))
        doc = f"{scope} event: {name}({first}, {', '.join(params)})"
        source.append(f"{keyword} {prefix}{name}({args}):\n    {doc!r}\n    return None\n")
    namespace: dict[str, Any] = {}
    exec("\n".join(source), namespace)
    return {key: value for key, value in namespace.items() if key.startswith(prefix + "on_")}


def _check_subclass_methods(cls: type, prefix: str) -> None:
    """Warn when a subclass defines an ``on_*`` method that is not an event (a typo)."""
    known = {prefix + name for name in EVENTS} | {prefix + "on_event"}
    for attr in vars(cls):
        if attr.startswith(prefix + "on_") and attr not in known:
            close = difflib.get_close_matches(attr, sorted(known), n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            warnings.warn(
                f"{cls.__name__}.{attr} is not a selectools observer event and will never be "
                f"called.{hint}",
                stacklevel=3,
            )


class AgentObserver:
    """Base class for sync observers: override the events you care about.

    Every event listed in :data:`EVENTS` exists here as a no-op method. Override
    ``on_event(event)`` to receive all events in one place.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _check_subclass_methods(cls, "")

    def on_event(self, event: Event) -> None:
        """Receives every event (with its timestamp and extra fields)."""
        return None


for _name, _method in _generate_methods("", is_async=False).items():
    setattr(AgentObserver, _name, _method)


class AsyncAgentObserver:
    """Base class for async observers (``a_on_*`` methods), used by ``arun``/``astream``.

    ``blocking = True`` awaits each callback before the run continues;
    ``blocking = False`` (default) schedules it with ``asyncio.ensure_future``.
    """

    blocking: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _check_subclass_methods(cls, "a_")

    async def a_on_event(self, event: Event) -> None:
        """Receives every event (with its timestamp and extra fields)."""
        return None


for _name, _method in _generate_methods("a_", is_async=True).items():
    setattr(AsyncAgentObserver, _name, _method)


_OverrideInfo = tuple[frozenset[str], bool]
_override_cache: dict[tuple[type, str], _OverrideInfo] = {}


def _overrides(obj: Any, prefix: str, base: type) -> _OverrideInfo:
    """Which event callbacks an observer's class actually implements (cached per class)."""
    cls = type(obj)
    key = (cls, prefix)
    info = _override_cache.get(key)
    if info is None:
        names = set()
        for name in EVENTS:
            method = getattr(cls, prefix + name, None)
            if method is not None and method is not getattr(base, prefix + name, None):
                names.add(name)
        generic = getattr(cls, prefix + "on_event", None)
        has_generic = generic is not None and generic is not getattr(
            base, prefix + "on_event", None
        )
        info = (frozenset(names), has_generic)
        _override_cache[key] = info
    return info


_NO_HANDLERS: dict[str, list[Callable[..., Any]]] = {}
_NOTHING: list[Any] = []
_NO_TASKS: set[asyncio.Future[Any]] = set()


class EventEmitter:
    """Delivers events of one run to its observers; never lets an observer break the run."""

    __slots__ = ("_async_targets", "_generic", "_handlers", "_tasks", "active", "pending", "run_id")

    def __init__(self, run_id: str, observers: Sequence[Any], async_mode: bool = False) -> None:
        self.run_id = run_id
        if not observers:
            # the common case, kept cheap: shared empties that nothing ever adds to
            self._handlers: dict[str, list[Callable[..., Any]]] = _NO_HANDLERS
            self._generic: list[Any] = _NOTHING
            self._async_targets: list[tuple[Any, frozenset[str], bool]] = _NOTHING
            self.pending: list[Event] = _NOTHING
            self._tasks: set[asyncio.Future[Any]] = _NO_TASKS
            self.active = False
            return
        # per event, the bound callbacks that implement it: unhandled events cost a dict miss
        self._handlers = {}
        self._generic = []
        self._async_targets = []
        self.pending = []
        self._tasks = set()
        for observer in observers:
            if isinstance(observer, AsyncAgentObserver):
                if async_mode:
                    names, generic = _overrides(observer, "a_", AsyncAgentObserver)
                    if names or generic:
                        self._async_targets.append((observer, names, generic))
                if not isinstance(observer, AgentObserver):
                    continue
            names, generic = _overrides(observer, "", AgentObserver)
            for name in names:
                self._handlers.setdefault(name, []).append(getattr(observer, name))
            if generic:
                self._generic.append(observer)
        self.active = bool(self._handlers or self._generic or self._async_targets)

    def emit(self, name: str, *args: Any, **extras: Any) -> None:
        """Call ``name`` on every observer that implements it (args follow ``run_id``)."""
        handlers = self._handlers.get(name)
        if handlers is not None:
            for handler in handlers:
                try:
                    handler(self.run_id, *args)
                except Exception:
                    _log.warning("observer %s raised", _label(handler), exc_info=True)
        if self._generic or self._async_targets:
            event = self._event(name, args, extras)
            for observer in self._generic:
                try:
                    observer.on_event(event)
                except Exception:
                    _log.warning(
                        "observer %s.on_event raised", type(observer).__name__, exc_info=True
                    )
            if self._async_targets:
                self.pending.append(event)

    def _event(self, name: str, args: tuple[Any, ...], extras: dict[str, Any]) -> Event:
        data = dict(zip(EVENTS[name][1], args, strict=False))
        if extras:
            data.update(extras)
        return Event(name, self.run_id, time.time(), data)

    async def flush(self) -> None:
        """Deliver queued events to async observers (awaited or scheduled per ``blocking``)."""
        while self.pending:
            event = self.pending.pop(0)
            args = tuple(event.data.get(p) for p in EVENTS[event.name][1])
            for observer, names, generic in self._async_targets:
                calls = []
                if event.name in names:
                    calls.append(
                        (
                            f"a_{event.name}",
                            getattr(observer, "a_" + event.name)(event.run_id, *args),
                        )
                    )
                if generic:
                    calls.append(("a_on_event", observer.a_on_event(event)))
                for label, coro in calls:
                    if observer.blocking:
                        try:
                            await coro
                        except Exception:
                            _log.warning(
                                "async observer %s.%s raised",
                                type(observer).__name__,
                                label,
                                exc_info=True,
                            )
                    else:
                        task = asyncio.ensure_future(coro)
                        self._tasks.add(task)
                        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Future[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            _log.warning("async observer task raised", exc_info=task.exception())


def _label(handler: Callable[..., Any]) -> str:
    owner = getattr(handler, "__self__", None)
    name = getattr(handler, "__name__", "callback")
    return f"{type(owner).__name__}.{name}" if owner is not None else name


def _summarise(value: Any) -> Any:
    """A JSON-friendly, short form of an event argument for logs."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return value if len(value) <= 200 else value[:197] + "..."
    if isinstance(value, BaseException):
        return f"{type(value).__name__}: {str(value).strip()[:200]}"
    if isinstance(value, (list, tuple)):
        return len(value)
    if isinstance(value, dict):
        try:
            text = json.dumps(value, default=str)
        except (TypeError, ValueError):
            text = str(value)
        return text if len(text) <= 200 else text[:197] + "..."
    total = getattr(value, "total_tokens", None)
    if isinstance(total, int):
        return {"tokens": total, "cost_usd": getattr(value, "cost_usd", None)}
    content = getattr(value, "content", None)
    if isinstance(content, str):
        return _summarise(content)
    return type(value).__name__


class LoggingObserver(AgentObserver):
    """Writes every event as one JSON line to Python ``logging`` (for Datadog, ELK …)."""

    def __init__(
        self, logger: logging.Logger | str = "selectools", level: int = logging.INFO
    ) -> None:
        self.logger = logging.getLogger(logger) if isinstance(logger, str) else logger
        self.level = level

    def on_event(self, event: Event) -> None:
        if not self.logger.isEnabledFor(self.level):
            return
        payload: dict[str, Any] = {"event": event.kind, "run_id": event.run_id}
        for key, value in event.data.items():
            payload[key] = _summarise(value)
        usage = event.data.get("usage")
        if usage is not None and hasattr(usage, "total_tokens"):
            payload["tokens"] = usage.total_tokens
        if event.name == "on_tool_end":
            payload["tool"] = event.data.get("tool_name")
        payload["timestamp"] = event.timestamp
        self.logger.log(self.level, json.dumps(payload, default=str))


class SimpleStepObserver(AgentObserver):
    """Routes every event to one callback: ``SimpleStepObserver(lambda event: ...)``."""

    def __init__(self, callback: Callable[[Event], Any]) -> None:
        self.callback = callback

    def on_event(self, event: Event) -> None:
        self.callback(event)
