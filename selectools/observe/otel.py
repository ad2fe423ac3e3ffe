"""OpenTelemetry spans for agent runs, LLM calls and tool calls (GenAI semantic conventions).

Why spans are built when a run ends rather than as events arrive: the run's
:class:`~selectools.trace.AgentTrace` already holds every step with its start
and end on the trace clock, so each span gets exactly the times the trace shows
(explicit ``start_time``/``end_time``), and the run costs three cheap callbacks
(start, end, error) instead of one per event. A run started inside a tool of
another run (an agent used as a tool) is held until its parent finishes and
then nests under the tool call that ran it. A run that raises still produces
its root span, marked as an error.

When no tracer provider is configured (the OpenTelemetry API's default proxy)
the observer records nothing: one ``isinstance`` check per run.

Only ``opentelemetry-api`` is needed here; the SDK and exporters are the
application's choice (``pip install opentelemetry-sdk opentelemetry-exporter-otlp``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from .._install import install_hint
from ..observer import AgentObserver, AsyncAgentObserver
from ..stability import beta
from ..trace import AgentTrace, StepType, now

try:
    from opentelemetry import context as otel_context, trace as otel_trace
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        f"OTelObserver needs opentelemetry-api: {install_hint('observe')} "
        "(and an SDK/exporter, e.g. opentelemetry-sdk opentelemetry-exporter-otlp)"
    ) from exc

if TYPE_CHECKING:
    from ..types import AgentResult, Message as _Message

__all__ = ["AsyncOTelObserver", "OTelObserver"]

_NO_PROVIDER = (otel_trace.ProxyTracerProvider, otel_trace.NoOpTracerProvider)


@dataclass
class _Run:
    """A run in progress: when it started and the OpenTelemetry context it started in."""

    started: float
    parent: otel_context.Context
    #: finished runs started inside this one, waiting for its spans
    children: list[AgentTrace] = field(default_factory=list)


class _Exporter:
    """The shared core of the sync and async observers."""

    def __init__(self, tracer_name: str, tracer_provider: otel_trace.TracerProvider | None) -> None:
        self.tracer_name = tracer_name
        self._provider = tracer_provider
        self._tracer: tuple[object, otel_trace.Tracer] | None = None
        self._runs: dict[str, _Run] = {}
        self._lock = threading.Lock()

    def tracer(self) -> otel_trace.Tracer | None:
        """The tracer of the configured provider, or ``None`` when there is none (no-op)."""
        provider = self._provider or otel_trace.get_tracer_provider()
        if isinstance(provider, _NO_PROVIDER):
            return None
        cached = self._tracer
        if cached is None or cached[0] is not provider:
            from .._version import __version__

            cached = (provider, provider.get_tracer(self.tracer_name, __version__))
            self._tracer = cached
        return cached[1]

    # -- events ----------------------------------------------------------
    def run_start(self, run_id: str) -> None:
        if self.tracer() is None:
            return
        run = _Run(now(), otel_context.get_current())
        with self._lock:
            self._runs[run_id] = run

    def run_end(self, run_id: str, result: AgentResult) -> None:
        with self._lock:
            run = self._runs.get(run_id)
        if run is None:
            return
        trace = result.trace
        if trace is None:  # a result built by hand: nothing to draw
            with self._lock:
                self._runs.pop(run_id, None)
            return
        if trace.parent_run_id is not None:
            with self._lock:
                parent = self._runs.get(trace.parent_run_id)
                if parent is not None:
                    # the parent's spans do not exist yet: nest this run when it ends
                    parent.children.append(trace)
                    del self._runs[run_id]
                    return
        attrs = {}
        if result.provider_used:
            attrs["gen_ai.provider.name"] = result.provider_used
        self._finish(run_id, trace, None, attrs)

    def run_error(self, run_id: str, error: BaseException, context: dict[str, Any]) -> None:
        if context.get("phase") != "run":
            return  # errors the run recovered from are steps of its trace
        with self._lock:
            run = self._runs.get(run_id)
        if run is None:
            return
        trace = AgentTrace(run_id, started_at=run.started)
        trace.finish()
        self._finish(run_id, trace, error, {})

    # -- spans -----------------------------------------------------------
    def _finish(
        self,
        run_id: str,
        trace: AgentTrace,
        error: BaseException | None,
        extra: dict[str, Any],
    ) -> None:
        with self._lock:
            run = self._runs.pop(run_id, None)
        tracer = self.tracer()
        if run is None or tracer is None:
            return
        self._emit(tracer, trace, run.parent, run.children, error, extra)

    def _emit(
        self,
        tracer: otel_trace.Tracer,
        trace: AgentTrace,
        parent: otel_context.Context,
        children: list[AgentTrace],
        error: BaseException | None,
        extra: dict[str, Any],
    ) -> None:
        """Spans for ``trace`` (and the runs nested in it), with the trace's own times.

        The names and attributes are :meth:`AgentTrace.to_otel_spans`'s, plus the
        GenAI ``gen_ai.operation.name``; built straight from the steps because
        this runs once per run and the SDK's own work is most of its cost.
        """
        end_ns = int((trace.ended_at if trace.ended_at is not None else now()) * 1e9)
        root_attrs: dict[str, Any] = {
            "gen_ai.system": "selectools",
            "gen_ai.operation.name": "invoke_agent",
            "selectools.run_id": trace.run_id,
            "gen_ai.usage.total_tokens": trace.total_tokens,
            "gen_ai.usage.cost_usd": trace.total_cost_usd,
            **extra,
        }
        if trace.parent_run_id:
            root_attrs["selectools.parent_run_id"] = trace.parent_run_id
        for key, value in trace.metadata.items():
            root_attrs[f"selectools.metadata.{key}"] = _attribute(value)
        root = tracer.start_span(
            "agent.run",
            context=parent,
            attributes=root_attrs,
            start_time=int(trace.started_at * 1e9),
        )
        if error is not None:
            root.record_exception(error)
            root.set_status(_error_status(f"{type(error).__name__}: {error}"))
        elif any(step.status == "error" for step in trace.steps):
            root.set_status(_error_status("a step of the run failed"))
        root_ctx = otel_trace.set_span_in_context(root)
        ends: list[tuple[otel_trace.Span, int]] = []
        tool_spans: list[tuple[int, int, otel_trace.Span]] = []
        llm_by_iteration: dict[int, tuple[otel_trace.Span, otel_context.Context]] = {}
        client, internal = otel_trace.SpanKind.CLIENT, otel_trace.SpanKind.INTERNAL
        for step in trace.steps:
            start, end = int(step.started_at * 1e9), int(step.ended_at * 1e9)
            kind = step.type
            if kind is StepType.LLM_CALL:
                span = tracer.start_span(
                    "gen_ai.llm.call",
                    context=root_ctx,
                    kind=client,
                    attributes={
                        "gen_ai.operation.name": "chat",
                        "gen_ai.system": "selectools",
                        "gen_ai.request.model": step.request_model,
                        "gen_ai.response.model": step.model or "",
                        "gen_ai.usage.input_tokens": step.prompt_tokens,
                        "gen_ai.usage.output_tokens": step.completion_tokens,
                        "gen_ai.usage.cost_usd": step.cost_usd,
                        "selectools.iteration": step.iteration,
                    },
                    start_time=start,
                )
                llm_by_iteration[step.iteration] = (span, otel_trace.set_span_in_context(span))
            elif kind is StepType.TOOL_EXECUTION:
                asked_by = llm_by_iteration.get(step.iteration)
                span = tracer.start_span(
                    "gen_ai.tool.execution",
                    context=asked_by[1] if asked_by is not None else root_ctx,
                    kind=internal,
                    attributes={
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": step.tool_name or "",
                        "gen_ai.tool.call.id": step.call_id or "",
                        "gen_ai.tool.duration_ms": step.duration_ms,
                        "gen_ai.tool.success": step.status == "ok",
                        "selectools.iteration": step.iteration,
                    },
                    start_time=start,
                )
                tool_spans.append((start, end, span))
            else:
                attributes: dict[str, Any] = {
                    "selectools.summary": step.summary,
                    "selectools.iteration": step.iteration,
                }
                if step.error:
                    attributes["error.message"] = step.error
                if start == end:
                    # an instant (the model choosing a tool, a policy decision): an event
                    # on the LLM call it belongs to, not a zero-length span
                    holder = llm_by_iteration.get(step.iteration)
                    (holder[0] if holder is not None else root).add_event(
                        f"selectools.{kind.value}", attributes, timestamp=start
                    )
                    continue
                span = tracer.start_span(
                    f"selectools.{kind.value}",
                    context=root_ctx,
                    kind=internal,
                    attributes=attributes,
                    start_time=start,
                )
            if step.status == "error":
                span.set_status(_error_status(step.error or "failed"))
            ends.append((span, end))
        # runs started inside this one's tools nest under the tool call that ran them
        for child in children:
            began = int(child.started_at * 1e9)
            runner = next((s for a, b, s in tool_spans if a <= began <= b), root)
            self._emit(tracer, child, otel_trace.set_span_in_context(runner), [], None, {})
        for span, end in ends:
            span.end(end_time=end)
        root.end(end_time=end_ns)


def _error_status(description: str) -> otel_trace.Status:
    return otel_trace.Status(otel_trace.StatusCode.ERROR, description)


def _attribute(value: Any) -> Any:
    """An OpenTelemetry attribute value: scalars as they are, anything else as JSON."""
    if isinstance(value, (str, bool, int, float)):
        return value
    import json

    return json.dumps(value, default=str)


@beta
class OTelObserver(AgentObserver):
    """Sends every run to OpenTelemetry: ``agent.run`` → ``gen_ai.llm.call`` → ``gen_ai.tool.execution``.

    ``tracer_name`` is passed to ``trace.get_tracer()``. ``tracer_provider``
    (optional) uses that provider instead of the global one, which is handy in
    tests and in processes that run several providers.
    """

    def __init__(
        self,
        tracer_name: str = "selectools",
        *,
        tracer_provider: otel_trace.TracerProvider | None = None,
    ) -> None:
        self._core = _Exporter(tracer_name, tracer_provider)

    @property
    def tracer_name(self) -> str:
        return self._core.tracer_name

    def on_run_start(self, run_id: str, messages: list[_Message], system_prompt: str) -> None:
        self._core.run_start(run_id)

    def on_run_end(self, run_id: str, result: AgentResult) -> None:
        self._core.run_end(run_id, result)

    def on_error(self, run_id: str, error: BaseException, context: dict[str, Any]) -> None:
        self._core.run_error(run_id, error, context)

    def __repr__(self) -> str:
        return f"OTelObserver(tracer_name={self.tracer_name!r})"


@beta
class AsyncOTelObserver(AsyncAgentObserver):
    """:class:`OTelObserver` for ``agent.arun()``/``agent.astream()``.

    Its callbacks are awaited (``blocking``) so a run's spans exist when ``arun``
    returns; they do no I/O (the span processor exports in its own thread).
    """

    blocking: ClassVar[bool] = True

    def __init__(
        self,
        tracer_name: str = "selectools",
        *,
        tracer_provider: otel_trace.TracerProvider | None = None,
    ) -> None:
        self._core = _Exporter(tracer_name, tracer_provider)

    @property
    def tracer_name(self) -> str:
        return self._core.tracer_name

    async def a_on_run_start(
        self, run_id: str, messages: list[_Message], system_prompt: str
    ) -> None:
        self._core.run_start(run_id)

    async def a_on_run_end(self, run_id: str, result: AgentResult) -> None:
        self._core.run_end(run_id, result)

    async def a_on_error(self, run_id: str, error: BaseException, context: dict[str, Any]) -> None:
        self._core.run_error(run_id, error, context)

    def __repr__(self) -> str:
        return f"AsyncOTelObserver(tracer_name={self.tracer_name!r})"
