"""HTML views of eval results: the report, a regression comparison, a progress line.

The report view is a summary header (accuracy, counts, latency, cost, over every
case), a table with pass/fail colours, and, for every failing or erroring case
shown, a collapsible row with the failures, the agent's output and its trace.
The table is bounded (:data:`MAX_REPORT_ROWS`, :data:`MAX_REPORT_TRACES`): a
larger report shows its failing and erroring cases first, fills the rest with
passing ones, and says how many cases it leaves out. Inline styles only, as
every other view (they survive JupyterLab's sanitizer); durations are in
``st-ms`` spans so notebook tests can sanitize them. The standalone page with
every case is ``EvalReport.to_html()`` (``evals/html.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._display import Renderers, render
from . import _html as h, eval_frames
from ._components import not_shown_html

if TYPE_CHECKING:
    from ..evals.case import CaseResult
    from ..evals.regression import RegressionResult
    from ..evals.report import EvalReport

__all__ = [
    "MAX_REPORT_ROWS",
    "MAX_REPORT_TRACES",
    "RENDERERS",
    "progress_html",
    "regression_html",
    "report_html",
]

#: cases a report's table shows: a row is about 0.4 KB, 1.4 KB with its details, so
#: 10,000 cases were 29 MB of notebook output; a hundred rows stay near 150 KB, and
#: ``report.to_dataframe()`` has every case
MAX_REPORT_ROWS = 100
#: failing rows whose details embed the case's trace (one trace is 1.7 KB for a single
#: model call and up to about 100 KB for a long run); later rows say where theirs is
MAX_REPORT_TRACES = 20

_TONE = {"pass": "ok", "fail": "error", "error": "warn", "skip": "muted"}
_FAILING = ("fail", "error")
#: the same, matched against a ``CaseVerdict`` (a ``str`` enum) without reading ``.value``
_FAILING_VERDICTS = frozenset(_FAILING)


def _header(report: EvalReport) -> str:
    accuracy = report.accuracy  # each count is a pass over every case: read each once
    tone = "ok" if accuracy >= 0.8 else "warn" if accuracy >= 0.5 else "error"
    counts = " ".join(
        [
            h.badge(f"{report.pass_count} pass", "ok"),
            h.badge(f"{report.fail_count} fail", "error" if report.fail_count else "muted"),
            h.badge(f"{report.error_count} error", "warn" if report.error_count else "muted"),
        ]
        + ([h.badge(f"{report.skip_count} skip")] if report.skip_count else [])
    )
    return (
        f"<b>Eval {h.esc(report.name)}</b> · {h.badge(f'{accuracy:.1%} accuracy', tone)} "
        f"{counts} · p50 {h.duration(report.latency_p50)} · p95 {h.duration(report.latency_p95)}"
        f" · {h.esc(h.format_cost(report.total_cost))} · {h.esc(h.format_tokens(report.total_tokens))}"
    )


def _detail(index: int, result: CaseResult, with_trace: bool) -> str:
    parts = []
    for failure in result.failures:
        parts.append(
            f"{h.badge(failure.evaluator, 'error')} {h.esc(failure.message)}"
            f"<br>{h.muted(f'expected {failure.expected!r} · actual {failure.actual!r}')}"
        )
    if result.error:
        parts.append(h.pre(result.error, "warn"))
    parts.append("<b>Output</b>" + h.pre(result.output or "(no output)"))
    trace = getattr(result.result, "trace", None)
    if trace is not None and with_trace:
        parts.append(h.details(f"Trace {h.muted(result.trace_id or '')}", render(trace, "html")))
    elif trace is not None:
        where = f"report.results[{index - 1}].result.trace has it"
        parts.append(h.muted(f"trace {result.trace_id or ''} not embedded: {where}"))
    elif result.trace_id:
        parts.append(h.muted(f"trace {result.trace_id}"))
    return "<br>".join(parts)


def _row(index: int, result: CaseResult, with_trace: bool) -> str:
    verdict = result.verdict.value
    failing = ", ".join(dict.fromkeys(f.evaluator for f in result.failures))
    cells = [
        str(index),
        h.badge(verdict.upper(), _TONE[verdict]),
        h.esc(result.case.label),
        h.esc(failing),
        h.duration(result.latency_ms),
        h.esc(h.format_cost(result.cost_usd)),
        h.esc(" ".join(result.case.tags)),
    ]
    style = 'style="padding: 1px 8px;"'
    row = "".join(f"<td {style}>{c}</td>" for c in cells)
    if verdict not in _FAILING:
        return f"<tr>{row}</tr>"
    body = h.details(h.muted("details"), _detail(index, result, with_trace))
    return f"<tr>{row}</tr><tr><td></td><td colspan=6 {style}>{body}</td></tr>"


def _shown_rows(report: EvalReport) -> list[tuple[int, CaseResult]]:
    """``(number, case)`` of the rows shown: every case in order when they fit in
    :data:`MAX_REPORT_ROWS`, else the failing and erroring ones first, then passing ones.

    One pass that stops once the rows are all failing ones.
    """
    results = report.results
    if len(results) <= MAX_REPORT_ROWS:
        return list(enumerate(results, 1))
    failing: list[tuple[int, CaseResult]] = []
    others: list[tuple[int, CaseResult]] = []
    for number, result in enumerate(results, 1):
        if result.verdict in _FAILING_VERDICTS:
            failing.append((number, result))
            if len(failing) == MAX_REPORT_ROWS:
                break
        elif len(others) < MAX_REPORT_ROWS:
            others.append((number, result))
    return (failing + others)[:MAX_REPORT_ROWS]


def _not_shown(report: EvalReport, shown: list[tuple[int, CaseResult]]) -> str:
    """The line counting the cases the table leaves out, and how to get them ("" if none)."""
    hidden = len(report.results) - len(shown)
    if not hidden:
        return ""
    fails = report.fail_count - sum(r.verdict.value == "fail" for _, r in shown)
    errors = report.error_count - sum(r.verdict.value == "error" for _, r in shown)
    which = f"{fails:,} of them failing, {errors:,} erroring" if fails or errors else ""
    what = f"{hidden:,} more cases ({which or 'none failing or erroring'})"
    where = (
        'report.to_dataframe() has every case, report.filter_by_verdict("fail") the failing ones'
    )
    if errors:
        where += ', report.filter_by_verdict("error") the erroring ones'
    return not_shown_html(what, where)


def report_html(report: EvalReport) -> str:
    """The rich notebook view of a report (bounded: see the module docstring)."""
    headers = ["#", "verdict", "case", "failing", "latency", "cost", "tags"]
    head = "".join(
        f'<th style="text-align: left; padding: 1px 8px;">{h.esc(x)}</th>' for x in headers
    )
    shown = _shown_rows(report)
    rows = []
    traces = 0
    for index, result in shown:
        with_trace = traces < MAX_REPORT_TRACES
        rows.append(_row(index, result, with_trace))
        traces += result.verdict.value in _FAILING
    table = (
        '<table style="border-collapse: collapse; font-size: 12px; margin: 4px 0;">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
    tone = "ok" if report.fail_count + report.error_count == 0 else "error"
    return h.box(_header(report) + _not_shown(report, shown) + table, "eval-report", tone)


def regression_html(result: RegressionResult) -> str:
    """Baseline vs this run: the accuracy change and the cases that regressed or improved."""
    if not result.has_baseline:
        return h.box(
            f"No baseline yet · accuracy {h.esc(f'{result.current_accuracy:.1%}')}",
            "eval-regression",
            "info",
        )
    verdict = (
        h.badge("REGRESSION", "error") if result.is_regression else h.badge("no regression", "ok")
    )
    lines = [
        f"<b>Baseline</b> {h.esc(f'{result.baseline_accuracy:.1%}')} → "
        f"{h.esc(f'{result.current_accuracy:.1%}')} ({h.esc(f'{result.accuracy_delta:+.2%}')}) {verdict}"
    ]
    lines += [f"{h.badge('regressed', 'error')} {h.esc(name)}" for name in result.regressions]
    lines += [f"{h.badge('improved', 'ok')} {h.esc(name)}" for name in result.improvements]
    lines += [f"{h.badge('new')} {h.esc(name)}" for name in result.new_cases]
    tone = "error" if result.is_regression else "ok"
    return h.box("<br>".join(lines), "eval-regression", tone)


def progress_html(done: int, total: int) -> str:
    """A progress bar with ``done/total`` cases."""
    share = done / total if total else 1.0
    bar = (
        '<div style="display: inline-block; width: 160px; height: 8px; background: '
        'rgba(128,128,128,0.2); border-radius: 4px; vertical-align: middle;">'
        f'<div style="width: {share * 100:.0f}%; height: 8px; background: #2ea043; '
        'border-radius: 4px;"></div></div>'
    )
    return h.box(f"{bar} {done}/{total} cases", "eval-progress")


def _chart(report: EvalReport, kind: str = "accuracy_by_tag") -> Any:
    charts = {
        "accuracy_by_tag": eval_frames.accuracy_by_tag_chart,
        "latency": eval_frames.latency_chart,
        "cost": eval_frames.cost_per_case_chart,
    }
    if kind not in charts:
        raise ValueError(f"unknown chart {kind!r}; choose from {', '.join(charts)}")
    return charts[kind](report)


RENDERERS: dict[str, Renderers] = {
    "selectools.evals.report.EvalReport": {
        "text": repr,
        "html": report_html,
        "dataframe": eval_frames.report_to_dataframe,
        "evaluator_frame": eval_frames.evaluator_frame,
        "chart": _chart,
    },
    "selectools.evals.regression.RegressionResult": {"text": repr, "html": regression_html},
}
