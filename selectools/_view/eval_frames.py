"""Eval reports as pandas DataFrames and plotly charts (imported only when asked for).

``report_to_dataframe`` has one row per case (what a notebook user filters and
sorts); ``evaluator_frame`` is the case x evaluator grid of pass/fail; the three
charts answer the usual questions: which tags fail, how latency is spread, and
where the money goes.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .._install import install_hint
from ._chart_theme import theme_neutral

if TYPE_CHECKING:
    import pandas
    import plotly.graph_objects

    from ..evals.report import EvalReport

__all__ = [
    "CASE_COLUMNS",
    "accuracy_by_tag_chart",
    "cost_per_case_chart",
    "evaluator_frame",
    "latency_chart",
    "report_to_dataframe",
]

#: the columns of :func:`report_to_dataframe`, in order
CASE_COLUMNS = (
    "case",
    "input",
    "verdict",
    "failing_evaluators",
    "latency_ms",
    "cost_usd",
    "tokens",
    "iterations",
    "tags",
    "weight",
    "output_excerpt",
    "error",
    "trace_id",
)

_EXCERPT = 120
_COLOURS = {"pass": "#2ea043", "fail": "#da3633", "error": "#d29922", "skip": "#8b949e"}


def _require(module: str, feature: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ModuleNotFoundError(
            f"{feature} needs {module.split('.')[0]}: {install_hint('notebook')}"
        ) from exc


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _EXCERPT else flat[: _EXCERPT - 1] + "…"


def report_to_dataframe(report: EvalReport) -> pandas.DataFrame:
    """One row per case, in case order (columns: :data:`CASE_COLUMNS`)."""
    pd = _require("pandas", "report.to_dataframe()")
    rows = [
        (
            r.case.label,
            r.case.input,
            r.verdict.value,
            ", ".join(dict.fromkeys(f.evaluator for f in r.failures)),
            r.latency_ms,
            r.cost_usd,
            r.tokens,
            r.iterations,
            list(r.case.tags),
            r.case.weight,
            _excerpt(r.output),
            r.error or "",
            r.trace_id or "",
        )
        for r in report.results
    ]
    return pd.DataFrame(rows, columns=list(CASE_COLUMNS))


def evaluator_frame(report: EvalReport) -> pandas.DataFrame:
    """Case x evaluator: True (passed), False (failed) for every evaluator that spoke up.

    Columns are the evaluators that failed a case or scored one (a judge);
    None where the evaluator did not grade the case (a judge without the
    ``reference`` it needs, a case skipped or errored before grading).
    """
    pd = _require("pandas", "evaluator_frame()")
    from ..evals.case import CaseVerdict

    names = report.evaluator_names()
    judges = {name for r in report.results for name in r.scores}
    data = []
    for r in report.results:
        failed = {f.evaluator for f in r.failures}
        graded = r.verdict in (CaseVerdict.PASS, CaseVerdict.FAIL)
        row: list[bool | None] = []
        for name in names:
            judged_here = name not in judges or name in r.scores or name in failed
            row.append((name not in failed) if graded and judged_here else None)
        data.append(row)
    return pd.DataFrame(data, columns=names, index=[r.case.label for r in report.results])


#: the height (in % points) a bar of 0 % is drawn with, so a tag that passes nothing shows
_ZERO_BAR = 1.5


def accuracy_by_tag_chart(report: EvalReport) -> plotly.graph_objects.Figure:
    """Accuracy per tag (bars labelled with their value, the case count in the hover).

    When cases carry weights other than 1 the accuracy is weighted and the chart
    says so; a tag at 0 % gets a thin bar (labelled 0%) rather than none.
    """
    go = _require("plotly.graph_objects", "accuracy_by_tag_chart()")
    tags = report.tags() or ["(untagged)"]
    values, counts = [], []
    for tag in tags:
        part = report if tag == "(untagged)" else report.filter_by_tag(tag)
        values.append(part.accuracy * 100)
        counts.append(len(part))
    weighted = any(r.case.weight != 1 for r in report.results)
    measure = "weighted accuracy" if weighted else "accuracy"
    figure = go.Figure(
        go.Bar(
            x=tags,
            y=[max(v, _ZERO_BAR) for v in values],
            customdata=[[v, n] for v, n in zip(values, counts, strict=True)],
            text=[f"{v:.0f}%" for v in values],
            textposition="outside",
            cliponaxis=False,
            marker_color=[
                "#2ea043" if v >= 80 else "#d29922" if v >= 50 else "#da3633" for v in values
            ],
            hovertemplate=(
                f"%{{x}}: %{{customdata[0]:.1f}}% {measure} of %{{customdata[1]}} cases"
                "<extra></extra>"
            ),
        )
    )
    title = (
        "Weighted accuracy by tag (cases count by their weight)"
        if weighted
        else ("Accuracy by tag")
    )
    figure.update_layout(
        title=title, yaxis={"title": f"{measure} (%)", "range": [0, 105]}, height=320
    )
    return theme_neutral(figure)


def latency_chart(report: EvalReport) -> plotly.graph_objects.Figure:
    """Latency histogram by verdict (skipped cases never ran), with p50/p95 marked."""
    go = _require("plotly.graph_objects", "latency_chart()")
    figure = go.Figure()
    for verdict, colour in _COLOURS.items():
        if verdict == "skip":
            continue
        values = [r.latency_ms for r in report.results if r.verdict.value == verdict]
        if values:
            figure.add_trace(go.Histogram(x=values, name=verdict, marker_color=colour, opacity=0.8))
    for label, value in (("p50", report.latency_p50), ("p95", report.latency_p95)):
        figure.add_vline(x=value, line_dash="dash", annotation_text=label)
    figure.update_layout(
        title="Latency distribution", barmode="stack", xaxis={"title": "ms"}, height=320
    )
    return theme_neutral(figure)


def cost_per_case_chart(report: EvalReport) -> plotly.graph_objects.Figure:
    """Cost of each case (bars coloured by verdict)."""
    go = _require("plotly.graph_objects", "cost_per_case_chart()")
    figure = go.Figure(
        go.Bar(
            x=[r.case.label for r in report.results],
            y=[r.cost_usd for r in report.results],
            marker_color=[_COLOURS[r.verdict.value] for r in report.results],
            hovertemplate="%{x}: $%{y:.6f}<extra></extra>",
        )
    )
    figure.update_layout(title="Cost per case", yaxis={"title": "USD"}, height=320)
    return theme_neutral(figure)
