"""``SnapshotStore``: record what each case answered, and notice when an answer changes.

Where a baseline remembers verdicts, a snapshot remembers outputs: the answer
text and the tools called, per case, in ``<dir>/<suite name>.snap.json``. The
first run records; a later run whose output differs fails that case with a
unified diff; ``update_snapshots=True`` accepts the new outputs (and drops the
snapshots of cases that are gone). Skipped and errored cases keep their
snapshot. The file is rewritten atomically under an inter-process lock, so two
suites recording at once lose nothing and an interrupted write keeps the old file.

The file is ``{"snapshot_format": 1, "cases": {key: entry}}``; a file of the
layout before it carried a format (the cases alone) still loads, and a file of
a newer format is refused (:class:`~selectools.evals.EvalError`) and never
overwritten.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._storage import atomic_write_text, file_lock
from ..stability import beta
from .case import CaseResult, CaseVerdict, EvalError, EvalFailure
from .report import EvalReport

__all__ = ["SnapshotResult", "SnapshotStore"]

#: the evaluator name a changed output fails with
SNAPSHOT = "snapshot"
#: the file format this version writes (and the newest it reads)
SNAPSHOT_FORMAT = 1
_FORMAT_KEY = "snapshot_format"


def snapshot_keys(results: Iterable[CaseResult]) -> list[str]:
    """One key per case: its name, else its input; a repeat gets ``#2``, ``#3``, ..."""
    seen: dict[str, int] = {}
    keys = []
    for result in results:
        base = result.case.name or result.case.input
        seen[base] = seen.get(base, 0) + 1
        keys.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return keys


def _entry(result: CaseResult) -> dict[str, Any]:
    return {"input": result.case.input, "output": result.output, "tools": list(result.tool_calls)}


def _text(entry: dict[str, Any]) -> list[str]:
    lines = str(entry.get("output", "")).split("\n")
    tools = entry.get("tools") or []
    return [*lines, f"tools: {', '.join(map(str, tools))}" if tools else "tools: (none)"]


def _diff(before: dict[str, Any], after: dict[str, Any]) -> str:
    return "\n".join(
        difflib.unified_diff(_text(before), _text(after), "snapshot", "this run", lineterm="")
    )


def _recorded(result: CaseResult) -> bool:
    return result.verdict not in (CaseVerdict.SKIP, CaseVerdict.ERROR)


@beta
@dataclass
class SnapshotResult:
    """How a run's outputs compare with the recorded ones."""

    path: Path
    new: list[str] = field(default_factory=list)  #: cases recorded for the first time
    changed: list[str] = field(default_factory=list)  #: outputs that differ (not accepted)
    updated: list[str] = field(
        default_factory=list
    )  #: changed outputs accepted as the new snapshot
    removed: list[str] = field(default_factory=list)  #: snapshots of cases no longer in the run
    unchanged: int = 0
    diffs: dict[str, str] = field(default_factory=dict)  #: case key -> unified diff
    previous: dict[str, dict[str, Any]] = field(
        default_factory=dict, repr=False
    )  #: key -> old entry

    @property
    def ok(self) -> bool:
        """No output changed (or every change was accepted)."""
        return not self.changed

    def summary(self) -> str:
        head = (
            f"Snapshots ({self.path}): {self.unchanged} unchanged, {len(self.new)} new, "
            f"{len(self.changed)} changed, {len(self.updated)} updated, {len(self.removed)} removed"
        )
        lines = [head]
        for key in self.changed:
            lines.append(f"  ✗ {key} changed (update_snapshots=True accepts it)")
            lines += [f"    {line}" for line in self.diffs[key].split("\n")]
        return "\n".join(lines)


@beta
class SnapshotStore:
    """Recorded outputs in a folder, one ``<suite>.snap.json`` per suite name."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def __repr__(self) -> str:
        return f"SnapshotStore({str(self.directory)!r})"

    def path(self, name: str) -> Path:
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "eval"
        return self.directory / f"{safe}.snap.json"

    def load(self, name: str = "eval") -> dict[str, dict[str, Any]]:
        """The recorded outputs of suite ``name`` by case key (empty when none yet)."""
        target = self.path(name)
        if not target.exists():
            return {}
        try:
            data = json.loads(target.read_text(encoding="utf-8"))
            if isinstance(data, dict) and not isinstance(data.get(_FORMAT_KEY, {}), dict):
                found = data[_FORMAT_KEY]
                if not isinstance(found, int) or found > SNAPSHOT_FORMAT:
                    raise EvalError(
                        f"{target} was written in snapshot format {found!r} by a newer "
                        f"selectools; this version reads format {SNAPSHOT_FORMAT}. Upgrade "
                        "selectools to use it; it was left untouched."
                    )
                data = data.get("cases")
            if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
                raise ValueError("expected an object of case -> {output, tools}")
        except (ValueError, UnicodeDecodeError) as exc:
            raise EvalError(
                f"{target}: not a readable snapshot file ({exc}); fix it, or delete it to "
                "record every output again"
            ) from None
        return data

    def compare(self, report: EvalReport, name: str | None = None) -> SnapshotResult:
        """Compare ``report``'s outputs with the recorded ones (writes nothing)."""
        suite = name or report.name
        return self._compare(self.load(suite), report, self.path(suite), update=False)[0]

    def save(self, report: EvalReport, name: str | None = None) -> Path:
        """Record ``report``'s outputs (skipped and errored cases keep theirs; cases gone are dropped)."""
        self.check(report, name, update=True)
        return self.path(name or report.name)

    def check(
        self, report: EvalReport, name: str | None = None, *, update: bool = False
    ) -> SnapshotResult:
        """What snapshot mode does after a run: record new outputs, fail changed ones.

        Each changed case becomes a ``FAIL`` with a ``snapshot`` failure holding
        the diff, unless ``update`` accepts it. The file is written (atomically,
        under a lock) only when something was recorded, accepted or dropped.
        """
        suite = name or report.name
        target = self.path(suite)
        self.directory.mkdir(parents=True, exist_ok=True)
        with file_lock(str(target) + ".lock"):
            stored = self.load(suite)
            outcome, merged = self._compare(stored, report, target, update=update)
            if outcome.new or outcome.updated or outcome.removed:
                document = {_FORMAT_KEY: SNAPSHOT_FORMAT, "cases": merged}
                atomic_write_text(target, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        if not update:
            self._fail_changed(report, outcome)
        return outcome

    @staticmethod
    def _compare(
        stored: dict[str, dict[str, Any]], report: EvalReport, path: Path, *, update: bool
    ) -> tuple[SnapshotResult, dict[str, dict[str, Any]]]:
        outcome = SnapshotResult(path)
        merged = dict(stored)
        keys = snapshot_keys(report.results)
        for key, result in zip(keys, report.results, strict=True):
            if not _recorded(result):
                continue
            entry = _entry(result)
            before = stored.get(key)
            if before is None:
                outcome.new.append(key)
                merged[key] = entry
            elif _text(before) == _text(entry):
                outcome.unchanged += 1
            else:
                outcome.diffs[key] = _diff(before, entry)
                outcome.previous[key] = before
                if update:
                    outcome.updated.append(key)
                    merged[key] = entry
                else:
                    outcome.changed.append(key)
        if update:
            present = set(keys)
            outcome.removed = [k for k in stored if k not in present]
            for key in outcome.removed:
                del merged[key]
        return outcome, merged

    @staticmethod
    def _fail_changed(report: EvalReport, outcome: SnapshotResult) -> None:
        changed = set(outcome.changed)
        for key, result in zip(snapshot_keys(report.results), report.results, strict=True):
            if key not in changed:
                continue
            result.failures.append(
                EvalFailure(
                    SNAPSHOT,
                    f"output changed since its snapshot in {outcome.path} "
                    f"(run with update_snapshots=True to accept it):\n{outcome.diffs[key]}",
                    expected=outcome.previous[key].get("output"),
                    actual=result.output,
                )
            )
            result.verdict = CaseVerdict.FAIL
