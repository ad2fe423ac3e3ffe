"""Execution traces: a typed, timed record of every step a run took.

Every step carries its start and end time on one process-wide monotonic clock
(expressed as epoch seconds), the run it belongs to and, for tool calls, the
call id and the lane it ran on, so parallel calls can be drawn side by side.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from ._display import RichDisplay, render

if TYPE_CHECKING:
    from pathlib import Path

    import pandas
    import plotly.graph_objects

    from ._events import EventName

__all__ = ["STEP_EVENTS", "AgentTrace", "StepType", "TraceStep", "now", "trace_to_json"]

# epoch seconds = perf_counter() + _CLOCK_OFFSET, fixed once per process
_CLOCK_OFFSET = time.time() - time.perf_counter()
_perf_counter = time.perf_counter


def now() -> float:
    """Current time in epoch seconds, read from a monotonic clock (never jumps back)."""
    return _perf_counter() + _CLOCK_OFFSET


class StepType(str, Enum):
    """What a trace step records. Values are the lower-case names used in JSON.

    Kinds arrive with the features that record them (graphs, guardrails,
    entity and knowledge-graph memory add theirs, each with its row in
    :data:`STEP_EVENTS`).
    """

    LLM_CALL = "llm_call"
    TOOL_SELECTION = "tool_selection"
    TOOL_EXECUTION = "tool_execution"
    CACHE_HIT = "cache_hit"
    ERROR = "error"
    STRUCTURED_RETRY = "structured_retry"
    SESSION_LOAD = "session_load"
    SESSION_SAVE = "session_save"
    MEMORY_SUMMARIZE = "memory_summarize"
    BUDGET_EXCEEDED = "budget_exceeded"
    POLICY_DECISION = "policy_decision"
    CANCELLED = "cancelled"
    GUARDRAIL = "guardrail"
    COHERENCE_CHECK = "coherence_check"
    OUTPUT_SCREENING = "output_screening"
    ENTITY_EXTRACTION = "entity_extraction"
    KG_EXTRACTION = "kg_extraction"
    GRAPH_NODE_START = "graph_node_start"
    GRAPH_NODE_END = "graph_node_end"
    GRAPH_ROUTING = "graph_routing"
    GRAPH_CHECKPOINT = "graph_checkpoint"
    GRAPH_INTERRUPT = "graph_interrupt"
    GRAPH_RESUME = "graph_resume"
    GRAPH_PARALLEL_START = "graph_parallel_start"
    GRAPH_PARALLEL_END = "graph_parallel_end"
    GRAPH_STALL = "graph_stall"
    GRAPH_LOOP_DETECTED = "graph_loop_detected"

    def __str__(self) -> str:
        return self.value


#: The events that announce a step of each kind: (when it went well, when it failed).
#: A new kind of step is a member of :class:`StepType` plus a row here; the agent's
#: ``RunContext.record`` writes the step and emits these events in one call, filling
#: each event's parameters from the step (its fields, then its ``data``) and from what
#: the call site passes for values a step does not keep (the exception, the message).
STEP_EVENTS: dict[StepType, tuple[tuple[EventName, ...], tuple[EventName, ...]]] = {
    StepType.LLM_CALL: (("on_llm_end", "on_usage"), ()),  # a failed attempt: on_llm_retry/on_error
    StepType.CACHE_HIT: (("on_cache_hit", "on_llm_end", "on_usage"), ()),
    StepType.TOOL_SELECTION: ((), ()),
    StepType.TOOL_EXECUTION: (("on_tool_end",), ("on_tool_error",)),
    StepType.ERROR: ((), ("on_error",)),
    StepType.STRUCTURED_RETRY: ((), ()),  # on_structured_validate also reports passes
    StepType.SESSION_LOAD: (("on_session_load",), ()),
    StepType.SESSION_SAVE: (("on_session_save",), ()),
    StepType.MEMORY_SUMMARIZE: (("on_memory_summarize",), ()),
    StepType.BUDGET_EXCEEDED: (("on_budget_exceeded",), ()),
    StepType.POLICY_DECISION: (("on_policy_decision",), ()),
    StepType.CANCELLED: (("on_cancelled",), ("on_cancelled",)),
    StepType.GUARDRAIL: (("on_guardrail_triggered",), ("on_guardrail_triggered",)),
    StepType.COHERENCE_CHECK: ((), ("on_coherence_blocked",)),
    StepType.OUTPUT_SCREENING: (("on_tool_output_screened",), ("on_tool_output_screened",)),
    StepType.ENTITY_EXTRACTION: (("on_entity_extraction",), ()),
    StepType.KG_EXTRACTION: (("on_kg_extraction",), ()),
    # graph steps: orchestration/_recorder.FACTS writes them and agrees with these rows
    StepType.GRAPH_NODE_START: (("on_node_start",), ()),
    StepType.GRAPH_NODE_END: (("on_node_end",), ("on_graph_error",)),
    StepType.GRAPH_ROUTING: (("on_graph_routing",), ()),
    StepType.GRAPH_CHECKPOINT: ((), ()),
    StepType.GRAPH_INTERRUPT: (("on_graph_interrupt",), ()),
    StepType.GRAPH_RESUME: (("on_graph_resume",), ()),
    StepType.GRAPH_PARALLEL_START: (("on_parallel_start",), ()),
    StepType.GRAPH_PARALLEL_END: (("on_parallel_end",), ()),
    StepType.GRAPH_STALL: (("on_stall_detected",), ()),
    StepType.GRAPH_LOOP_DETECTED: (("on_loop_detected",), ()),
}


@dataclass(slots=True)
class TraceStep(RichDisplay):
    """One step of a run. ``started_at``/``ended_at`` are epoch seconds (see :func:`now`)."""

    type: StepType
    started_at: float
    ended_at: float
    summary: str = ""
    run_id: str = ""
    iteration: int = 0
    call_id: str | None = None
    lane: int = 0
    status: str = "ok"
    error: str | None = None
    reasoning: str | None = None
    model: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    tool_name: str | None = None
    tool_args: dict[str, Any] | None = None
    result: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    node_name: str | None = None  # the graph node a step ran in

    @classmethod
    def llm_call(
        cls,
        started_at: float,
        ended_at: float,
        summary: str,
        run_id: str,
        iteration: int,
        model: str,
        prompt_tokens: int,
        completion_tokens: int,
        cost_usd: float,
        data: dict[str, Any],
    ) -> TraceStep:
        """A successful model call, built on every call of every run.

        Positional construction (field order, pinned by a test) because it is
        the agent's hot path: keywords cost about 0.5 µs more per step.
        """
        return cls(
            StepType.LLM_CALL,
            started_at,
            ended_at,
            summary,
            run_id,
            iteration,
            None,  # call_id
            0,  # lane
            "ok",  # status
            None,  # error
            None,  # reasoning
            model,
            prompt_tokens,
            completion_tokens,
            cost_usd,
            None,  # tool_name
            None,  # tool_args
            None,  # result
            data,
        )

    @classmethod
    def tool_selection(
        cls,
        at: float,
        summary: str,
        run_id: str,
        iteration: int,
        call_id: str,
        tool_name: str,
        tool_args: dict[str, Any],
        reasoning: str | None,
    ) -> TraceStep:
        """The model asking for one tool call: an instant (it starts and ends at ``at``).

        Positional for the same reason as :meth:`llm_call` (every tool call of every run).
        """
        return cls(
            StepType.TOOL_SELECTION,
            at,
            at,
            summary,
            run_id,
            iteration,
            call_id,
            0,  # lane
            "ok",  # status
            None,  # error
            reasoning,
            None,  # model
            0,  # prompt_tokens
            0,  # completion_tokens
            0.0,  # cost_usd
            tool_name,
            tool_args,
            None,  # result
            {},  # data
        )

    @classmethod
    def tool_execution(
        cls,
        started_at: float,
        ended_at: float,
        summary: str,
        run_id: str,
        iteration: int,
        call_id: str,
        lane: int,
        tool_name: str,
        tool_args: dict[str, Any],
        result: str,
        data: dict[str, Any],
    ) -> TraceStep:
        """A tool call that returned ``result``, positional like :meth:`llm_call`."""
        return cls(
            StepType.TOOL_EXECUTION,
            started_at,
            ended_at,
            summary,
            run_id,
            iteration,
            call_id,
            lane,
            "ok",  # status
            None,  # error
            None,  # reasoning
            None,  # model
            0,  # prompt_tokens
            0,  # completion_tokens
            0.0,  # cost_usd
            tool_name,
            tool_args,
            result,
            data,
        )

    @property
    def duration_ms(self) -> float:
        return (self.ended_at - self.started_at) * 1000.0

    @property
    def request_model(self) -> str:
        """The model the agent asked for; ``model`` is the one that answered (LLM steps)."""
        requested = self.data.get("request_model")
        return requested if isinstance(requested, str) else self.model or ""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "type": self.type.value,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "duration_ms": self.duration_ms,
        }
        for name in _OPTIONAL_STEP_FIELDS:
            value = getattr(self, name)
            if value not in (None, "", 0, 0.0, {}):
                data[name] = value
        data["lane"] = self.lane
        data["status"] = self.status
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TraceStep:
        kwargs = {k: data[k] for k in _OPTIONAL_STEP_FIELDS if k in data}
        return cls(
            type=StepType(data["type"]),
            started_at=float(data["started_at"]),
            ended_at=float(data["ended_at"]),
            lane=int(data.get("lane", 0)),
            status=data.get("status", "ok"),
            **kwargs,
        )

    def __repr__(self) -> str:
        label = f" {self.summary!r}" if self.summary else ""
        return f"TraceStep({self.type.value},{label} {self.duration_ms:.1f}ms)"


_OPTIONAL_STEP_FIELDS = (
    "summary",
    "run_id",
    "iteration",
    "call_id",
    "error",
    "reasoning",
    "model",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "tool_name",
    "tool_args",
    "result",
    "data",
    "node_name",
)


class AgentTrace(RichDisplay):
    """The ordered steps of one run, with the run's id, parent and metadata."""

    # one per run: slots make it cheaper to build
    __slots__ = ("ended_at", "metadata", "parent_run_id", "run_id", "started_at", "steps")

    def __init__(
        self,
        run_id: str | None = None,
        parent_run_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        started_at: float | None = None,
    ) -> None:
        self.run_id = run_id or os.urandom(16).hex()
        self.parent_run_id = parent_run_id
        self.metadata: dict[str, Any] = dict(metadata) if metadata else {}
        self.steps: list[TraceStep] = []
        self.started_at = now() if started_at is None else started_at
        self.ended_at: float | None = None

    # -- recording -------------------------------------------------------
    def add(self, step: TraceStep) -> TraceStep:
        if not step.run_id:
            step.run_id = self.run_id
        self.steps.append(step)
        return step

    def record(self, type: StepType, started_at: float, **fields: Any) -> TraceStep:
        """Append a step that started at ``started_at`` and ends now."""
        return self.add(TraceStep(type, started_at, now(), run_id=self.run_id, **fields))

    def finish(self) -> None:
        self.ended_at = now()

    # -- reading ---------------------------------------------------------
    def __iter__(self) -> Iterator[TraceStep]:
        return iter(self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, index: int) -> TraceStep:
        return self.steps[index]

    def __bool__(self) -> bool:
        return True

    def filter(self, type: StepType | str | None = None, **attrs: Any) -> list[TraceStep]:
        """Steps of one ``type`` (enum or its string value) whose attributes match ``attrs``."""
        wanted = StepType(type) if type is not None else None
        return [
            step
            for step in self.steps
            if (wanted is None or step.type is wanted)
            and all(getattr(step, key) == value for key, value in attrs.items())
        ]

    @property
    def total_duration_ms(self) -> float:
        end = self.ended_at if self.ended_at is not None else now()
        return (end - self.started_at) * 1000.0

    @property
    def total_tokens(self) -> int:
        return sum(step.total_tokens for step in self.steps if step.type is StepType.LLM_CALL)

    @property
    def total_cost_usd(self) -> float:
        return sum(step.cost_usd for step in self.steps if step.type is StepType.LLM_CALL)

    def timeline(self) -> str:
        """A readable, one-line-per-step view of the run."""
        header = (
            f"Trace {self.run_id[:8]} · {len(self.steps)} steps · {self.total_duration_ms:.1f} ms"
        )
        lines = [header]
        for step in self.steps:
            offset = (step.started_at - self.started_at) * 1000.0
            lane = f" [lane {step.lane}]" if step.lane else ""
            mark = " ✗" if step.status == "error" else ""
            lines.append(
                f"  +{offset:8.1f}ms  {step.type.value:<17} {step.duration_ms:8.1f}ms"
                f"{lane}{mark}  {step.summary}"
            )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "parent_run_id": self.parent_run_id,
            "metadata": self.metadata,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "total_duration_ms": self.total_duration_ms,
            "steps": [step.to_dict() for step in self.steps],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AgentTrace:
        trace = cls(
            run_id=data["run_id"],
            parent_run_id=data.get("parent_run_id"),
            metadata=data.get("metadata"),
            started_at=data.get("started_at"),
        )
        trace.ended_at = data.get("ended_at")
        trace.steps = [TraceStep.from_dict(step) for step in data.get("steps", [])]
        return trace

    def to_json(self, filepath: str | Path | None = None, indent: int = 2) -> str:
        """The trace as JSON; written to ``filepath`` as well when one is given."""
        text = json.dumps(self.to_dict(), indent=indent, default=_json_default)
        if filepath is not None:
            from pathlib import Path

            Path(filepath).write_text(text)
        return text

    def to_dataframe(self) -> pandas.DataFrame:
        """One row per step (type, name, start, end, duration, lane, tokens, cost, status); needs pandas."""
        return render(self, "dataframe")

    def gantt(self, **kwargs: Any) -> plotly.graph_objects.Figure:
        """A plotly Gantt chart of the run's LLM, tool and node spans on lanes; needs plotly."""
        return render(self, "gantt", **kwargs)

    def to_otel_spans(self) -> list[dict[str, Any]]:
        """The run as OpenTelemetry-shaped span dicts.

        ``agent.run`` is the root; each LLM call is a ``gen_ai.llm.call`` span and
        the tool executions it asked for nest under it as ``gen_ai.tool.execution``.
        """
        import hashlib

        trace_id = hashlib.sha256(self.run_id.encode()).hexdigest()[:32]
        root_id = _span_id(self.run_id, -1)
        end = self.ended_at if self.ended_at is not None else now()
        root_attrs: dict[str, Any] = {
            "gen_ai.system": "selectools",
            "selectools.run_id": self.run_id,
            "gen_ai.usage.total_tokens": self.total_tokens,
            "gen_ai.usage.cost_usd": self.total_cost_usd,
        }
        if self.parent_run_id:
            root_attrs["selectools.parent_run_id"] = self.parent_run_id
        for key, value in self.metadata.items():
            root_attrs[f"selectools.metadata.{key}"] = _otel_value(value)
        failed = any(step.status == "error" for step in self.steps)
        spans = [
            _span("agent.run", trace_id, root_id, None, self.started_at, end, root_attrs, failed)
        ]
        llm_span_by_iteration: dict[int, str] = {}
        for index, step in enumerate(self.steps):
            span_id = _span_id(self.run_id, index)
            parent = root_id
            if step.type is StepType.LLM_CALL:
                name = "gen_ai.llm.call"
                llm_span_by_iteration[step.iteration] = span_id
                attrs: dict[str, Any] = {
                    "gen_ai.request.model": step.request_model,
                    "gen_ai.response.model": step.model or "",
                    "gen_ai.usage.input_tokens": step.prompt_tokens,
                    "gen_ai.usage.output_tokens": step.completion_tokens,
                    "gen_ai.usage.cost_usd": step.cost_usd,
                }
            elif step.type is StepType.TOOL_EXECUTION:
                name = "gen_ai.tool.execution"
                parent = llm_span_by_iteration.get(step.iteration, root_id)
                attrs = {
                    "gen_ai.tool.name": step.tool_name or "",
                    "gen_ai.tool.call.id": step.call_id or "",
                    "gen_ai.tool.duration_ms": step.duration_ms,
                    "gen_ai.tool.success": step.status == "ok",
                }
            else:
                name = f"selectools.{step.type.value}"
                attrs = {"selectools.summary": step.summary}
            attrs["selectools.iteration"] = step.iteration
            if step.error:
                attrs["error.message"] = step.error
            spans.append(
                _span(
                    name,
                    trace_id,
                    span_id,
                    parent,
                    step.started_at,
                    step.ended_at,
                    attrs,
                    step.status == "error",
                )
            )
        return spans

    def __repr__(self) -> str:
        return f"AgentTrace(steps={len(self.steps)}, duration_ms={self.total_duration_ms:.1f})"


def trace_to_json(trace: AgentTrace, filepath: str | Path | None = None) -> str:
    """Serialise ``trace`` to JSON (and write it to ``filepath`` when given)."""
    return trace.to_json(filepath)


def _span_id(run_id: str, index: int) -> str:
    import hashlib

    return hashlib.sha256(f"{run_id}:{index}".encode()).hexdigest()[:16]


def _span(
    name: str,
    trace_id: str,
    span_id: str,
    parent: str | None,
    start: float,
    end: float,
    attributes: dict[str, Any],
    failed: bool,
) -> dict[str, Any]:
    return {
        "name": name,
        "trace_id": trace_id,
        "span_id": span_id,
        "parent_span_id": parent,
        "kind": "INTERNAL",
        "start_time_unix_nano": int(start * 1e9),
        "end_time_unix_nano": int(end * 1e9),
        "attributes": attributes,
        "status": {"code": "ERROR" if failed else "OK"},
    }


def _otel_value(value: Any) -> Any:
    if isinstance(value, (str, bool, int, float)):
        return value
    return json.dumps(value, default=str)


def _json_default(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return str(value)
