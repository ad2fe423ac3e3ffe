"""Per-run state, separate from the agent so concurrent runs of one agent never mix."""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._events import EVENTS
from ..exceptions import CostWarning
from ..observer import EventEmitter
from ..providers.base import LLMRequest, provider_label
from ..trace import STEP_EVENTS, AgentTrace, StepType, TraceStep, now
from ..types import AgentResult, Message, ToolCall
from ..usage import AgentUsage, UsageStats
from .config import effective_model

if TYPE_CHECKING:
    from ..cancellation import CancellationToken
    from ..memory.conversation import Memory
    from ..observer import Observer
    from ..structured import ResponseFormat
    from ..tools import ToolLike
    from .config import AgentConfig
    from .core import Agent

__all__ = ["RunContext"]

#: a model call cut to the deadline may fail this much before it (seconds)
_DEADLINE_SLACK = 0.05


class RunContext:
    """Everything one run reads and writes.

    Attributes that most runs never change are class-level defaults, so
    starting a run only sets what every run needs.
    """

    iteration = 0
    last_usage: UsageStats | None = None
    reasoning: str | None = None
    provider_used: str | None = None
    error: BaseException | None = None
    parsed: Any = None
    response_format: ResponseFormat | None = None
    stream_handler: Callable[[str], None] | None = None
    cost_warned = False
    cancel_tokens: tuple[CancellationToken, ...] = ()
    #: budgets, cancellation or a deadline to check before each model call and tool batch
    guarded = False
    #: ``time.monotonic()`` by which the run must end (``AgentConfig.run_timeout``)
    deadline: float | None = None
    structured_retries = 0
    denials: dict[tuple[str, str], str] | None = None
    trimmed: list[Message] | None = None
    #: a tool of this run has ``screen_output=True`` (see selectools.security)
    screen_tools = False
    #: streamed model calls started so far, and the text deltas of the latest one
    #: (the driver's own list: :class:`~selectools.agent.stream.AgentStream` reads it)
    stream_calls = 0
    stream_parts: list[str] | None = None

    def __init__(
        self,
        agent: Agent,
        run_id: str,
        messages: list[Message],
        history: list[Message],
        observers: Sequence[Observer],
        async_mode: bool,
        stream: bool,
        parent_run_id: str | None,
        response_format: ResponseFormat | None = None,
        stream_handler: Callable[[str], None] | None = None,
        cancel_tokens: tuple[CancellationToken, ...] = (),
    ) -> None:
        config = agent.config
        self.agent = agent
        self.config: AgentConfig = config
        self.run_id = run_id
        self.provider = agent._provider
        #: how usage, errors and results name the provider (:func:`provider_label`)
        self.provider_name = provider_label(self.provider)
        self.model = effective_model(config, self.provider)
        self.system_prompt = agent._system_prompt
        self.tools: list[ToolLike] = agent._tools
        self.tools_by_name: Mapping[str, ToolLike] = agent._tools_by_name
        if agent._screen_tools:
            self.screen_tools = True
        self.trace = AgentTrace(
            run_id, parent_run_id or config.parent_run_id, config.trace_metadata
        )
        self.emitter = EventEmitter(run_id, observers, async_mode)
        self.usage = AgentUsage()
        self.input_messages = messages
        self.history = history
        self.tool_calls: list[ToolCall] = []
        self.reasoning_history: list[str] = []
        self.stream = stream
        if response_format is not None:
            self.response_format = response_format
        if stream_handler is not None:
            self.stream_handler = stream_handler
        if cancel_tokens:
            self.cancel_tokens = cancel_tokens
            self.guarded = True
        elif config.max_total_tokens is not None or config.max_cost_usd is not None:
            self.guarded = True
        if config.run_timeout is not None:
            self.deadline = time.monotonic() + config.run_timeout
            self.guarded = True

    # -- the run's deadline --------------------------------------------------
    def time_left(self) -> float | None:
        """Seconds until ``run_timeout`` passes (``<= 0`` once it has), or ``None``."""
        return None if self.deadline is None else self.deadline - time.monotonic()

    def timed_out(self) -> bool:
        """``run_timeout`` has passed (within the slack of a timer that just fired)."""
        left = self.time_left()
        return left is not None and left <= _DEADLINE_SLACK

    def timeout_for(self, timeout: float | None) -> float | None:
        """``timeout`` cut to the time the run has left (at least a moment, so it expires)."""
        left = self.time_left()
        if left is None:
            return timeout
        left = max(left, 0.01)
        return left if timeout is None else min(timeout, left)

    def model_request(
        self,
        model: str,
        system_prompt: str,
        messages: list[Message],
        max_tokens: int,
        tools: list[ToolLike] | None = None,
        temperature: float = 0.0,
    ) -> LLMRequest:
        """A model call of this run: the agent-wide timeout, cut to the run's deadline."""
        return LLMRequest(
            model,
            system_prompt,
            messages,
            tools,
            temperature,
            max_tokens,
            self.timeout_for(self.config.request_timeout),
            True,
            self.deadline,
        )

    def append(self, message: Message) -> None:
        """Add a message to the conversation (and to the agent's memory, if any)."""
        self.history.append(message)
        memory = self.agent.memory
        if memory is not None:
            self._trimmed(memory.extend((message,)), memory)

    def remember(self, messages: Sequence[Message]) -> None:
        """Add the run's input messages to the agent's memory (the history already has them)."""
        memory = self.agent.memory
        if memory is not None:
            self._trimmed(memory.extend(messages), memory)

    def _trimmed(self, trimmed: list[Message], memory: Memory) -> None:
        """Report messages the memory dropped; keep them for summarize-on-trim."""
        if trimmed:
            self.emitter.emit(
                "on_memory_trim",
                len(trimmed),
                len(memory),
                "enforce_limits",
                iteration=self.iteration,
            )
            if self.config.summarize_on_trim:
                self.trimmed = [*(self.trimmed or ()), *trimmed]

    # -- trace steps and their events --------------------------------------
    def record(
        self,
        kind: StepType,
        started: float,
        summary: str,
        announce: dict[str, Any] | None = None,
        *,
        ended: float | None = None,
        **fields: Any,
    ) -> TraceStep:
        """Trace a step and emit the events :data:`~selectools.trace.STEP_EVENTS` maps its kind to.

        ``fields`` are the step's (``status``, ``tool_name``, ``data``…); the step
        ends now unless ``ended`` is given. ``announce`` holds what the events
        need that a step does not keep (the exception, the message, the usage)
        and any extra fields for them; see :meth:`announce`.
        """
        step = TraceStep(
            kind,
            started,
            now() if ended is None else ended,
            summary,
            self.run_id,
            fields.pop("iteration", self.iteration),
            **fields,
        )
        self.trace.steps.append(step)
        if self.emitter.active:
            self.announce(step, announce)
        return step

    def announce(self, step: TraceStep, announce: dict[str, Any] | None = None) -> None:
        """Emit a traced step's events: parameters from ``announce``, else ``step.data``, else the step.

        :meth:`record` calls this; a hot-path caller that builds its step
        positionally appends it and calls this when ``emitter.active``.

        Extras: ``iteration``, ``call_id``/``lane`` for steps of a tool call, and
        every key of ``announce`` that is not a parameter of the events.
        """
        wanted = self.emitter.wanted
        names = [name for name in STEP_EVENTS[step.type][step.status == "error"] if name in wanted]
        if not names:
            return
        given = announce or {}
        data = step.data
        extras: dict[str, Any] = {"iteration": step.iteration}
        if step.call_id is not None:
            extras["call_id"] = step.call_id
            extras["lane"] = step.lane
        params = [EVENTS[name][1] for name in names]
        used = {p for group in params for p in group}
        for key, value in given.items():
            if key not in used:
                extras[key] = value
        emit = self.emitter.emit
        for name, group in zip(names, params, strict=True):
            args = [
                given[p] if p in given else data[p] if p in data else getattr(step, p, None)
                for p in group
            ]
            emit(name, *args, **{k: v for k, v in extras.items() if k not in group})

    def fail(
        self,
        phase: str,
        error: BaseException,
        summary: str,
        started: float | None = None,
        **context: Any,
    ) -> None:
        """Trace an ``error`` step and emit ``on_error`` with ``{"phase": ..., **context}``."""
        self.record(
            StepType.ERROR,
            now() if started is None else started,
            summary,
            {"error": error, "context": {"phase": phase, **context, "iteration": self.iteration}},
            status="error",
            error=str(error),
        )

    def run_messages(self) -> list[Message]:
        """The messages of this run: its input and everything after (not the memory's past)."""
        first = self.input_messages[0] if self.input_messages else None
        for index, message in enumerate(self.history):
            if message is first:
                return self.history[index:]
        return self.history

    def add_usage(self, usage: UsageStats) -> None:
        """Count one call's usage in this run and in the agent's lifetime totals."""
        self.usage.add_usage(usage)
        agent = self.agent
        with agent._lock:
            agent.usage.add_usage(usage)
            total_cost = agent.usage.total_cost_usd
        threshold = self.config.cost_warning_threshold
        if threshold is not None and total_cost > threshold and not self.cost_warned:
            self.cost_warned = True
            warnings.warn(
                f"⚠️  Cost Warning: Total cost ${total_cost:.6f} exceeds threshold ${threshold:.6f}",
                CostWarning,
                stacklevel=_caller_level(),
            )

    def record_tool_call(self, tool_name: str, tokens: int) -> None:
        """Count a call and attribute ``tokens`` of the response that requested it."""
        self.usage.record_tool_call(tool_name, tokens)
        with self.agent._lock:
            self.agent.usage.record_tool_call(tool_name, tokens)

    def finish(self, message: Message, stop_reason: str) -> AgentResult:
        """Close the trace, build the result and announce the end of the run."""
        self.trace.finish()
        last = self.tool_calls[-1] if self.tool_calls else None
        # positional (in field order): built once per run, keywords cost more
        result = AgentResult(
            message,
            self.iteration,
            self.tool_calls,
            last.tool_name if last else None,
            dict(last.parameters) if last else {},
            self.usage,
            self.trace,
            self.parsed,
            self.reasoning,
            self.reasoning_history,
            self.provider_used,
            stop_reason,
            self.error,
            self.history,
        )
        if self.emitter.active:
            self.emitter.emit("on_run_end", result)
        return result


#: selectools/ (with the trailing separator): frames below it are the library's
_PACKAGE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "")


def _caller_level() -> int:
    """The ``stacklevel`` that points a warning at the first frame outside selectools."""
    import sys

    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level
