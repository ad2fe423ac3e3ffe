"""``EvalRuns``: many saved eval reports, to explore and compare runs over time.

One report is a DataFrame (``report.to_dataframe()``); exploration needs many:
``EvalRuns.load(...)`` reads any number of reports (JSON files, a directory of
runs, a :class:`~.regression.BaselineStore`, reports in memory), oldest first,
and gives tidy frames with the run's model, metadata (prompt version, tags) and
cost as columns: one row per run, per case, per evaluator score and per
message. The rich view is the suite's history (accuracy, cost and latency per
run, regressions marked); :meth:`EvalRuns.diff` compares two runs case by case,
each changed case linked to both runs' traces. :func:`save_run` writes a report
into a runs directory under a unique, time-ordered name.

The frames and charts are views (``selectools._view.eval_runs``), reached
through the display port; pandas and plotly are imported only when asked for.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .._display import RichDisplay, render
from .._storage import atomic_write_text
from ..stability import beta
from .case import CaseResult, EvalError
from .regression import BaselineStore, RegressionResult, case_key, compare_reports
from .report import EvalReport

if TYPE_CHECKING:
    import pandas
    import plotly.graph_objects

    from ..observe.trace_store import TraceStore

__all__ = ["CaseChange", "EvalRun", "EvalRuns", "RunDiff", "save_run"]

#: files bigger than this are not eval reports (and are not read into memory)
MAX_REPORT_BYTES = 64 * 1024 * 1024

Source = str | os.PathLike[str] | EvalReport | BaselineStore


@dataclass(frozen=True)
class EvalRun:
    """One run: its id (unique within the collection), where it came from, its report."""

    run_id: str
    source: str
    report: EvalReport

    @property
    def started_at(self) -> float:
        return self.report.started_at


@dataclass(frozen=True)
class CaseChange:
    """A case whose verdict or output differs between two runs."""

    case: str
    before: CaseResult | None
    after: CaseResult | None

    @property
    def kind(self) -> str:
        """``regressed``, ``improved``, ``changed`` (same verdict, other output), ``new``, ``removed``."""
        if self.before is None:
            return "new"
        if self.after is None:
            return "removed"
        if self.before.passed and not self.after.passed:
            return "regressed"
        if self.after.passed and not self.before.passed:
            return "improved"
        return "changed"


@beta
class RunDiff(RichDisplay):
    """Two runs compared case by case (only the cases that changed are listed)."""

    def __init__(
        self,
        before: EvalRun,
        after: EvalRun,
        changes: list[CaseChange],
        regression: RegressionResult,
        traces: TraceStore | None = None,
    ) -> None:
        self.before = before
        self.after = after
        self.changes = changes
        self.regression = regression
        self.traces = traces

    def __repr__(self) -> str:
        kinds: dict[str, int] = {}
        for change in self.changes:
            kinds[change.kind] = kinds.get(change.kind, 0) + 1
        counted = ", ".join(f"{n} {k}" for k, n in kinds.items()) or "no changes"
        return f"RunDiff({self.before.run_id!r} → {self.after.run_id!r}: {counted})"

    def to_dataframe(self) -> pandas.DataFrame:
        """One row per changed case: verdicts, outputs and trace ids of both runs."""
        frame: pandas.DataFrame = render(self, "dataframe")
        return frame


def _changes(before: EvalReport, after: EvalReport) -> list[CaseChange]:
    old = {case_key(r): r for r in before.results}
    new = {case_key(r): r for r in after.results}
    changes = []
    for key in [*new, *(k for k in old if k not in new)]:
        was, now = old.get(key), new.get(key)
        if (
            was is not None
            and now is not None
            and (was.verdict, was.output) == (now.verdict, now.output)
        ):
            continue
        changes.append(CaseChange(key, was, now))
    return changes


def _read(path: Path) -> EvalReport:
    try:
        if path.stat().st_size > MAX_REPORT_BYTES:
            raise EvalError(
                f"{path}: {path.stat().st_size:,} bytes is too big for an eval report "
                f"(limit {MAX_REPORT_BYTES:,}); is it one?"
            )
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise ValueError("not a JSON object with a 'results' list")
        return EvalReport.from_dict(data)
    except EvalError:
        raise
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise EvalError(
            f"{path}: not a readable eval report ({type(exc).__name__}: {exc}); save reports "
            "with report.to_json(path) or save_run(report, directory)"
        ) from None


def _expand(source: Source) -> Iterator[tuple[str, EvalReport]]:
    if isinstance(source, EvalReport):
        yield f"<memory:{source.name}>", source
        return
    if isinstance(source, BaselineStore):
        source = source.directory
    path = Path(source)
    if path.is_dir():
        files = sorted(p for p in path.glob("*.json") if p.is_file())
        for file in files:
            yield str(file), _read(file)
        return
    if not path.exists():
        raise EvalError(f"{path}: no such file or directory of eval reports")
    yield str(path), _read(path)


def _unique_ids(sources: Sequence[tuple[str, EvalReport]]) -> list[str]:
    """Short ids: the file name without ``.json`` (or the report's name), numbered if repeated."""
    bases = [
        Path(source).stem if not source.startswith("<memory:") else report.name
        for source, report in sources
    ]
    totals = Counter(bases)
    seen: Counter[str] = Counter()
    ids = []
    for base in bases:
        seen[base] += 1
        ids.append(base if totals[base] == 1 else f"{base}#{seen[base]}")
    return ids


@beta
class EvalRuns(RichDisplay):
    """Eval runs, oldest first, with tidy DataFrames over all of them."""

    def __init__(self, runs: Iterable[EvalRun]) -> None:
        self.runs: list[EvalRun] = sorted(runs, key=lambda run: run.started_at)

    @classmethod
    def load(cls, *sources: Source) -> EvalRuns:
        """Runs from report JSON files, directories of them, baseline stores or reports."""
        if not sources:
            raise EvalError(
                "EvalRuns.load() needs at least one source: a report JSON file, a directory "
                "of them, a BaselineStore or an EvalReport"
            )
        found = [item for source in sources for item in _expand(source)]
        ids = _unique_ids(found)
        return cls(
            EvalRun(run_id, source, report)
            for run_id, (source, report) in zip(ids, found, strict=True)
        )

    def __len__(self) -> int:
        return len(self.runs)

    def __iter__(self) -> Iterator[EvalRun]:
        return iter(self.runs)

    def __repr__(self) -> str:
        names = sorted({run.report.name for run in self.runs})
        return f"EvalRuns(runs={len(self.runs)}, suites={names})"

    def __getitem__(self, key: int | str) -> EvalRun:
        if isinstance(key, int):
            return self.runs[key]
        for run in self.runs:
            if run.run_id == key:
                return run
        known = ", ".join(run.run_id for run in self.runs)
        raise KeyError(f"no run {key!r}; runs: {known}")

    def suite(self, name: str) -> EvalRuns:
        """The runs of one suite (by report name)."""
        return EvalRuns(run for run in self.runs if run.report.name == name)

    def regressions(self) -> list[tuple[EvalRun, RegressionResult]]:
        """Each run compared with the previous run of the same suite."""
        last: dict[str, EvalReport] = {}
        compared = []
        for run in self.runs:
            previous = last.get(run.report.name)
            compared.append((run, compare_reports(previous, run.report)))
            last[run.report.name] = run.report
        return compared

    def diff(
        self, before: int | str, after: int | str, *, traces: TraceStore | None = None
    ) -> RunDiff:
        """The cases that changed from run ``before`` to run ``after`` (index or run id).

        ``traces`` (a TraceStore the runs saved their traces in) lets the view
        show each changed case's trace from both runs, not only its id.
        """
        old, new = self[before], self[after]
        return RunDiff(
            old,
            new,
            _changes(old.report, new.report),
            compare_reports(old.report, new.report),
            traces,
        )

    # -- frames and charts (views, through the display port) ---------------------------
    def runs_frame(self) -> pandas.DataFrame:
        """One row per run: suite, model, metadata columns, accuracy, counts, cost, latency."""
        frame: pandas.DataFrame = render(self, "runs_frame")
        return frame

    def cases_frame(self) -> pandas.DataFrame:
        """One row per case per run, with the run's model and metadata columns."""
        frame: pandas.DataFrame = render(self, "cases_frame")
        return frame

    def scores_frame(self) -> pandas.DataFrame:
        """One row per evaluator per case per run: passed, and the score a judge gave."""
        frame: pandas.DataFrame = render(self, "scores_frame")
        return frame

    def messages_frame(self) -> pandas.DataFrame:
        """One row per message per case per run (from reports saved with their messages)."""
        frame: pandas.DataFrame = render(self, "messages_frame")
        return frame

    def history_chart(self) -> plotly.graph_objects.Figure:
        """Accuracy, cost and latency over the runs, regressions marked."""
        return render(self, "chart")


def save_run(report: EvalReport, directory: str | os.PathLike[str]) -> Path:
    """Write ``report`` into ``directory`` as ``<suite>-<UTC time>.json`` (atomically)."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", report.name).strip("._") or "eval"
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(report.started_at or time.time()))
    for number in range(1, 10_000):
        target = folder / (
            f"{safe}-{stamp}.json" if number == 1 else f"{safe}-{stamp}-{number}.json"
        )
        try:  # claim the name (another process may be saving a run of the same second)
            os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            continue
        atomic_write_text(target, report.to_json())
        return target
    raise EvalError(f"{folder}: no free run file name for {safe}-{stamp}")
