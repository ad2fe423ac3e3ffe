"""Sessions in the loop: load when the agent is built, save after every run.

Loading happens in ``Agent.__init__`` so ``agent.memory`` holds the saved
conversation right away (the first run then reports it as ``on_session_load``
and a ``session_load`` step). Without a memory the agent gets a
``ConversationMemory`` to hold the session. Saving is a :class:`CallBlocking`
effect at the end of each run, so ``arun``/``astream`` never block their event
loop on disk or network I/O. A failed save does not lose the run: the result
carries the error (``result.error``), the trace an ``error`` step.
"""

from __future__ import annotations

from collections.abc import Generator
from functools import partial
from typing import TYPE_CHECKING, Any

from ..trace import StepType, now
from ._effects import CallBlocking

if TYPE_CHECKING:
    from ._context import RunContext
    from .core import Agent

__all__ = ["load_session", "report_session_load", "save_session"]


def load_session(agent: Agent) -> None:
    """Restore the configured session into ``agent.memory`` (creating the memory if needed)."""
    config = agent.config
    store, session_id = config.session_store, config.session_id
    # AgentConfig makes sure the two are set together
    assert store is not None
    assert session_id is not None
    from ..memory import ConversationMemory  # loaded when a session is configured

    started = now()
    data = store.load(session_id)
    if agent.memory is None:
        if data is not None and isinstance(data.get("max_messages"), int):
            agent.memory = ConversationMemory(data["max_messages"], data.get("max_tokens"))
        else:
            agent.memory = ConversationMemory()
    restore = getattr(agent.memory, "_restore", None)
    if restore is None:
        raise TypeError(
            "AgentConfig(session_store=...) needs the agent's memory to be a ConversationMemory, "
            f"got {type(agent.memory).__name__}"
        )
    metadata: dict[str, Any] = {}
    if data is not None:
        from ..sessions import SessionStoreError

        messages = data.get("messages", [])
        try:
            restore(messages, data.get("summary"))
        except (KeyError, TypeError, ValueError) as exc:
            raise SessionStoreError(
                f"session {session_id!r} holds a message that cannot be read ({exc!r}); "
                "the stored session was left untouched"
            ) from None
        metadata.update(data.get("metadata") or {})
        if agent._memory_kinds:
            from ._memory_kinds import restore_session

            restore_session(config, data)
        agent._session_loaded = (started, now(), len(agent.memory))
    metadata.update(config.session_metadata or {})
    agent.session_metadata = metadata


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
    from ..memory import ConversationMemory

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
