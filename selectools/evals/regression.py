"""``BaselineStore``: keep the last good report per suite and compare new runs with it.

A baseline is the report's JSON in ``<dir>/<suite name>.json`` plus its
format version, written atomically under the folder's lock file (see
:mod:`selectools._storage`), so an interrupted save leaves the previous
baseline intact, and a baseline written by a newer selectools is refused,
never read or overwritten. A run
regresses when its accuracy drops by more than ``tolerance`` or any case that
passed in the baseline no longer passes. Cases are matched by name, else input.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .._display import RichDisplay
from .._storage import atomic_write_text, file_lock
from .case import CaseResult, CaseVerdict, EvalError
from .report import EvalReport

__all__ = ["BaselineStore", "RegressionResult"]

#: the baseline format this version writes (and the newest it reads)
FORMAT_VERSION = 1
_FORMAT_KEY = "baseline_format"


def case_key(result: CaseResult) -> str:
    return result.case.name or result.case.input


@dataclass
class RegressionResult(RichDisplay):
    """How a run compares with its baseline."""

    baseline_accuracy: float | None
    current_accuracy: float
    accuracy_delta: float
    regressions: list[str] = field(default_factory=list)  #: cases that passed and now do not
    improvements: list[str] = field(default_factory=list)  #: cases that did not pass and now do
    new_cases: list[str] = field(default_factory=list)
    removed_cases: list[str] = field(default_factory=list)
    tolerance: float = 0.0

    @property
    def has_baseline(self) -> bool:
        return self.baseline_accuracy is not None

    @property
    def is_regression(self) -> bool:
        return bool(self.regressions) or self.accuracy_delta < -self.tolerance

    def summary(self) -> str:
        if not self.has_baseline:
            return f"No baseline yet (accuracy {self.current_accuracy:.1%})."
        lines = [
            f"Accuracy {self.baseline_accuracy:.1%} → {self.current_accuracy:.1%} "
            f"({self.accuracy_delta:+.2%})",
            "REGRESSION" if self.is_regression else "no regression",
        ]
        lines += [f"  ✗ {name}" for name in self.regressions]
        lines += [f"  ✓ {name}" for name in self.improvements]
        return "\n".join(lines)


def compare_reports(
    baseline: EvalReport | None, current: EvalReport, tolerance: float = 0.0
) -> RegressionResult:
    """Compare two reports case by case."""
    if baseline is None:
        return RegressionResult(None, current.accuracy, 0.0, tolerance=tolerance)
    before = {case_key(r): r.verdict for r in baseline.results}
    after = {case_key(r): r.verdict for r in current.results}
    regressions = [
        k
        for k, v in after.items()
        if before.get(k) is CaseVerdict.PASS and v is not CaseVerdict.PASS
    ]
    improvements = [
        k
        for k, v in after.items()
        if k in before and before[k] is not CaseVerdict.PASS and v is CaseVerdict.PASS
    ]
    return RegressionResult(
        baseline.accuracy,
        current.accuracy,
        current.accuracy - baseline.accuracy,
        regressions,
        improvements,
        [k for k in after if k not in before],
        [k for k in before if k not in after],
        tolerance,
    )


class BaselineStore:
    """Baselines in a folder, one JSON file per suite name."""

    def __init__(self, directory: str | os.PathLike[str], *, tolerance: float = 0.0) -> None:
        self.directory = Path(directory)
        self.tolerance = tolerance

    def __repr__(self) -> str:
        return f"BaselineStore({str(self.directory)!r})"

    def path(self, name: str) -> Path:
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "eval"
        return self.directory / f"{safe}.json"

    def load(self, name: str = "eval") -> EvalReport | None:
        """The saved baseline of suite ``name``, or None."""
        return self._read(self.path(name))

    def _read(self, target: Path) -> EvalReport | None:
        try:
            text = target.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            found = data.get(_FORMAT_KEY)
            if found is not None and (not isinstance(found, int) or found > FORMAT_VERSION):
                raise EvalError(
                    f"{target} was written in baseline format {found!r} by a newer selectools; "
                    f"this version reads format {FORMAT_VERSION}. Upgrade selectools to use it; "
                    "it was left untouched."
                )
            return EvalReport.from_dict(data)
        except EvalError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise EvalError(
                f"{target}: not a readable baseline ({exc}); it was left untouched: delete it "
                "or save a new one"
            ) from None

    def save(self, report: EvalReport, name: str | None = None) -> Path:
        """Write ``report`` as the baseline (atomically; a newer-format baseline is refused)."""
        target = self.path(name or report.name)
        text = json.dumps(
            {**report.to_dict(), _FORMAT_KEY: FORMAT_VERSION}, indent=2, ensure_ascii=False
        )
        with file_lock(self.directory / ".baselines.lock"):
            try:
                self._read(target)  # a newer format raises here, before anything is replaced
            except EvalError as exc:
                if "newer selectools" in str(exc):
                    raise
            return atomic_write_text(target, text)

    def compare(self, report: EvalReport, name: str | None = None) -> RegressionResult:
        """Compare ``report`` with the saved baseline (no baseline: nothing regressed)."""
        return compare_reports(self.load(name or report.name), report, self.tolerance)
