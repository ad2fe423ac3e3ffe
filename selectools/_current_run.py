"""The run a provider call belongs to, so components below the agent can emit events.

The agent binds its event emitter around every provider call; a wrapper such as
``FallbackProvider`` uses :func:`emit_to_current_run` to report what happened
inside the call (``on_provider_fallback``) to the run's observers.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._events import EventName
    from .observer import EventEmitter

__all__ = ["bind_run", "current_run_id", "emit_to_current_run", "unbind_run"]

_emitter: ContextVar[EventEmitter | None] = ContextVar("selectools_current_run", default=None)


#: bind the run's emitter (returns a token for ``unbind_run``); plain aliases, no wrapper
bind_run: Callable[[EventEmitter], Token[EventEmitter | None]] = _emitter.set
unbind_run: Callable[[Token[EventEmitter | None]], None] = _emitter.reset


def current_run_id() -> str | None:
    emitter = _emitter.get()
    return emitter.run_id if emitter is not None else None


def emit_to_current_run(name: EventName, *args: Any, **extras: Any) -> None:
    """Emit ``name`` to the observers of the run in progress (no-op outside a run)."""
    emitter = _emitter.get()
    if emitter is not None:
        emitter.emit(name, *args, **extras)
