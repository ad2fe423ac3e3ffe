"""``Agent``: sends messages to an LLM, runs the tools it asks for, and returns an ``AgentResult``.

Every entry point (``run``, ``arun``, ``stream``, ``astream``, ``ask``,
``batch`` …) drives the same loop (:mod:`._program`); only the driver differs.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .._display import RichDisplay
from ..parser import ToolCallParser
from ..prompt import PromptBuilder
from ..providers.base import AnyProvider, provider_label, uses_native_tools
from ..providers.stubs import LocalProvider
from ..stability import stable
from ..tools import ToolLike, ToolRegistry
from ..tools._registry import as_tool
from ..types import AgentResult, Message, Role, StreamChunk
from ..usage import AgentUsage
from ._context import RunContext
from ._drivers import drive_async, drive_async_stream, drive_sync, drive_sync_stream
from ._program import run_program
from ._summarize import with_summary
from ._verbose import VerboseObserver
from .config import AgentConfig, effective_model

if TYPE_CHECKING:
    from ..analytics import AgentAnalytics
    from ..cancellation import CancellationToken
    from ..memory.conversation import Memory
    from ..observer import Observer
    from ..structured import ResponseFormat
    from ._batch import BatchExecutor
    from .background import RunHandle
    from .stream import AgentStream

__all__ = ["Agent"]

_RUN_ID_PREFIX = os.urandom(8).hex()
_run_counter = itertools.count()


def new_run_id() -> str:
    """A 32-hex-digit id: random per process, then a counter (unique, and cheap to make)."""
    return f"{_RUN_ID_PREFIX}{next(_run_counter):016x}"


Prompt = str | Message | Sequence[Message | str | dict[str, Any]]


def _coerce_messages(messages: Any) -> list[Message]:
    """Accept a prompt string, a Message, or a list of Messages/strings/dicts."""
    if type(messages) is str:
        return [Message(Role.USER, messages)]
    if isinstance(messages, str):
        return [Message(role=Role.USER, content=messages)]
    if isinstance(messages, Message):
        return [messages]
    if isinstance(messages, dict):
        return [Message.from_dict(messages)]
    if isinstance(messages, Iterable):
        coerced = []
        for item in messages:
            if isinstance(item, Message):
                coerced.append(item)
            elif isinstance(item, str):
                coerced.append(Message(role=Role.USER, content=item))
            elif isinstance(item, dict):
                coerced.append(Message.from_dict(item))
            else:
                raise TypeError(
                    f"messages must be Message objects, strings or dicts, got {type(item).__name__}"
                )
        return coerced
    raise TypeError(
        f"expected a prompt string or a list of Message objects, got {type(messages).__name__}"
    )


def _cancel_tokens(*candidates: CancellationToken | None) -> tuple[CancellationToken, ...]:
    tokens = []
    for token in candidates:
        if token is None:
            continue
        if not callable(getattr(token, "cancel", None)) or not hasattr(token, "cancelled"):
            raise TypeError(
                f"cancellation_token must be a selectools.CancellationToken, got {token!r}"
            )
        if token not in tokens:
            tokens.append(token)
    return tuple(tokens)


@stable
class Agent(RichDisplay):
    """An LLM plus tools, run in a loop until the model gives a final answer.

    ``provider`` defaults to the offline :class:`LocalProvider`; ``config``
    to ``AgentConfig()``. ``memory`` (a ``ConversationMemory``) keeps the
    conversation across runs; without it every run starts fresh.
    """

    def __init__(
        self,
        tools: Iterable[ToolLike | Callable[..., Any]] | None = None,
        provider: AnyProvider | None = None,
        config: AgentConfig | None = None,
        memory: Memory | None = None,
        *,
        system_prompt: str | None = None,
    ) -> None:
        if config is None:
            config = AgentConfig()
        elif not isinstance(config, AgentConfig):
            raise TypeError(f"config must be an AgentConfig, got {type(config).__name__}")
        if system_prompt is not None:
            config = replace(config, system_prompt=system_prompt)
        self.config = config
        self._provider: AnyProvider = provider if provider is not None else LocalProvider()
        if memory is not None:
            missing = [
                m
                for m in ("extend", "get_history", "clear")
                if not callable(getattr(memory, m, None))
            ]
            if missing:
                raise TypeError(
                    f"memory must implement the Memory protocol (extend, get_history, clear); "
                    f"{type(memory).__name__} has no {', '.join(missing)}. "
                    "Use selectools.ConversationMemory or add those methods."
                )
        self.memory = memory
        self.prompt_builder = PromptBuilder(reasoning_strategy=config.reasoning_strategy)
        self.parser = ToolCallParser()
        self.usage = AgentUsage()
        self.analytics: AgentAnalytics | None = None
        if config.enable_analytics:
            from ..analytics import AgentAnalytics

            self.analytics = AgentAnalytics()
        self._lock = threading.Lock()
        self._registry = ToolRegistry()
        for item in tools or ():
            self._register(item, replace_existing=False)
        #: entity / knowledge-graph / knowledge memory configured (one check per run when not)
        self._memory_kinds = (
            config.entity_memory is not None
            or config.knowledge_graph is not None
            or config.knowledge_memory is not None
        )
        if config.knowledge_memory is not None:
            self._register(config.knowledge_memory.remember_tool(), replace_existing=False)
        self._sync_tools()
        #: metadata saved with the session (restored on load, then config.session_metadata)
        self.session_metadata: dict[str, Any] = {}
        self._session_loaded: tuple[float, float, int] | None = None
        #: the stored conversation memory last matched (a run reloads when the store differs)
        self._session_fingerprint: str | None = None
        #: runs of this agent in progress under its session lock (nested runs share the lock)
        self._session_turns = 0
        self._session_lock: Any = None
        if config.session_store is not None:
            from ._session import load_session

            load_session(self)

    # -- configuration -----------------------------------------------------
    @property
    def name(self) -> str:
        return self.config.name

    @property
    def provider(self) -> AnyProvider:
        return self._provider

    @provider.setter
    def provider(self, provider: AnyProvider) -> None:
        self._provider = provider
        self._system_prompt = self._build_system_prompt()

    @property
    def model(self) -> str:
        """The model sent to the provider (see :class:`AgentConfig` on defaults)."""
        return effective_model(self.config, self._provider)

    @property
    def system_prompt(self) -> str:
        return self._system_prompt

    @property
    def tools(self) -> list[ToolLike]:
        return list(self._tools)

    def _build_system_prompt(self) -> str:
        return self.prompt_builder.build(
            self._tools,
            system_prompt=self.config.system_prompt,
            native_tools=uses_native_tools(self._provider),
        )

    def _register(self, item: ToolLike | Callable[..., Any], *, replace_existing: bool) -> ToolLike:
        if not callable(item) and not isinstance(item, ToolLike):
            raise TypeError(
                f"tools must be Tool objects (use @tool), ToolLike objects or functions, got {item!r}"
            )
        made = as_tool(item)
        if not replace_existing and made.name in self._registry:
            raise ValueError(
                f"two tools are named '{made.name}'; tool names must be unique "
                "(pass @tool(name=...) to rename one)"
            )
        return self._registry.register(made)

    def _sync_tools(self) -> None:
        """Publish the registry's current tools; a running context keeps the ones it took."""
        self._tools_by_name = self._registry.mapping()
        self._tools = self._registry.all()
        self._screen_tools = any(getattr(t, "screen_output", False) for t in self._tools)
        self._system_prompt = self._build_system_prompt()

    def add_tool(self, new_tool: ToolLike | Callable[..., Any]) -> ToolLike:
        """Add a tool for the next runs; a tool with the same name is replaced."""
        added = self._register(new_tool, replace_existing=True)
        self._sync_tools()
        return added

    def add_tools(self, tools: Iterable[ToolLike | Callable[..., Any]]) -> None:
        for item in tools:
            self._register(item, replace_existing=True)
        self._sync_tools()

    def remove_tool(self, tool_name: str) -> ToolLike:
        """Remove a tool by name; later calls to it get the unknown-tool error."""
        if tool_name not in self._tools_by_name:
            raise KeyError(
                f"agent has no tool named {tool_name!r}; its tools are {sorted(self._tools_by_name)}"
            )
        removed = self._registry.remove(tool_name)
        self._sync_tools()
        return removed

    # -- running -------------------------------------------------------------
    def _context(
        self,
        messages: Any,
        async_mode: bool,
        stream: bool,
        response_format: ResponseFormat | None,
        parent_run_id: str | None,
        observers: Sequence[Observer],
        stream_handler: Callable[[str], None] | None = None,
        cancellation_token: CancellationToken | None = None,
    ) -> RunContext:
        new_messages = _coerce_messages(messages)
        config = self.config
        # a bad response_format fails here, before anything (memory included) is touched
        schema = None
        if response_format is not None:
            from ..structured import schema_from_response_format

            schema = schema_from_response_format(response_format)
        all_observers: Sequence[Observer] = observers
        if config.observers or config.verbose:
            all_observers = [*config.observers, *observers]
            if config.verbose:
                all_observers.append(VerboseObserver(self.name))
        memory = self.memory
        history = (
            [*memory.get_history(), *new_messages] if memory is not None else list(new_messages)
        )
        tokens: tuple[CancellationToken, ...] = ()
        if config.cancellation_token is not None or cancellation_token is not None:
            tokens = _cancel_tokens(config.cancellation_token, cancellation_token)
        # positional (this runs on every call): see RunContext for the order
        ctx = RunContext(
            self,
            new_run_id(),
            new_messages,
            history,
            all_observers,
            async_mode,
            stream or config.stream,
            parent_run_id,
            response_format,
            stream_handler,
            tokens,
        )
        if memory is not None:
            summary = getattr(memory, "summary", None)
            if summary:
                ctx.system_prompt = with_summary(ctx.system_prompt, summary)
        if schema is not None:
            from ..structured import build_schema_instruction

            ctx.system_prompt = f"{ctx.system_prompt}\n\n{build_schema_instruction(schema)}"
        return ctx

    def run(
        self,
        messages: Prompt,
        stream_handler: Callable[[str], None] | None = None,
        response_format: ResponseFormat | None = None,
        parent_run_id: str | None = None,
        *,
        observers: Sequence[Observer] = (),
        cancellation_token: CancellationToken | None = None,
    ) -> AgentResult:
        """Run the loop to completion (blocking). Works inside a running event loop too.

        ``stream_handler`` receives text deltas as they stream; ``observers``
        are added for this run only. ``response_format`` (a pydantic model or a
        JSON Schema dict) asks for structured output, parsed into
        ``result.parsed``. ``cancellation_token`` (with or instead of
        ``AgentConfig.cancellation_token``) stops the run at the next step.
        """
        ctx = self._context(  # positional on this hot path: async_mode, stream, ...
            messages,
            False,
            stream_handler is not None,
            response_format,
            parent_run_id,
            observers,
            stream_handler,
            cancellation_token,
        )
        return drive_sync(ctx, run_program(ctx))

    def start(
        self,
        messages: Prompt,
        response_format: ResponseFormat | None = None,
        *,
        observers: Sequence[Observer] = (),
    ) -> RunHandle:
        """Run in a background thread; returns a :class:`~selectools.agent.background.RunHandle`.

        Await it, poll it (``done()``, ``status``), wait with ``result(timeout)``
        or stop it with ``cancel()`` (the run ends with ``stop_reason="cancelled"``).
        The run streams (observers see ``on_stream_chunk``) and the handle records
        it, so in a notebook with ``%load_ext selectools`` showing the handle
        renders the live run widget, with a Stop button, from the run's start.
        """
        from .background import RunHandle, RunRecording

        recording = RunRecording()  # streamed, so a view shown later can replay the run

        def target(token: CancellationToken) -> AgentResult:
            stream = self.stream(
                messages, response_format=response_format,
                observers=[*observers, recording], cancellation_token=token,
            )  # fmt: skip
            recording.stream = stream
            last = deque(stream, maxlen=1)  # drained in C; no chunk is kept
            if not last or not isinstance(last[0], AgentResult):
                raise RuntimeError("the agent's stream ended without an AgentResult")
            return last[0]

        return RunHandle(
            target,
            self.name,
            recording=recording,
            model=self.model,
            provider=provider_label(self.provider),
        )

    async def arun(
        self,
        messages: Prompt,
        stream_handler: Callable[[str], None] | None = None,
        response_format: ResponseFormat | None = None,
        parent_run_id: str | None = None,
        *,
        observers: Sequence[Observer] = (),
        cancellation_token: CancellationToken | None = None,
    ) -> AgentResult:
        """Async :meth:`run`: async providers and tools are awaited; async observers fire."""
        ctx = self._context(
            messages,
            async_mode=True,
            stream=stream_handler is not None,
            response_format=response_format,
            parent_run_id=parent_run_id,
            observers=observers,
            stream_handler=stream_handler,
            cancellation_token=cancellation_token,
        )
        return await drive_async(ctx, run_program(ctx))

    def stream(
        self,
        messages: Prompt,
        response_format: ResponseFormat | None = None,
        parent_run_id: str | None = None,
        *,
        observers: Sequence[Observer] = (),
        cancellation_token: CancellationToken | None = None,
    ) -> AgentStream:
        """Yield :class:`StreamChunk` text deltas, then exactly one :class:`AgentResult`.

        The returned :class:`~selectools.agent.stream.AgentStream` also tells the
        text the model call in progress has streamed so far (``partial_text``).
        """
        ctx = self._context(
            messages,
            async_mode=False,
            stream=True,
            response_format=response_format,
            parent_run_id=parent_run_id,
            observers=observers,
            cancellation_token=cancellation_token,
        )
        from .stream import AgentStream  # loaded on the first stream, not with the package

        return AgentStream(ctx, drive_sync_stream(ctx, run_program(ctx)))

    def astream(
        self,
        messages: Prompt,
        response_format: ResponseFormat | None = None,
        parent_run_id: str | None = None,
        *,
        observers: Sequence[Observer] = (),
        cancellation_token: CancellationToken | None = None,
    ) -> AsyncIterator[StreamChunk | AgentResult]:
        """Async :meth:`stream`: ``async for item in agent.astream("...")``."""
        ctx = self._context(
            messages,
            async_mode=True,
            stream=True,
            response_format=response_format,
            parent_run_id=parent_run_id,
            observers=observers,
            cancellation_token=cancellation_token,
        )
        return drive_async_stream(ctx, run_program(ctx))

    def ask(self, prompt: Prompt, **kwargs: Any) -> AgentResult:
        """Shorthand for :meth:`run` with a prompt string."""
        return self.run(prompt, **kwargs)

    async def aask(self, prompt: Prompt, **kwargs: Any) -> AgentResult:
        return await self.arun(prompt, **kwargs)

    def __call__(self, messages: Prompt, **kwargs: Any) -> AgentResult:
        return self.run(messages, **kwargs)

    def batch(
        self,
        prompts: Sequence[Prompt],
        max_concurrency: int = 5,
        response_format: ResponseFormat | None = None,
        on_progress: Callable[[int, int], Any] | None = None,
        *,
        progress: bool = True,
        executor: BatchExecutor | None = None,
    ) -> list[AgentResult]:
        """Run many prompts concurrently (threads); results keep the input order.

        A prompt whose run raises gets a result with ``stop_reason="error"``
        and the exception in ``error``; the others are unaffected. A progress bar
        shows while it runs (tqdm, or the notebook's own bar); ``progress=False`` hides it.
        ``executor=RayExecutor()`` runs the prompts on a Ray cluster instead.
        """
        from ._batch import run_batch

        return run_batch(
            self, prompts, max_concurrency, response_format, on_progress, progress, executor
        )

    async def abatch(
        self,
        prompts: Sequence[Prompt],
        max_concurrency: int = 10,
        response_format: ResponseFormat | None = None,
        on_progress: Callable[[int, int], Any] | None = None,
        *,
        progress: bool = True,
    ) -> list[AgentResult]:
        """:meth:`batch` on the event loop (one task per prompt, ``max_concurrency`` at once)."""
        from ._batch import run_batch_async

        return await run_batch_async(
            self, prompts, max_concurrency, response_format, on_progress, progress
        )

    # -- state and usage -----------------------------------------------------
    def reset(self) -> None:
        """Clear history, usage, analytics and memory so the agent can be reused."""
        self.usage = AgentUsage()
        if self.analytics is not None:
            self.analytics.reset()
        if self.memory is not None:
            self.memory.clear()

    def reset_usage(self) -> None:
        self.usage = AgentUsage()

    @property
    def total_cost(self) -> float:
        return self.usage.total_cost_usd

    @property
    def total_tokens(self) -> int:
        return self.usage.total_tokens

    def get_usage_summary(self) -> str:
        return str(self.usage)

    def get_analytics(self) -> AgentAnalytics | None:
        """Tool analytics, or ``None`` unless ``AgentConfig(enable_analytics=True)``."""
        return self.analytics

    def __repr__(self) -> str:
        provider = provider_label(self._provider)
        tools = [t.name for t in self._tools]
        return (
            f"Agent(name={self.name!r}, provider={provider!r}, model={self.model!r}, tools={tools})"
        )
