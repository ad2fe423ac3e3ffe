"""Langfuse traces: each run a trace, each LLM call a generation, each tool call a span.

Built on the Langfuse SDK (v3 and later export over OpenTelemetry to the
server's ``/api/public/otel`` endpoint). The observer gives the SDK a private
``TracerProvider`` so that creating it never installs a global OpenTelemetry
provider behind the application's back (the SDK does that when none is set),
and an :class:`~selectools.observe.OTelObserver` in the same process keeps its
own configuration.

Mapping (one Langfuse trace per run, its id the run id):

========================  ==========================================================
``on_run_start``          root span ``agent.run`` (trace name ``agent.run``), input
                          = the run's messages
``on_llm_start``          generation ``llm.call``: ``model`` (the requested one), ``input``
``on_llm_end``            generation update: ``output`` (the reply, with its tool
                          calls), ``metadata.response_model`` (the model that answered),
                          ``usage_details``
                          (input/output/total), ``cost_details`` (total), ended
``on_tool_start``         span named after the tool, ``input`` = the arguments
``on_tool_end``/``error`` span update: ``output`` (or the error), ``duration_ms``
``on_run_end``            root update: ``output``, total tokens and cost; then flush
========================  ==========================================================
"""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING, Any, cast

from .._install import install_hint
from ..observer import AgentObserver
from ..stability import beta
from ..trace import now

try:
    from langfuse import Langfuse, propagate_attributes
    from langfuse.types import TraceContext
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(f"LangfuseObserver needs langfuse: {install_hint('observe')}") from exc

if TYPE_CHECKING:
    from ..types import AgentResult, Message
    from ..usage import UsageStats

__all__ = ["LangfuseObserver"]

_TRACE_ID = re.compile(r"[0-9a-f]{32}")


def _messages(messages: list[Message] | None) -> list[dict[str, Any]]:
    out = []
    for message in messages or ():
        to_dict = getattr(message, "to_dict", None)
        out.append(to_dict() if callable(to_dict) else {"content": str(message)})
    return out


def _ns(seconds: float) -> int:
    return int(seconds * 1e9)


@beta
class LangfuseObserver(AgentObserver):
    """Sends runs to Langfuse Cloud or a self-hosted Langfuse.

    ``public_key``/``secret_key``/``host`` fall back to ``LANGFUSE_PUBLIC_KEY``,
    ``LANGFUSE_SECRET_KEY`` and ``LANGFUSE_HOST`` (default: Langfuse Cloud).
    ``client`` uses a ``Langfuse`` instance you built instead. The observer
    flushes after every run end.
    """

    def __init__(
        self,
        public_key: str | None = None,
        secret_key: str | None = None,
        host: str | None = None,
        *,
        client: Langfuse | None = None,
    ) -> None:
        if client is None:
            from opentelemetry.sdk.trace import TracerProvider

            client = Langfuse(
                public_key=public_key,
                secret_key=secret_key,
                host=host,
                tracer_provider=TracerProvider(),
            )
        self.client = client
        self._lock = threading.Lock()
        self._roots: dict[str, Any] = {}
        self._generations: dict[str, Any] = {}
        self._tools: dict[tuple[str, str], Any] = {}

    # -- runs --------------------------------------------------------------
    def on_run_start(self, run_id: str, messages: list[Message], system_prompt: str) -> None:
        trace_id = (
            run_id if _TRACE_ID.fullmatch(run_id) else self.client.create_trace_id(seed=run_id)
        )
        with propagate_attributes(trace_name="agent.run"):
            root = self.client.start_observation(
                trace_context=cast(TraceContext, {"trace_id": trace_id}),
                name="agent.run",
                as_type="span",
                input=_messages(messages),
                metadata={"system_prompt": system_prompt, "run_id": run_id},
            )
        with self._lock:
            self._roots[run_id] = root

    def on_run_end(self, run_id: str, result: AgentResult) -> None:
        with self._lock:
            root = self._roots.pop(run_id, None)
        if root is None:
            return
        usage = result.usage
        root.update(
            output=result.content,
            metadata={
                "total_tokens": usage.total_tokens if usage else 0,
                "total_cost_usd": usage.total_cost_usd if usage else 0.0,
                "iterations": result.iterations,
                "stop_reason": result.stop_reason,
            },
        )
        trace = result.trace
        root.end(end_time=_ns(trace.ended_at) if trace and trace.ended_at else None)
        self.client.flush()

    def on_error(self, run_id: str, error: BaseException, context: dict[str, Any]) -> None:
        if context.get("phase") != "run":
            return
        with self._lock:
            root = self._roots.pop(run_id, None)
        if root is None:
            return
        root.update(level="ERROR", status_message=f"{type(error).__name__}: {error}")
        root.end(end_time=_ns(now()))
        self.client.flush()

    # -- LLM calls ---------------------------------------------------------
    def on_llm_start(
        self, run_id: str, messages: list[Message], model: str, system_prompt: str
    ) -> None:
        with self._lock:
            root = self._roots.get(run_id)
        if root is None:
            return
        generation = root.start_observation(
            name="llm.call",
            as_type="generation",
            model=model,
            input=[{"role": "system", "content": system_prompt}, *_messages(messages)],
        )
        with self._lock:
            self._generations[run_id] = generation

    def on_llm_end(self, run_id: str, response: str, usage: UsageStats) -> None:
        with self._lock:
            generation = self._generations.pop(run_id, None)
        if generation is None:
            return
        message = getattr(response, "message", None)  # a ReplyText from the agent
        # ``model`` stays the requested one (set at on_llm_start, as OTel's
        # gen_ai.request.model); the model that answered goes to the metadata
        generation.update(
            output=message.to_dict() if message is not None else str(response),
            metadata={"response_model": usage.model} if usage.model else None,
            usage_details={
                "input": usage.prompt_tokens,
                "output": usage.completion_tokens,
                "total": usage.total_tokens,
            },
            cost_details={"total": usage.cost_usd},
        )
        generation.end()

    def on_llm_retry(
        self,
        run_id: str,
        attempt: int,
        max_retries: int,
        error: BaseException,
        backoff_seconds: float,
    ) -> None:
        with self._lock:
            generation = self._generations.pop(run_id, None)
        if generation is not None:
            generation.update(level="ERROR", status_message=f"{type(error).__name__}: {error}")
            generation.end()

    # -- tools -------------------------------------------------------------
    def on_tool_start(
        self, run_id: str, call_id: str, tool_name: str, tool_args: dict[str, Any]
    ) -> None:
        with self._lock:
            root = self._roots.get(run_id)
        if root is None:
            return
        span = root.start_observation(name=tool_name, as_type="span", input=tool_args)
        with self._lock:
            self._tools[(run_id, call_id)] = span

    def on_tool_end(
        self, run_id: str, call_id: str, tool_name: str, result: str, duration_ms: float
    ) -> None:
        with self._lock:
            span = self._tools.pop((run_id, call_id), None)
        if span is not None:
            span.update(output=result, metadata={"duration_ms": duration_ms})
            span.end()

    def on_tool_error(
        self,
        run_id: str,
        call_id: str,
        tool_name: str,
        error: BaseException,
        tool_args: dict[str, Any],
        duration_ms: float,
    ) -> None:
        with self._lock:
            span = self._tools.pop((run_id, call_id), None)
        if span is not None:
            span.update(
                level="ERROR",
                status_message=f"{type(error).__name__}: {error}",
                metadata={"duration_ms": duration_ms},
            )
            span.end()

    def flush(self) -> None:
        self.client.flush()

    def shutdown(self) -> None:
        """Flush and stop the SDK's exporter thread."""
        self.client.shutdown()

    def __repr__(self) -> str:
        return "LangfuseObserver()"
