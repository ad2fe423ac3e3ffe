"""What the GitHub Action reports: step outputs and the pull-request comment.

``python -m selectools.evals ... --github-output "$GITHUB_OUTPUT" --comment FILE``
(which ``.github/actions/eval/action.yml`` runs) writes the numbers as step
outputs and the comment as Markdown. Case names, inputs and failure messages
come from datasets and model output, so the comment shows them only inside
code spans (no HTML, no links, no @mentions, no broken table rows), and a
multi-line output is fenced with a random delimiter it cannot contain.
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

from .case import CaseVerdict
from .regression import RegressionResult
from .report import EvalReport

__all__ = ["COMMENT_MARKER", "action_outputs", "comment_markdown", "write_github_output"]

#: the hidden first line that lets the action find and update its own comment
COMMENT_MARKER = "<!-- selectools-eval-report -->"
_OUTPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def _code(text: object, limit: int = 160) -> str:
    """``text`` as a one-line Markdown code span that is safe inside a table cell."""
    flat = " ".join(str(text).split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    if not flat:
        return "(empty)"
    fence = "`" * (max((len(run) for run in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat.replace('|', chr(92) + '|')}{pad}{fence}"


def _baseline_line(regression: RegressionResult | None) -> str:
    if regression is None:
        return "**Baseline:** not compared."
    if not regression.has_baseline:
        return "**Baseline:** none yet."
    change = (
        f"{regression.baseline_accuracy:.1%} → {regression.current_accuracy:.1%} "
        f"({regression.accuracy_delta:+.2%})"
    )
    if not regression.is_regression:
        return f"**Baseline:** {change}, no regression."
    cases = ", ".join(_code(name, 60) for name in regression.regressions[:20])
    more = len(regression.regressions) - 20
    tail = f" and {more} more" if more > 0 else ""
    return f"**Baseline:** {change}, **regression**" + (f": {cases}{tail}." if cases else ".")


def comment_markdown(
    report: EvalReport, regression: RegressionResult | None = None, *, max_failures: int = 15
) -> str:
    """The pull-request comment: totals, latency, cost, the baseline verdict, the failures."""
    regressed = regression is not None and regression.is_regression
    failing = [r for r in report.results if r.verdict in (CaseVerdict.FAIL, CaseVerdict.ERROR)]
    status = "🔴" if regressed else ("🟡" if failing else "🟢")
    lines = [
        COMMENT_MARKER,
        f"## {status} Eval {_code(report.name, 80)}: {report.accuracy:.1%} accuracy",
        "",
        "| Accuracy | Pass | Fail | Error | Skip | Latency p50 | Latency p95 | Cost |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {report.accuracy:.1%} | {report.pass_count} | {report.fail_count} "
        f"| {report.error_count} | {report.skip_count} | {report.latency_p50:.0f} ms "
        f"| {report.latency_p95:.0f} ms | ${report.total_cost:.4f} |",
        "",
        _baseline_line(regression),
    ]
    if report.snapshots is not None and not report.snapshots.ok:
        changed = ", ".join(_code(k, 60) for k in report.snapshots.changed[:20])
        lines += ["", f"**Snapshots:** output changed for {changed}."]
    if failing:
        lines += [
            "",
            f"### Failures ({len(failing)})",
            "",
            "| Case | Verdict | Why |",
            "|---|---|---|",
        ]
        for result in failing[:max_failures]:
            reasons = [f"{f.evaluator}: {f.message}" for f in result.failures]
            if result.error and not reasons:
                reasons = [result.error]
            why = "<br>".join(_code(reason) for reason in reasons[:3]) or "—"
            lines.append(f"| {_code(result.case.label, 80)} | {result.verdict.value} | {why} |")
        if len(failing) > max_failures:
            lines.append(f"\n…and {len(failing) - max_failures} more in the HTML report.")
    return "\n".join(lines) + "\n"


def action_outputs(
    report: EvalReport, regression: RegressionResult | None = None, comment: str | None = None
) -> dict[str, str]:
    """The step outputs the action exposes: ``accuracy`` (0-1), counts, ``regression``, the comment."""
    outputs = {
        "accuracy": f"{report.accuracy:.4f}",
        "pass-count": str(report.pass_count),
        "fail-count": str(report.fail_count),
        "error-count": str(report.error_count),
        "total-cases": str(report.total_cases),
        "regression": "true" if regression is not None and regression.is_regression else "false",
        "snapshot-changes": str(len(report.snapshots.changed)) if report.snapshots else "0",
    }
    outputs["comment-body"] = (
        comment if comment is not None else comment_markdown(report, regression)
    )
    return outputs


def write_github_output(path: str | os.PathLike[str], outputs: dict[str, str]) -> None:
    """Append ``outputs`` to a ``$GITHUB_OUTPUT`` file (``name=value``, or a fenced block)."""
    chunks = []
    for name, value in outputs.items():
        if not _OUTPUT_NAME.fullmatch(name):
            raise ValueError(f"{name!r} is not a valid step output name")
        if "\n" not in value and "\r" not in value:
            chunks.append(f"{name}={value}\n")
            continue
        delimiter = f"selectools_{secrets.token_hex(16)}"
        while delimiter in value:  # pragma: no cover - 128 random bits
            delimiter = f"selectools_{secrets.token_hex(16)}"
        chunks.append(f"{name}<<{delimiter}\n{value.rstrip(chr(10))}\n{delimiter}\n")
    with Path(path).open("a", encoding="utf-8") as handle:
        handle.write("".join(chunks))
