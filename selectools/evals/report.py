"""``EvalReport``: the case results of one run and the numbers derived from them.

Everything is computed from the list of :class:`CaseResult`, so a filtered
report (``filter_by_tag``) has the same API, and a report read back from JSON
(``EvalReport.from_json``) compares equal to the one written.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._display import RichDisplay, render
from .._storage import atomic_write_text
from ..stability import stable
from .case import CaseResult, CaseVerdict

if TYPE_CHECKING:
    from .snapshot import SnapshotResult

__all__ = ["EvalReport"]


def _percentile(values: list[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default method), 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = math.floor(rank)
    high = math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


@stable
class EvalReport(RichDisplay):
    """Aggregated results of an eval run: accuracy, counts, cost, tokens, latency, exports."""

    def __init__(
        self,
        results: Iterable[CaseResult],
        *,
        name: str = "eval",
        started_at: float = 0.0,
        duration_s: float = 0.0,
        model: str = "",
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        self.results: list[CaseResult] = list(results)
        self.name = name
        self.started_at = started_at
        self.duration_s = duration_s
        self.model = model
        #: labels of the run for comparing runs later (``prompt_version``, ``tags``, ...)
        self.metadata: dict[str, Any] = dict(metadata or {})
        #: what snapshot mode found (set by ``EvalSuite(snapshots=...)``; not exported)
        self.snapshots: SnapshotResult | None = None

    def __repr__(self) -> str:
        return (
            f"EvalReport(name={self.name!r}, cases={len(self.results)}, "
            f"accuracy={self.accuracy:.2%}, pass={self.pass_count}, fail={self.fail_count}, "
            f"error={self.error_count})"
        )

    def __len__(self) -> int:
        return len(self.results)

    # -- counts and metrics --------------------------------------------------------
    def _count(self, verdict: CaseVerdict) -> int:
        return sum(1 for r in self.results if r.verdict is verdict)

    @property
    def pass_count(self) -> int:
        return self._count(CaseVerdict.PASS)

    @property
    def fail_count(self) -> int:
        return self._count(CaseVerdict.FAIL)

    @property
    def error_count(self) -> int:
        return self._count(CaseVerdict.ERROR)

    @property
    def skip_count(self) -> int:
        return self._count(CaseVerdict.SKIP)

    @property
    def total_cases(self) -> int:
        return len(self.results)

    @property
    def accuracy(self) -> float:
        """Weighted share of passing cases among the cases that ran (skips left out)."""
        graded = [r for r in self.results if r.verdict is not CaseVerdict.SKIP]
        total = sum(r.case.weight for r in graded)
        if total == 0:
            return 0.0
        return sum(r.case.weight for r in graded if r.verdict is CaseVerdict.PASS) / total

    @property
    def total_cost(self) -> float:
        return sum(r.cost_usd for r in self.results)

    @property
    def total_tokens(self) -> int:
        return sum(r.tokens for r in self.results)

    @property
    def cost_per_case(self) -> float:
        ran = [r for r in self.results if r.verdict is not CaseVerdict.SKIP]
        return self.total_cost / len(ran) if ran else 0.0

    def _latencies(self) -> list[float]:
        return [r.latency_ms for r in self.results if r.verdict is not CaseVerdict.SKIP]

    @property
    def latency_p50(self) -> float:
        """Median case latency in milliseconds."""
        return _percentile(self._latencies(), 50)

    @property
    def latency_p95(self) -> float:
        return _percentile(self._latencies(), 95)

    @property
    def latency_p99(self) -> float:
        return _percentile(self._latencies(), 99)

    # -- slicing -------------------------------------------------------------------
    def _subset(self, results: Iterable[CaseResult], suffix: str) -> EvalReport:
        return EvalReport(
            results,
            name=f"{self.name} [{suffix}]",
            started_at=self.started_at,
            duration_s=self.duration_s,
            model=self.model,
            metadata=self.metadata,
        )

    def filter_by_tag(self, tag: str) -> EvalReport:
        """A report of the cases tagged ``tag``."""
        return self._subset((r for r in self.results if tag in r.case.tags), f"tag={tag}")

    def filter_by_verdict(self, verdict: CaseVerdict | str) -> EvalReport:
        """A report of the cases with this verdict (``CaseVerdict.FAIL`` or ``"fail"``)."""
        wanted = CaseVerdict(verdict)
        return self._subset((r for r in self.results if r.verdict is wanted), wanted.value)

    def failures_by_evaluator(self) -> dict[str, int]:
        """How many failures each evaluator reported, most first: ``{"tool_use": 3, ...}``."""
        counts = Counter(f.evaluator for r in self.results for f in r.failures)
        return dict(counts.most_common())

    def tags(self) -> list[str]:
        """Every tag used, in first-seen order."""
        seen: dict[str, None] = {}
        for r in self.results:
            for tag in r.case.tags:
                seen.setdefault(tag, None)
        return list(seen)

    def evaluator_names(self) -> list[str]:
        """Every evaluator that reported a failure or a score, in first-seen order."""
        seen: dict[str, None] = {}
        for r in self.results:
            for f in r.failures:
                seen.setdefault(f.evaluator, None)
            for key in r.scores:
                seen.setdefault(key, None)
        return list(seen)

    # -- text ----------------------------------------------------------------------
    def summary(self) -> str:
        """A human-readable summary: totals, latency, cost and each non-passing case."""
        lines = [
            f"Eval: {self.name} ({self.total_cases} cases)",
            f"Accuracy: {self.accuracy:.1%}  pass {self.pass_count} · fail {self.fail_count}"
            f" · error {self.error_count} · skip {self.skip_count}",
            f"Latency: p50 {self.latency_p50:.0f} ms · p95 {self.latency_p95:.0f} ms"
            f" · p99 {self.latency_p99:.0f} ms",
            f"Cost: ${self.total_cost:.6f} (${self.cost_per_case:.6f}/case) · "
            f"{self.total_tokens} tokens",
        ]
        failing = [r for r in self.results if r.verdict in (CaseVerdict.FAIL, CaseVerdict.ERROR)]
        if failing:
            lines.append("Failures:")
            for r in failing:
                lines.append(f"  ✗ {r.case.label} [{r.verdict.value}]")
                for f in r.failures:
                    lines.append(f"      {f.evaluator}: {f.message}")
                if r.error and not r.failures:
                    lines.append(f"      error: {r.error}")
        if self.snapshots is not None:
            lines.append(self.snapshots.summary().split("\n")[0])
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    # -- exports -------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        labels = {"metadata": dict(self.metadata)} if self.metadata else {}
        return {
            "name": self.name,
            "model": self.model,
            **labels,
            "started_at": self.started_at,
            "duration_s": self.duration_s,
            "metrics": {
                "accuracy": self.accuracy,
                "total_cases": self.total_cases,
                "pass_count": self.pass_count,
                "fail_count": self.fail_count,
                "error_count": self.error_count,
                "skip_count": self.skip_count,
                "total_cost": self.total_cost,
                "total_tokens": self.total_tokens,
                "cost_per_case": self.cost_per_case,
                "latency_p50": self.latency_p50,
                "latency_p95": self.latency_p95,
                "latency_p99": self.latency_p99,
                "failures_by_evaluator": self.failures_by_evaluator(),
            },
            "results": [r.to_dict() for r in self.results],
        }

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """The report as JSON; written atomically to ``path`` when given."""
        text = json.dumps(self.to_dict(), indent=2, ensure_ascii=False)
        if path is not None:
            atomic_write_text(path, text)
        return text

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvalReport:
        return cls(
            (CaseResult.from_dict(r) for r in data.get("results", [])),
            name=data.get("name", "eval"),
            started_at=float(data.get("started_at", 0.0)),
            duration_s=float(data.get("duration_s", 0.0)),
            model=data.get("model", ""),
            metadata=data.get("metadata") or None,
        )

    @classmethod
    def from_json(cls, path_or_text: str | os.PathLike[str]) -> EvalReport:
        """Read a report written by :meth:`to_json` (a path or the JSON text)."""
        text = str(path_or_text)
        if not text.lstrip().startswith("{"):
            text = Path(path_or_text).read_text(encoding="utf-8")
        return cls.from_dict(json.loads(text))

    def to_junit_xml(self, path: str | os.PathLike[str] | None = None) -> str:
        """JUnit XML (one testcase per case) for CI; written atomically to ``path`` when given."""
        from .junit import report_to_junit

        text = report_to_junit(self)
        if path is not None:
            atomic_write_text(path, text)
        return text

    def to_html(self, path: str | os.PathLike[str] | None = None) -> str:
        """A self-contained interactive HTML page (no network); written to ``path`` when given."""
        from .html import report_to_html

        text = report_to_html(self)
        if path is not None:
            atomic_write_text(path, text)
        return text

    def evaluator_frame(self) -> Any:
        """Case x evaluator pass/fail as a pandas DataFrame (needs pandas)."""
        return render(self, "evaluator_frame")

    def chart(self, kind: str = "accuracy_by_tag") -> Any:
        """A plotly figure: ``"accuracy_by_tag"``, ``"latency"`` or ``"cost"`` (needs plotly)."""
        return render(self, "chart", kind)

    def to_dataframe(self) -> Any:
        """One pandas row per case (needs pandas): input, verdict, failing evaluators, numbers, tags."""
        return render(self, "dataframe")
