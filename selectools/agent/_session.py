"""Sessions in the loop: load when the agent is built, one locked turn per run.

Loading happens in ``Agent.__init__`` so ``agent.memory`` holds the saved
conversation right away (the first run then reports it as ``on_session_load``
and a ``session_load`` step). Without a memory the agent gets a
``ConversationMemory`` to hold the session.

Each run is a turn: it takes the session's lock (``store.lock``, held across
processes), reloads the session if another process or agent saved it since,
runs, saves, and releases the lock. So two workers sharing a store and a
session id run their turns one after the other and keep every message.
Locking and saving are :class:`CallBlocking` effects, so ``arun``/``astream``
never block their event loop on disk or network I/O. A failed save does not
lose the run: the result carries the error (``result.error``), the trace an
``error`` step.

A stored session that cannot be read when the agent is built follows
``AgentConfig.on_damaged_session``: ``"start_fresh"`` (the default) moves it
aside with ``store.set_aside`` (kept, renamed), warns naming where it went and
starts empty; ``"fail"`` raises :class:`~selectools.sessions.SessionStoreError`.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Generator
from functools import partial
from typing import TYPE_CHECKING, Any

from ..trace import StepType, now
from ._effects import CallBlocking

if TYPE_CHECKING:
    from ..memory.sessions import SessionLock
    from ..types import Message
    from ._context import RunContext
    from .core import Agent

__all__ = ["begin_turn", "end_turn", "load_session", "report_session_load", "save_session"]


def _fingerprint(data: dict[str, Any] | None) -> str | None:
    """What tells one saved conversation from another (messages and summary)."""
    if data is None:
        return None
    return json.dumps([data.get("messages"), data.get("summary")], sort_keys=True, default=str)


def _read(agent: Agent) -> tuple[dict[str, Any] | None, list[Message]]:
    """The stored session and its messages; SessionStoreError if either cannot be read."""
    from ..memory.sessions import SessionStoreError
    from ..types import Message

    config = agent.config
    assert config.session_store is not None
    assert config.session_id is not None
    data = config.session_store.load(config.session_id)
    if data is None:
        return None, []
    try:
        raw = data.get("messages", [])
        if not isinstance(raw, list):
            raise TypeError(f"messages is a {type(raw).__name__}, not a list")
        messages = [m if isinstance(m, Message) else Message.from_dict(m) for m in raw]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SessionStoreError(
            f"session {config.session_id!r} holds a message that cannot be read ({exc!r}); "
            "the stored session was left untouched"
        ) from None
    return data, messages


def _read_or_set_aside(agent: Agent) -> tuple[dict[str, Any] | None, list[Message]]:
    """:func:`_read`, applying ``on_damaged_session`` to a session that cannot be read."""
    from ..memory.sessions import SessionFormatError, SessionStoreError

    config = agent.config
    try:
        return _read(agent)
    except SessionFormatError:
        raise  # written by a newer selectools: never set aside or overwritten
    except SessionStoreError as exc:
        set_aside = getattr(config.session_store, "set_aside", None)
        if config.on_damaged_session == "fail" or set_aside is None:
            raise
        assert config.session_id is not None
        where = set_aside(config.session_id)
        warnings.warn(
            f"session {config.session_id!r} could not be read and starts empty; the stored "
            f"copy was moved aside to {where} (kept for you to inspect). The problem: {exc}. "
            "Pass AgentConfig(on_damaged_session='fail') to stop instead.",
            RuntimeWarning,
            stacklevel=4,
        )
        return None, []


def _restore(agent: Agent, data: dict[str, Any] | None, messages: list[Message]) -> None:
    """Put a stored session into ``agent.memory`` (and the memory kinds), or start empty."""
    restore = getattr(agent.memory, "_restore", None)
    if restore is None:
        raise TypeError(
            "AgentConfig(session_store=...) needs the agent's memory to be a ConversationMemory, "
            f"got {type(agent.memory).__name__}"
        )
    metadata: dict[str, Any] = {}
    if data is not None:
        restore(messages, data.get("summary"))
        metadata.update(data.get("metadata") or {})
        if agent._memory_kinds:
            from ._memory_kinds import restore_session

            restore_session(agent.config, data)
    metadata.update(agent.config.session_metadata or {})
    agent.session_metadata = metadata
    agent._session_fingerprint = _fingerprint(data)


def load_session(agent: Agent) -> None:
    """Restore the configured session into ``agent.memory`` (creating the memory if needed)."""
    from ..memory.conversation import ConversationMemory  # loaded when a session is configured

    started = now()
    data, messages = _read_or_set_aside(agent)
    if agent.memory is None:
        if data is not None and isinstance(data.get("max_messages"), int):
            agent.memory = ConversationMemory(data["max_messages"], data.get("max_tokens"))
        else:
            agent.memory = ConversationMemory()
    _restore(agent, data, messages)
    if data is not None:
        agent._session_loaded = (started, now(), len(agent.memory))


def _lock_and_reload(agent: Agent, lock: SessionLock | None) -> None:
    """Take the turn's lock, then catch up with a save made elsewhere since we last synced."""
    if lock is not None:
        lock.acquire()
    try:
        data, messages = _read_or_set_aside(agent)
        if data is not None and _fingerprint(data) != agent._session_fingerprint:
            _restore(agent, data, messages)
    except BaseException:
        if lock is not None:
            lock.release()
        raise


def begin_turn(ctx: RunContext) -> Generator[Any, Any, None]:
    """Lock the session for this run and start from its latest saved state.

    A run of this agent that starts while another is in progress (a tool that
    runs the agent again, ``batch``) shares that run's lock and memory instead
    of waiting for it; the lock goes when the last of them ends (:func:`end_turn`).
    """
    agent = ctx.agent
    config = ctx.config
    with agent._lock:
        if agent._session_turns:
            agent._session_turns += 1
            return
    store, session_id = config.session_store, config.session_id
    assert store is not None
    assert session_id is not None
    make_lock = getattr(store, "lock", None)
    lock = make_lock(session_id, config.session_lock_timeout) if make_lock is not None else None
    memory = agent.memory
    summary = getattr(memory, "summary", None)
    yield CallBlocking(partial(_lock_and_reload, agent, lock))
    with agent._lock:
        agent._session_turns += 1
        agent._session_lock = lock
    memory = agent.memory
    if memory is not None:  # the run's history starts from the session as it is now
        ctx.history[:] = [*memory.get_history(), *ctx.input_messages]
        new_summary = getattr(memory, "summary", None)
        if new_summary != summary:
            from ._summarize import with_summary

            base = agent._system_prompt
            old = with_summary(base, summary) if summary else base
            if ctx.system_prompt.startswith(old):
                fresh = with_summary(base, new_summary) if new_summary else base
                ctx.system_prompt = fresh + ctx.system_prompt[len(old) :]


def end_turn(agent: Agent) -> None:
    """The run is over: release the session lock if no other run of this agent holds it."""
    with agent._lock:
        agent._session_turns -= 1
        if agent._session_turns:
            return
        lock, agent._session_lock = agent._session_lock, None
    if lock is not None:
        lock.release()


def report_session_load(ctx: RunContext) -> None:
    """Announce, in the agent's first run, the session loaded when it was built."""
    agent = ctx.agent
    with agent._lock:
        loaded, agent._session_loaded = agent._session_loaded, None
    if loaded is None:
        return
    started, ended, count = loaded
    session_id = ctx.config.session_id
    ctx.record(
        StepType.SESSION_LOAD,
        started,
        f"loaded session {session_id!r} ({count} messages)",
        ended=ended,
        data={"session_id": session_id, "message_count": count},
    )


def save_session(ctx: RunContext) -> Generator[Any, Any, None]:
    agent = ctx.agent
    config = ctx.config
    memory = agent.memory
    store, session_id = config.session_store, config.session_id
    assert store is not None
    assert session_id is not None
    if memory is None:  # removed after the agent was built: nothing to save
        return
    from ..memory.conversation import ConversationMemory

    if not isinstance(memory, ConversationMemory):
        raise TypeError(
            "AgentConfig(session_store=...) needs the agent's memory to be a ConversationMemory, "
            f"got {type(memory).__name__}"
        )
    payload = dict(memory.to_dict())
    payload["session_id"] = session_id
    payload["metadata"] = agent.session_metadata
    if agent._memory_kinds:
        from ._memory_kinds import session_payload

        payload.update(session_payload(config))
    count = len(payload.get("messages", ()))
    started = now()
    try:
        yield CallBlocking(partial(store.save, session_id, payload))
        agent._session_fingerprint = _fingerprint(payload)
    except Exception as exc:
        if ctx.error is None:
            ctx.error = exc
        ctx.fail(
            "session_save",
            exc,
            f"saving session {session_id!r} failed: {type(exc).__name__}: {exc}",
            started,
        )
        return
    ctx.record(
        StepType.SESSION_SAVE,
        started,
        f"saved session {session_id!r} ({count} messages)",
        data={"session_id": session_id, "message_count": count},
    )
