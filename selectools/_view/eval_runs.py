"""Views of many eval runs: tidy DataFrames, the run history and a case-by-case diff.

The frames are long ("tidy"): every row carries its run's id, suite, model and
metadata (prompt version, tags ...) as columns, so ``groupby``/``pivot_table``
and plotly compare runs, models and prompt versions directly. The case frame is
:func:`.eval_frames.report_to_dataframe` with those run columns in front, so
one run and many runs read the same way. A metadata key that is also a frame
column (``tags`` is the cases' own) becomes ``run_<key>``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._display import Renderers, render
from . import _html as h
from .eval_frames import CASE_COLUMNS, _require, evaluator_frame, report_to_dataframe

if TYPE_CHECKING:
    import pandas
    import plotly.graph_objects

    from ..evals.case import CaseResult
    from ..evals.runs import EvalRun, EvalRuns, RunDiff

__all__ = ["RENDERERS", "RUN_COLUMNS"]

#: the fixed columns of ``runs_frame()`` (metadata keys follow ``started_at``)
RUN_COLUMNS = (
    "run_id",
    "suite",
    "model",
    "started_at",
    "cases",
    "passed",
    "failed",
    "errors",
    "skipped",
    "accuracy",
    "cost_usd",
    "tokens",
    "latency_p50_ms",
    "latency_p95_ms",
    "duration_s",
    "regression",
    "source",
)
_KEYS = ("run_id", "suite", "model")


def _meta_keys(runs: EvalRuns) -> list[str]:
    keys = dict.fromkeys(k for run in runs for k in run.report.metadata)
    return list(keys)


def _meta_column(key: str) -> str:
    taken = {*RUN_COLUMNS, *CASE_COLUMNS, "evaluator", "passed", "score", "index", "role"}
    return f"run_{key}" if key in taken else key


def _run_columns(run: EvalRun, keys: list[str]) -> dict[str, Any]:
    report = run.report
    labels = {_meta_column(k): report.metadata.get(k) for k in keys}
    return {"run_id": run.run_id, "suite": report.name, "model": report.model, **labels}


def runs_frame(runs: EvalRuns) -> pandas.DataFrame:
    pd = _require("pandas", "runs.runs_frame()")
    keys = _meta_keys(runs)
    rows = []
    for run, compared in runs.regressions():
        report = run.report
        rows.append(
            {
                **_run_columns(run, keys),
                "started_at": pd.Timestamp(report.started_at, unit="s", tz="UTC"),
                "cases": report.total_cases,
                "passed": report.pass_count,
                "failed": report.fail_count,
                "errors": report.error_count,
                "skipped": report.skip_count,
                "accuracy": report.accuracy,
                "cost_usd": report.total_cost,
                "tokens": report.total_tokens,
                "latency_p50_ms": report.latency_p50,
                "latency_p95_ms": report.latency_p95,
                "duration_s": report.duration_s,
                "regression": compared.has_baseline and compared.is_regression,
                "source": run.source,
            }
        )
    meta = [_meta_column(k) for k in keys]
    columns = [*_KEYS, "started_at", *meta, *RUN_COLUMNS[4:]]
    return pd.DataFrame(rows, columns=columns)


def cases_frame(runs: EvalRuns) -> pandas.DataFrame:
    pd = _require("pandas", "runs.cases_frame()")
    keys = _meta_keys(runs)
    frames = []
    for run in runs:
        frame = report_to_dataframe(run.report)
        for position, (column, value) in enumerate(_run_columns(run, keys).items()):
            frame.insert(position, column, [value] * len(frame))
        frames.append(frame)
    columns = [*_KEYS, *(_meta_column(k) for k in keys), *CASE_COLUMNS]
    if not frames:
        return pd.DataFrame(columns=columns)
    return pd.concat(frames, ignore_index=True)[columns]


def scores_frame(runs: EvalRuns) -> pandas.DataFrame:
    pd = _require("pandas", "runs.scores_frame()")
    keys = _meta_keys(runs)
    rows = []
    for run in runs:
        grid = evaluator_frame(run.report)
        labels = _run_columns(run, keys)
        for result, (_, verdicts) in zip(run.report.results, grid.iterrows(), strict=True):
            for evaluator, passed in verdicts.items():
                rows.append(
                    {
                        **labels,
                        "case": result.case.label,
                        "evaluator": evaluator,
                        "passed": None if pd.isna(passed) else bool(passed),
                        "score": result.scores.get(str(evaluator)),
                    }
                )
    columns = [*_KEYS, *(_meta_column(k) for k in keys), "case", "evaluator", "passed", "score"]
    return pd.DataFrame(rows, columns=columns)


def messages_frame(runs: EvalRuns) -> pandas.DataFrame:
    pd = _require("pandas", "runs.messages_frame()")
    keys = _meta_keys(runs)
    rows = []
    for run in runs:
        labels = _run_columns(run, keys)
        for result in run.report.results:
            for index, message in enumerate(result.conversation()):
                rows.append(
                    {
                        **labels,
                        "case": result.case.label,
                        "index": index,
                        "role": message.get("role", ""),
                        "content": message.get("content", ""),
                        "tool_calls": list(message.get("tool_calls", [])),
                    }
                )
    columns = [*_KEYS, *(_meta_column(k) for k in keys)]
    columns += ["case", "index", "role", "content", "tool_calls"]
    return pd.DataFrame(rows, columns=columns)


def history_chart(runs: EvalRuns) -> plotly.graph_objects.Figure:
    """Three stacked panels over the runs: accuracy (regressions marked), cost, p50 latency."""
    go = _require("plotly.graph_objects", "runs.history_chart()")
    subplots = _require("plotly.subplots", "runs.history_chart()")
    compared = runs.regressions()
    x = [run.run_id for run, _ in compared]
    accuracy = [run.report.accuracy * 100 for run, _ in compared]
    figure = subplots.make_subplots(
        rows=3,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.06,
        subplot_titles=("accuracy (%, weighted by case weight)", "cost (USD)", "p50 latency (ms)"),
    )
    figure.add_trace(
        go.Scatter(x=x, y=accuracy, mode="lines+markers", name="accuracy", line_color="#2ea043"),
        row=1,
        col=1,
    )
    marked = [(run.run_id, run.report.accuracy * 100, r) for run, r in compared if r.is_regression]
    if marked:
        figure.add_trace(
            go.Scatter(
                x=[m[0] for m in marked],
                y=[m[1] for m in marked],
                mode="markers",
                name="regression",
                marker={"symbol": "x", "size": 12, "color": "#da3633"},
                customdata=[", ".join(m[2].regressions) or "accuracy dropped" for m in marked],
                hovertemplate="%{x}: regression (%{customdata})<extra></extra>",
            ),
            row=1,
            col=1,
        )
    figure.add_trace(
        go.Bar(x=x, y=[run.report.total_cost for run, _ in compared], name="cost"), row=2, col=1
    )
    figure.add_trace(
        go.Scatter(
            x=x, y=[run.report.latency_p50 for run, _ in compared], mode="lines+markers", name="p50"
        ),
        row=3,
        col=1,
    )
    figure.update_yaxes(range=[0, 105], row=1, col=1)
    figure.update_layout(
        title="Eval run history",
        height=560,
        showlegend=False,
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="rgba(0,0,0,0)",
    )
    return figure


# -- HTML ---------------------------------------------------------------------------------
def _labels(run: EvalRun) -> str:
    meta = run.report.metadata
    return ", ".join(f"{k}={v}" for k, v in meta.items()) if meta else ""


def runs_html(runs: EvalRuns) -> str:
    rows = []
    previous: dict[str, float] = {}
    for run, compared in runs.regressions():
        report = run.report
        before = previous.get(report.name)
        previous[report.name] = report.accuracy
        delta = "" if before is None else f"{(report.accuracy - before) * 100:+.1f} pt"
        if compared.has_baseline and compared.is_regression:
            lost = ", ".join(compared.regressions) or "accuracy dropped"
            mark = h.badge(f"regression: {lost}", "error")
        else:
            mark = h.muted("–")
        rows.append(
            (
                h.esc(run.run_id),
                h.esc(report.name),
                h.esc(report.model or "–"),
                h.muted(_labels(run)),
                h.esc(f"{report.accuracy:.1%}"),
                h.esc(delta),
                h.esc(f"{report.pass_count}/{report.total_cases}"),
                h.esc(h.format_cost(report.total_cost)),
                h.duration(report.latency_p50),
                mark,
            )
        )
    headers = ("run", "suite", "model", "labels", "accuracy", "Δ", "passed", "cost", "p50", "")
    head = f"<b>Eval runs</b> · {h.esc(h.plural(len(runs), 'run'))}"
    body = h.table(headers, rows, numeric=(4, 5, 6, 7, 8)) if rows else h.muted("no runs")
    return h.box(f"{head}<br>{body}", "eval-runs")


def runs_text(runs: EvalRuns) -> str:
    lines = [repr(runs)]
    for run, compared in runs.regressions():
        flag = "  REGRESSION" if compared.has_baseline and compared.is_regression else ""
        lines.append(
            f"  {run.run_id}: {run.report.accuracy:.1%} · {h.format_cost(run.report.total_cost)}"
            f"{flag}"
        )
    return "\n".join(lines)


def _trace_html(result: CaseResult | None, diff: RunDiff) -> str:
    if result is None:
        return h.muted("(not in this run)")
    trace = getattr(result.result, "trace", None)
    if trace is None and result.trace_id and diff.traces is not None:
        try:
            trace = diff.traces.load(result.trace_id)
        except (KeyError, LookupError, OSError, ValueError):
            trace = None
    if trace is not None:
        return h.details(f"trace {h.muted(result.trace_id or trace.run_id)}", render(trace, "html"))
    if result.trace_id:
        return h.muted(f"trace {result.trace_id} (not loaded: pass traces=TraceStore)")
    return h.muted("no trace recorded")


def _side(result: CaseResult | None, diff: RunDiff) -> str:
    if result is None:
        return h.muted("(not in this run)")
    return h.pre(result.output or "(no output)") + _trace_html(result, diff)


_KIND_TONE = {"regressed": "error", "improved": "ok", "changed": "warn", "new": "muted"}


def diff_html(diff: RunDiff) -> str:
    before, after = diff.before, diff.after
    r = diff.regression
    head = (
        f"<b>{h.esc(before.run_id)} → {h.esc(after.run_id)}</b> · accuracy "
        f"{before.report.accuracy:.1%} → {after.report.accuracy:.1%} · "
        f"{h.esc(h.plural(len(diff.changes), 'changed case'))}"
    )
    if r.is_regression:
        head += " " + h.badge("regression", "error")
    parts = [head]
    for change in diff.changes:
        verdicts = " → ".join(
            x.verdict.value.upper() if x is not None else "–" for x in (change.before, change.after)
        )
        summary = (
            f"{h.badge(change.kind, _KIND_TONE.get(change.kind, 'muted'))} "
            f"<b>{h.esc(change.case)}</b> {h.muted(verdicts)}"
        )
        body = h.table(
            (before.run_id, after.run_id),
            [(_side(change.before, diff), _side(change.after, diff))],
        )
        parts.append(h.details(summary, body, open=change.kind == "regressed"))
    if not diff.changes:
        parts.append(h.muted("every case has the same verdict and output"))
    return h.box(parts[0] + "".join(parts[1:]), "eval-diff", "error" if r.is_regression else "")


def diff_frame(diff: RunDiff) -> pandas.DataFrame:
    pd = _require("pandas", "diff.to_dataframe()")
    rows = [
        {
            "case": c.case,
            "change": c.kind,
            "verdict_before": c.before.verdict.value if c.before else None,
            "verdict_after": c.after.verdict.value if c.after else None,
            "output_before": c.before.output if c.before else None,
            "output_after": c.after.output if c.after else None,
            "trace_before": (c.before.trace_id or None) if c.before else None,
            "trace_after": (c.after.trace_id or None) if c.after else None,
        }
        for c in diff.changes
    ]
    columns = ["case", "change", "verdict_before", "verdict_after", "output_before"]
    columns += ["output_after", "trace_before", "trace_after"]
    return pd.DataFrame(rows, columns=columns)


RENDERERS: dict[str, Renderers] = {
    "selectools.evals.runs.EvalRuns": {
        "text": runs_text,
        "html": runs_html,
        "runs_frame": runs_frame,
        "cases_frame": cases_frame,
        "scores_frame": scores_frame,
        "messages_frame": messages_frame,
        "chart": history_chart,
    },
    "selectools.evals.runs.RunDiff": {"text": repr, "html": diff_html, "dataframe": diff_frame},
}
