"""``AgentRouter``: the framework-agnostic core of the HTTP API.

It turns a decoded request body into a run and the run into the documented
response shapes. Every request runs on its own copy of the agent (fresh memory
and usage), so concurrent requests never see each other's conversation; a
request that names a ``session_id`` runs on that session instead, loaded from
and saved to the session store (the agent's own ``session_store``, the one
given to the router, or an in-process store), so several server workers
pointing at one Redis or SQLite store share sessions.

The sync methods (``handle_invoke``, ``handle_stream``) serve WSGI frameworks
such as Flask; the async ones (``ainvoke``, ``astream_events``) serve the
Starlette app of :func:`selectools.serve.create_app`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .._version import __version__
from ..providers.base import provider_label
from ..types import AgentResult, StreamChunk
from .models import (
    DEFAULT_OVERRIDES,
    BadRequest,
    HealthResponse,
    InvokeRequest,
    InvokeResponse,
    parse_invoke,
)

if TYPE_CHECKING:
    from ..agent.core import Agent
    from ..memory.sessions import SessionStore

__all__ = ["AgentRouter", "RunFailed"]

log = logging.getLogger("selectools.serve")

#: the documented stream terminator
DONE = "[DONE]"


class RunFailed(Exception):
    """The agent's run raised; the client gets the error's type, never its text or traceback."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(type(error).__name__)
        self.error = error

    @property
    def public_message(self) -> str:
        return f"the agent run failed ({type(self.error).__name__}); details are in the server log"


class _ProcessSessionStore:
    """Sessions kept in this process (the most recent ``limit``), when no store is configured."""

    def __init__(self, limit: int = 1000) -> None:
        self._data: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def save(self, session_id: str, data: dict[str, Any]) -> None:
        with self._lock:
            self._data[session_id] = json.loads(json.dumps(data, default=str))
            self._data.move_to_end(session_id)
            while len(self._data) > self._limit:
                self._data.popitem(last=False)

    def load(self, session_id: str) -> dict[str, Any] | None:
        with self._lock:
            data = self._data.get(session_id)
            return None if data is None else json.loads(json.dumps(data))

    def exists(self, session_id: str) -> bool:
        with self._lock:
            return session_id in self._data

    def delete(self, session_id: str) -> None:
        with self._lock:
            self._data.pop(session_id, None)

    def list_sessions(self) -> list[str]:
        with self._lock:
            return list(self._data)


class AgentRouter:
    """Handles the API's requests for one agent; drop it into any web framework."""

    def __init__(
        self,
        agent: Agent,
        prefix: str = "",
        enable_playground: bool = True,
        *,
        session_store: SessionStore | None = None,
        max_prompt_chars: int = 32_000,
        allowed_overrides: frozenset[str] | set[str] = DEFAULT_OVERRIDES,
    ) -> None:
        if prefix and (not prefix.startswith("/") or prefix.endswith("/")):
            raise ValueError(f"prefix must start with '/' and not end with one, got {prefix!r}")
        self.agent = agent
        self.prefix = prefix
        self.enable_playground = enable_playground
        self.session_store: SessionStore = (
            session_store or agent.config.session_store or _ProcessSessionStore()
        )
        self.max_prompt_chars = max_prompt_chars
        self.allowed_overrides = frozenset(allowed_overrides)
        # one lock per session with a turn running or waiting, with how many hold or wait
        # for it; the entry goes when the last one leaves, so the tables stay bounded
        self._thread_locks: dict[str, tuple[threading.Lock, list[int]]] = {}
        self._async_locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}
        self._guard = threading.Lock()

    # -- requests --------------------------------------------------------------------

    def parse(self, body: Any) -> InvokeRequest:
        return parse_invoke(
            body, max_prompt_chars=self.max_prompt_chars, allowed_overrides=self.allowed_overrides
        )

    def agent_for(self, request: InvokeRequest) -> Agent:
        """A copy of the served agent for one request: its own memory, usage and config."""
        from ..agent.core import Agent

        base = self.agent
        config = base.config
        try:
            if request.config_overrides:
                config = replace(config, **request.config_overrides)
            if request.session_id is not None:
                config = replace(
                    config, session_store=self.session_store, session_id=request.session_id
                )
            elif config.session_store is not None:
                config = replace(config, session_store=None, session_id=None)
        except (TypeError, ValueError) as exc:
            raise BadRequest(f"config_overrides: {exc}", code="invalid_overrides") from None
        memory = None
        if request.session_id is not None or base.memory is not None:
            from ..memory.conversation import ConversationMemory

            source = base.memory
            if isinstance(source, ConversationMemory):
                memory = ConversationMemory.from_dict(source.to_dict())
            elif request.session_id is not None:
                memory = ConversationMemory()
        tools = list(base.tools)
        if config.knowledge_memory is not None:  # the agent adds its own remember tool
            own = config.knowledge_memory.remember_tool().name
            tools = [t for t in tools if t.name != own]
        return Agent(tools=tools, provider=base.provider, config=config, memory=memory)

    def locked_sessions(self) -> int:
        """How many sessions have a turn running or waiting right now."""
        with self._guard:
            return len(self._thread_locks) + len(self._async_locks)

    def _enter(self, table: dict[str, Any], session_id: str, new: Any) -> Any:
        with self._guard:
            lock, users = table.setdefault(session_id, (new(), [0]))
            users[0] += 1
            return lock

    def _leave(self, table: dict[str, Any], session_id: str) -> None:
        with self._guard:
            _, users = table[session_id]
            users[0] -= 1
            if users[0] == 0:
                del table[session_id]

    @contextmanager
    def _thread_turn(self, session_id: str | None) -> Iterator[None]:
        """One turn at a time per session (sync callers)."""
        if session_id is None:
            yield
            return
        lock = self._enter(self._thread_locks, session_id, threading.Lock)
        try:
            with lock:
                yield
        finally:
            self._leave(self._thread_locks, session_id)

    @asynccontextmanager
    async def _async_turn(self, session_id: str | None) -> AsyncIterator[None]:
        """One turn at a time per session (async callers)."""
        if session_id is None:
            yield
            return
        lock = self._enter(self._async_locks, session_id, asyncio.Lock)
        try:
            async with lock:
                yield
        finally:
            self._leave(self._async_locks, session_id)

    @staticmethod
    def response(result: AgentResult) -> dict[str, Any]:
        usage = result.usage
        return InvokeResponse(
            content=result.content,
            tool_calls=[
                {"name": c.tool_name, "arguments": c.parameters, "id": c.id}
                for c in result.tool_calls
            ],
            reasoning=result.reasoning,
            iterations=result.iterations,
            tokens=usage.total_tokens if usage is not None else 0,
            cost_usd=usage.total_cost_usd if usage is not None else 0.0,
            run_id=result.run_id or "",
        ).to_dict()

    # -- sync API (WSGI frameworks, scripts) ---------------------------------------------

    def handle_invoke(self, body: Any) -> dict[str, Any]:
        """POST /invoke: run the prompt, return the InvokeResponse dict."""
        request = self.parse(body)
        agent = self.agent_for(request)
        try:
            with self._thread_turn(request.session_id):
                result = agent.run(request.prompt)
        except Exception as exc:
            log.exception("selectools serve: /invoke run failed")
            raise RunFailed(exc) from exc
        return self.response(result)

    def handle_stream(self, body: Any) -> Iterator[str]:
        """POST /stream: SSE lines (``data: {...}``), ending with ``data: [DONE]``."""
        request = self.parse(body)
        agent = self.agent_for(request)

        def lines() -> Iterator[str]:
            try:
                with self._thread_turn(request.session_id):
                    for item in agent.stream(request.prompt):
                        event = self._event(item)
                        if event is not None:
                            yield f"data: {json.dumps(event)}\n\n"
            except Exception as exc:
                log.exception("selectools serve: /stream run failed")
                yield f"data: {json.dumps(self._error_event(exc))}\n\n"
            yield f"data: {DONE}\n\n"

        return lines()

    def handle_health(self) -> dict[str, Any]:
        agent = self.agent
        return HealthResponse(
            status="ok",
            version=__version__,
            model=agent.model,
            provider=provider_label(agent.provider),
            tools=[t.name for t in agent.tools],
        ).to_dict()

    def handle_schema(self) -> dict[str, Any]:
        tools = []
        for t in self.agent.tools:
            schema = getattr(t, "schema", None)
            tools.append(
                schema()
                if callable(schema)
                else {"name": t.name, "description": getattr(t, "description", "")}
            )
        return {"model": self.agent.model, "tools": tools}

    # -- async API (the Starlette app) -----------------------------------------------

    async def ainvoke(self, request: InvokeRequest) -> dict[str, Any]:
        agent = self.agent_for(request)
        try:
            async with self._async_turn(request.session_id):
                result = await agent.arun(request.prompt)
        except Exception as exc:
            log.exception("selectools serve: /invoke run failed")
            raise RunFailed(exc) from exc
        return self.response(result)

    async def astream_events(self, request: InvokeRequest) -> AsyncIterator[str]:
        """The SSE ``data`` payloads of one streamed run, ``[DONE]`` last."""
        agent = self.agent_for(request)
        try:
            async with self._async_turn(request.session_id):
                async for item in agent.astream(request.prompt):
                    event = self._event(item)
                    if event is not None:
                        yield json.dumps(event)
        except Exception as exc:
            log.exception("selectools serve: /stream run failed")
            yield json.dumps(self._error_event(exc))
        yield DONE

    def _event(self, item: StreamChunk | AgentResult) -> dict[str, Any] | None:
        if isinstance(item, AgentResult):
            event = self.response(item)
            return {"type": "result", **event}
        if item.restart:
            return {"type": "restart"}
        if item.tool_calls:
            return {
                "type": "tool_call",
                "tool_calls": [
                    {"name": c.tool_name, "arguments": c.parameters} for c in item.tool_calls
                ],
            }
        if item.content:
            return {"type": "chunk", "content": item.content}
        return None

    @staticmethod
    def _error_event(exc: BaseException) -> dict[str, Any]:
        return {"type": "error", "message": RunFailed(exc).public_message}
