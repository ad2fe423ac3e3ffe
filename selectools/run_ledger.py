"""A run ledger: one row per agent, graph and eval run (the notebook keeps one per session).

Rows are read from what each run recorded (its usage, trace and report), never
estimated again: tokens and cost from the usage the provider reported, latency
from the trace's clock, tool calls from its ``tool_execution`` steps, denials
from its ``policy_decision`` steps that said deny. The magics record their runs
with the cell's execution count; runs made in Python (``agent.run(...)``,
``suite.run()``) are picked up after the cell from the values it left in the
notebook (variables and the cell's result). ``%selectools ledger`` shows it;
``selectools.notebook.ledger()`` gives it as a pandas DataFrame. Standard library only
(pandas when a DataFrame is asked for), so it is core code the views can name.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any

from ._display import RichDisplay
from ._install import install_hint
from .trace import StepType

if TYPE_CHECKING:
    import pandas

    from .evals.report import EvalReport
    from .orchestration.graph import GraphResult
    from .trace import AgentTrace
    from .types import AgentResult

__all__ = ["COLUMNS", "Ledger", "LedgerEntry", "entry_for"]


@dataclass(frozen=True)
class LedgerEntry:
    """One run: where it ran (the cell's execution count), what it used, what it cost."""

    cell: int | None
    kind: str
    name: str
    model: str
    provider: str
    prompt_tokens: int
    completion_tokens: int
    tokens: int
    cost_usd: float
    latency_ms: float
    tool_calls: int
    denials: int
    outcome: str
    trace_id: str


#: the DataFrame's columns, in order
COLUMNS = tuple(f.name for f in fields(LedgerEntry))


def _models(trace: AgentTrace | None) -> list[str]:
    if trace is None:
        return []
    found = (step.model for step in trace.steps if step.type is StepType.LLM_CALL and step.model)
    return list(dict.fromkeys(found))


def _denials(trace: AgentTrace | None) -> int:
    if trace is None:
        return 0
    return sum(
        1
        for step in trace.steps
        if step.type is StepType.POLICY_DECISION and (step.data or {}).get("decision") == "deny"
    )


def _tool_runs(trace: AgentTrace | None) -> int:
    return 0 if trace is None else len(trace.filter(StepType.TOOL_EXECUTION))


def _agent_entry(result: AgentResult, cell: int | None, name: str | None) -> LedgerEntry:
    usage, trace = result.usage, result.trace
    return LedgerEntry(
        cell=cell,
        kind="agent",
        name=name or "agent",
        model=", ".join(_models(trace)),
        provider=result.provider_used or "",
        prompt_tokens=usage.total_prompt_tokens if usage else 0,
        completion_tokens=usage.total_completion_tokens if usage else 0,
        tokens=usage.total_tokens if usage else 0,
        cost_usd=usage.total_cost_usd if usage else 0.0,
        latency_ms=trace.total_duration_ms if trace is not None else 0.0,
        tool_calls=_tool_runs(trace),
        denials=_denials(trace),
        outcome=result.stop_reason,
        trace_id=result.run_id or "",
    )


def _graph_entry(result: GraphResult, cell: int | None) -> LedgerEntry:
    runs = [run for visits in result.node_results.values() for run in visits]
    traces = [result.trace, *(run.trace for run in runs)]
    models = list(dict.fromkeys(m for trace in traces for m in _models(trace)))
    usage = result.total_usage
    return LedgerEntry(
        cell=cell,
        kind="graph",
        name=result.graph_name,
        model=", ".join(models),
        provider=", ".join(dict.fromkeys(r.provider_used for r in runs if r.provider_used)),
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        tokens=usage.total_tokens,
        cost_usd=usage.cost_usd,
        latency_ms=result.trace.total_duration_ms,
        tool_calls=sum(_tool_runs(trace) for trace in traces),
        denials=sum(_denials(trace) for trace in traces),
        outcome="interrupted" if result.interrupted else result.stop_reason,
        trace_id=result.run_id,
    )


def _eval_entry(report: EvalReport, cell: int | None) -> LedgerEntry:
    return LedgerEntry(
        cell=cell,
        kind="eval",
        name=report.name,
        model=report.model,
        provider="",
        prompt_tokens=0,
        completion_tokens=0,
        tokens=report.total_tokens,
        cost_usd=report.total_cost,
        latency_ms=report.duration_s * 1000.0,
        tool_calls=sum(len(r.tool_calls) for r in report.results),
        denials=0,
        outcome=f"{report.pass_count}/{report.total_cases} passed",
        trace_id="",
    )


def _kind(value: Any) -> str | None:
    """``agent``, ``graph`` or ``eval`` for a run's result, by its type alone; else None."""
    from .types import AgentResult

    if isinstance(value, AgentResult):
        return "agent"
    cls = type(value)
    return _KINDS.get((cls.__module__, cls.__name__))


_KINDS = {
    ("selectools.orchestration.graph", "GraphResult"): "graph",
    ("selectools.evals.report", "EvalReport"): "eval",
}


def _started_at(value: Any) -> float:
    """When the run began (epoch seconds), from its trace or its report."""
    trace = getattr(value, "trace", None)
    started = trace.started_at if trace is not None else getattr(value, "started_at", 0.0)
    return float(started or 0.0)


def entry_for(value: Any, cell: int | None, name: str | None = None) -> LedgerEntry | None:
    """The ledger row of a run's result (AgentResult, GraphResult, EvalReport), else None.

    ``name`` labels an agent run (the agent's name, or the variable holding the result).
    """
    kind = _kind(value)
    if kind == "agent":
        return _agent_entry(value, cell, name)
    if kind == "graph":
        return _graph_entry(value, cell)
    if kind == "eval":
        return _eval_entry(value, cell)
    return None


class Ledger(RichDisplay):
    """The runs of a notebook session, in the order they were recorded."""

    def __init__(self) -> None:
        #: when the session began: results of runs that started earlier (a report read back
        #: from disk, a result unpickled) are not picked up from the notebook's variables
        self.since = time.time()
        self.entries: list[LedgerEntry] = []
        self._seen: dict[Any, Any] = {}  # run id, or id(report) -> a weak reference to it
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[LedgerEntry]:
        return iter(list(self.entries))

    def __repr__(self) -> str:
        return f"Ledger(runs={len(self.entries)}, cost_usd={self.total_cost_usd:.6f})"

    @property
    def total_cost_usd(self) -> float:
        return sum(entry.cost_usd for entry in self.entries)

    @property
    def total_tokens(self) -> int:
        return sum(entry.tokens for entry in self.entries)

    def _key(self, value: Any) -> Any:
        run_id = getattr(value, "run_id", None)
        return run_id if isinstance(run_id, str) and run_id else ("object", id(value))

    def record(
        self, value: Any, cell: int | None = None, name: str | None = None
    ) -> LedgerEntry | None:
        """Add the run ``value`` (once: a run seen before is not added again)."""
        if _kind(value) is None:
            return None
        key = self._key(value)
        with self._lock:
            held = self._seen.get(key)
            if held is not None and (held is True or held() is value):
                return None
            entry = entry_for(value, cell, name)
            if entry is None:
                return None
            try:
                self._seen[key] = True if isinstance(key, str) else weakref.ref(value)
            except TypeError:  # not weak-referenceable: remember it for good
                self._seen[key] = True
            self.entries.append(entry)
            return entry

    def record_all(self, named: Iterable[tuple[str | None, Any]], cell: int | None) -> None:
        """Record each ``(name, value)`` that is a run of this session not seen before."""
        for name, value in named:
            if _kind(value) is not None and _started_at(value) >= self.since:
                self.record(value, cell, name)

    def clear(self) -> None:
        with self._lock:
            self.entries.clear()
            self._seen.clear()

    def to_dataframe(self) -> pandas.DataFrame:
        """One row per run (columns: :data:`COLUMNS`), ``cell`` as a nullable integer."""
        try:
            import pandas as pd
        except ImportError as exc:
            raise ModuleNotFoundError(
                f"ledger.to_dataframe() needs pandas: {install_hint('notebook')}"
            ) from exc
        frame = pd.DataFrame([asdict(e) for e in self.entries], columns=list(COLUMNS))
        frame["cell"] = frame["cell"].astype("Int64")
        return frame
