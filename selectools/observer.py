"""Observers: the typed event stream every run emits.

:data:`EVENTS` lists every event with its parameters; the base classes'
no-op callbacks come from :mod:`selectools._events`, a checked-in module
generated from one table (``python scripts/gen_events.py``), so type
checkers and IDEs see every method with its real parameter types and
:data:`EventName` lets mypy catch a misspelt event name. Each callback receives
``run_id`` first (``batch_id`` for batch events); tool events also carry a
``call_id``.

Besides the named callbacks, an observer may implement ``on_event(event)`` to
receive events as :class:`Event` objects with a timestamp and any extra fields
the emitter attached (iteration numbers, models, durations). Setting the class
attribute ``events`` to a set of names delivers only those to ``on_event``, so
an observer that ignores stream chunks does not pay for them. That is the form
the notebook's live view consumes.

An observer that raises never breaks a run: the error is logged and ignored.
In the sync ``run()`` only sync observers fire; in ``arun()``/``astream()``
:class:`AsyncAgentObserver` callbacks are awaited (``blocking = True``) or
scheduled as tasks after the sync ones. Parallel tool calls may emit from
worker threads, so observers should be thread-safe.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from ._events import EVENTS, AsyncObserverEvents, EventName, ObserverEvents

if TYPE_CHECKING:
    import asyncio
    import logging

__all__ = [
    "EVENTS",
    "AgentObserver",
    "AsyncAgentObserver",
    "Event",
    "EventEmitter",
    "EventName",
    "LoggingObserver",
    "Observer",
    "OnEventObserver",
    "SimpleStepObserver",
]


class _Log:
    """``logging.getLogger("selectools.observer")``, loaded when something goes wrong.

    logging costs a few milliseconds at import and a healthy run never logs.
    """

    def warning(self, message: str, *args: Any, **kwargs: Any) -> None:
        import logging

        logging.getLogger("selectools.observer").warning(message, *args, **kwargs)


_log = _Log()


@dataclass(slots=True)
class Event:
    """One emitted event, as delivered to ``on_event``.

    ``data`` maps the callback's parameter names to their values, plus any
    extra fields the emitter attached (``iteration``, ``model``, ``duration_ms``…).
    """

    name: EventName
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


def _check_subclass_methods(cls: type, prefix: str) -> None:
    """Warn when a subclass defines an ``on_*`` method that is not an event (a typo)."""
    known = {prefix + name for name in EVENTS} | {prefix + "on_event"}
    for attr in vars(cls):
        if attr.startswith(prefix + "on_") and attr not in known:
            import difflib

            close = difflib.get_close_matches(attr, sorted(known), n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            warnings.warn(
                f"{cls.__name__}.{attr} is not a selectools observer event and will never be "
                f"called.{hint}",
                stacklevel=3,
            )
    wanted = vars(cls).get("events")
    if wanted is not None:
        unknown = sorted(set(wanted) - set(EVENTS))
        if unknown:
            raise ValueError(
                f"{cls.__name__}.events names unknown events {unknown}; "
                f"each must be one of selectools.observer.EVENTS"
            )


class AgentObserver(ObserverEvents):
    """Base class for sync observers: override the events you care about.

    Every event listed in :data:`EVENTS` exists here as a typed no-op method.
    Override ``on_event(event)`` to receive events in one place; set ``events``
    to the names ``on_event`` should receive (``None``, the default: all).
    """

    #: the events delivered to ``on_event`` (``None``: every event)
    events: ClassVar[frozenset[EventName] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _check_subclass_methods(cls, "")

    def on_event(self, event: Event) -> None:
        """Receives every event (with its timestamp and extra fields)."""
        return None


class AsyncAgentObserver(AsyncObserverEvents):
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


class OnEventObserver(AgentObserver):
    """An observer written as one ``on_event``, that also answers its named callbacks.

    The agent delivers events to ``on_event`` directly; a wrapping or
    forwarding observer instead calls ``on_run_start(...)``, ``on_llm_end(...)``
    and so on, and each of those builds the :class:`Event` (honouring
    ``events``) and hands it to ``on_event``. :class:`LoggingObserver` and
    :class:`SimpleStepObserver` are built on it.
    """


def _forward(name: EventName) -> Callable[..., None]:
    params = EVENTS[name][1]

    def forward(self: OnEventObserver, run_id: str, *args: Any, **kwargs: Any) -> None:
        wanted = self.events
        if wanted is not None and name not in wanted:
            return
        data = dict(zip(params, args, strict=False))
        data.update(kwargs)
        self.on_event(Event(name, run_id, time.time(), data))

    forward.__name__ = forward.__qualname__ = name
    forward.__doc__ = f"Deliver {name} to ``on_event`` (when called directly)."
    forward._forwards_to_on_event = True  # type: ignore[attr-defined]
    return forward


for _name in EVENTS:
    setattr(OnEventObserver, _name, _forward(_name))  # type: ignore[arg-type]


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
            if method is None or method is getattr(base, prefix + name, None):
                continue
            if getattr(method, "_forwards_to_on_event", False):
                continue  # the agent delivers to on_event itself
            names.add(name)
        generic = getattr(cls, prefix + "on_event", None)
        has_generic = generic is not None and generic is not getattr(
            base, prefix + "on_event", None
        )
        info = (frozenset(names), has_generic)
        _override_cache[key] = info
    return info


_NO_HANDLERS: dict[str, list[Callable[..., Any]]] = {}
_NO_GENERIC: dict[str, list[Any]] = {}
_NOTHING: list[Any] = []
_NO_TASKS: set[asyncio.Future[Any]] = set()
_NONE_WANTED: frozenset[str] = frozenset()
_ALL_WANTED: frozenset[str] = frozenset(EVENTS)


class EventEmitter:
    """Delivers events of one run to its observers; never lets an observer break the run."""

    __slots__ = (
        "_async_targets",
        "_generic",
        "_handlers",
        "_tasks",
        "active",
        "pending",
        "run_id",
        "wanted",
    )

    def __init__(self, run_id: str, observers: Sequence[Any], async_mode: bool = False) -> None:
        self.run_id = run_id
        if not observers:
            # the common case, kept cheap: shared empties that nothing ever adds to
            self._handlers: dict[str, list[Callable[..., Any]]] = _NO_HANDLERS
            self._generic: dict[str, list[Any]] = _NO_GENERIC
            self._async_targets: list[tuple[Any, frozenset[str], bool]] = _NOTHING
            self.pending: list[Event] = _NOTHING
            self._tasks: set[asyncio.Future[Any]] = _NO_TASKS
            self.active = False
            self.wanted: frozenset[str] = _NONE_WANTED
            return
        # per event, the bound callbacks and the on_event observers that want it:
        # an event nobody wants costs two dict misses
        self._handlers = {}
        self._generic = {}
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
                wanted = getattr(observer, "events", None)
                for name in EVENTS if wanted is None else wanted:
                    self._generic.setdefault(name, []).append(observer)
        self.active = bool(self._handlers or self._generic or self._async_targets)
        # the events some observer receives: a caller can skip building the arguments of others
        self.wanted = (
            _ALL_WANTED if self._async_targets else frozenset(self._handlers).union(self._generic)
        )

    def emit(self, name: EventName, *args: Any, **extras: Any) -> None:
        """Call ``name`` on every observer that implements it (args follow ``run_id``)."""
        handlers = self._handlers.get(name)
        if handlers is not None:
            for handler in handlers:
                try:
                    handler(self.run_id, *args)
                except Exception:
                    _log.warning("observer %s raised", _label(handler), exc_info=True)
        generic = self._generic.get(name)
        if generic is not None or self._async_targets:
            event = self._event(name, args, extras)
            if generic is not None:
                for observer in generic:
                    try:
                        observer.on_event(event)
                    except Exception:
                        _log.warning(
                            "observer %s.on_event raised", type(observer).__name__, exc_info=True
                        )
            if self._async_targets:
                self.pending.append(event)

    def _event(self, name: EventName, args: tuple[Any, ...], extras: dict[str, Any]) -> Event:
        data = dict(zip(EVENTS[name][1], args, strict=False))
        if extras:
            data.update(extras)
        return Event(name, self.run_id, time.time(), data)

    async def flush(self) -> None:
        """Deliver queued events to async observers (awaited or scheduled per ``blocking``)."""
        import asyncio

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


class LoggingObserver(OnEventObserver):
    """Writes every event as one JSON line to Python ``logging`` (for Datadog, ELK …)."""

    def __init__(
        self,
        logger: logging.Logger | str = "selectools",
        level: int = 20,  # logging.INFO
    ) -> None:
        import logging

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


class SimpleStepObserver(OnEventObserver):
    """Routes every event to one callback: ``SimpleStepObserver(lambda event: ...)``."""

    def __init__(self, callback: Callable[[Event], Any]) -> None:
        self.callback = callback

    def on_event(self, event: Event) -> None:
        self.callback(event)


#: What ``AgentConfig(observers=[...])`` and ``run(observers=[...])`` accept.
Observer = AgentObserver | AsyncAgentObserver
