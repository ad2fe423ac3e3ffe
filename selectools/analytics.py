"""Per-tool analytics (``AgentConfig(enable_analytics=True)``): calls, failures, timing, parameters."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["AgentAnalytics", "ToolMetrics"]

_RULE = "=" * 60
_CSV_COLUMNS = (
    "tool_name",
    "total_calls",
    "successful_calls",
    "failed_calls",
    "success_rate",
    "avg_duration",
    "total_duration",
    "total_cost",
)


@dataclass
class ToolMetrics:
    """Aggregated metrics of one tool. Rates are percentages (0-100); durations are seconds."""

    name: str
    total_calls: int = 0
    successful_calls: int = 0
    failed_calls: int = 0
    total_duration: float = 0.0
    total_cost: float = 0.0
    total_chunks: int = 0
    streaming_calls: int = 0
    parameter_usage: dict[str, dict[Any, int]] = field(default_factory=dict)

    @property
    def success_rate(self) -> float:
        return self.successful_calls / self.total_calls * 100.0 if self.total_calls else 0.0

    @property
    def failure_rate(self) -> float:
        return self.failed_calls / self.total_calls * 100.0 if self.total_calls else 0.0

    @property
    def avg_duration(self) -> float:
        return self.total_duration / self.total_calls if self.total_calls else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "total_calls": self.total_calls,
            "successful_calls": self.successful_calls,
            "failed_calls": self.failed_calls,
            "success_rate": self.success_rate,
            "failure_rate": self.failure_rate,
            "avg_duration": self.avg_duration,
            "total_duration": self.total_duration,
            "total_cost": self.total_cost,
            "total_chunks": self.total_chunks,
            "streaming_calls": self.streaming_calls,
            "parameter_usage": {
                name: {_hashable_label(value): count for value, count in counts.items()}
                for name, counts in self.parameter_usage.items()
            },
        }


def _hashable(value: Any) -> Any:
    """Parameter values become dict keys; unhashable ones are keyed by their JSON text."""
    try:
        hash(value)
    except TypeError:
        return json.dumps(value, sort_keys=True, default=str)
    return value


def _hashable_label(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


class AgentAnalytics:
    """Collects :class:`ToolMetrics` for every tool call the agent makes (thread-safe)."""

    def __init__(self) -> None:
        self._metrics: dict[str, ToolMetrics] = {}
        self._lock = threading.Lock()

    def record_tool_call(
        self,
        tool_name: str,
        success: bool,
        duration: float,
        params: dict[str, Any] | None = None,
        cost: float = 0.0,
        chunk_count: int = 0,
    ) -> None:
        with self._lock:
            metrics = self._metrics.get(tool_name)
            if metrics is None:
                metrics = self._metrics[tool_name] = ToolMetrics(name=tool_name)
            metrics.total_calls += 1
            if success:
                metrics.successful_calls += 1
            else:
                metrics.failed_calls += 1
            metrics.total_duration += duration
            metrics.total_cost += cost
            if chunk_count:
                metrics.total_chunks += chunk_count
                metrics.streaming_calls += 1
            for name, value in (params or {}).items():
                counts = metrics.parameter_usage.setdefault(name, {})
                key = _hashable(value)
                counts[key] = counts.get(key, 0) + 1

    def get_metrics(self, tool_name: str) -> ToolMetrics | None:
        """Metrics for ``tool_name``, or ``None`` when no call of it was recorded.

        ``None`` rather than a row of zeros, which would read as "0% success".
        """
        with self._lock:
            return self._metrics.get(tool_name)

    def get_all_metrics(self) -> dict[str, ToolMetrics]:
        with self._lock:
            return dict(self._metrics)

    def reset(self) -> None:
        with self._lock:
            self._metrics.clear()

    def summary(self) -> str:
        """The documented text report; with no calls yet it says so."""
        lines = [_RULE, "Tool Usage Analytics", _RULE]
        everything = self.get_all_metrics()
        if not everything:
            lines += ["", "No tool calls recorded yet."]
        for metrics in everything.values():
            lines += ["", f"{metrics.name}:", f"  Calls: {metrics.total_calls}"]
            lines.append(
                f"  Success rate: {metrics.success_rate:.1f}% "
                f"({metrics.successful_calls}/{metrics.total_calls})"
            )
            if metrics.failed_calls:
                lines.append(f"  Failures: {metrics.failed_calls}")
            lines.append(f"  Avg duration: {metrics.avg_duration:.3f}s")
            lines.append(f"  Total duration: {metrics.total_duration:.3f}s")
            if metrics.total_cost:
                lines.append(f"  Total cost: ${metrics.total_cost:.6f}")
            if metrics.parameter_usage:
                lines.append("  Common parameters:")
                for name, counts in metrics.parameter_usage.items():
                    value, count = max(counts.items(), key=lambda item: item[1])
                    shown = f'"{value}"' if isinstance(value, str) else str(value)
                    lines.append(f"    {name}: {shown} ({count}x, {len(counts)} unique)")
        lines += ["", _RULE]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """``{"tools": {name: metrics}, "summary": totals}`` in plain JSON values (what ``to_json`` writes)."""
        tools = {name: m.to_dict() for name, m in self.get_all_metrics().items()}
        calls = sum(m["total_calls"] for m in tools.values())
        failures = sum(m["failed_calls"] for m in tools.values())
        summary = {
            "total_tools": len(tools),
            "total_calls": calls,
            "failed_calls": failures,
            "success_rate": (calls - failures) / calls * 100.0 if calls else 0.0,
            "total_duration": sum(m["total_duration"] for m in tools.values()),
            "total_cost": sum(m["total_cost"] for m in tools.values()),
        }
        return {"tools": tools, "summary": summary}

    def to_json(self, path: str | Path) -> None:
        """Write :meth:`to_dict` as JSON; missing parent folders are created."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(self.to_dict(), indent=2))

    def to_csv(self, path: str | Path) -> None:
        """One row per tool with the documented columns; missing parent folders are created."""
        import csv

        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(_CSV_COLUMNS)
            for m in self.get_all_metrics().values():
                writer.writerow(
                    [
                        m.name,
                        m.total_calls,
                        m.successful_calls,
                        m.failed_calls,
                        f"{m.success_rate:.2f}",
                        f"{m.avg_duration:.6f}",
                        f"{m.total_duration:.6f}",
                        f"{m.total_cost:.6f}",
                    ]
                )

    def __repr__(self) -> str:
        return f"AgentAnalytics(tools={sorted(self._metrics)})"
