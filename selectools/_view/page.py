"""Standalone pages for ``selectools view``: a saved trace or eval report, offline.

A page is one self-contained HTML file (no network request): the eval report is the
report's own interactive page (:meth:`EvalReport.to_html`); a trace is its summary, the
trace Gantt (plotly, with plotly.js inlined when plotly is installed), its steps table and
every recorded field of each step.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .._display import render
from .._text import one_line
from ..evals.report import EvalReport
from ..trace import AgentTrace
from . import _html as h
from ._components import steps_table

__all__ = ["SavedFileError", "page_for_file", "trace_page"]

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body{{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;color:#1f2328;
background:#fff}}
@media (prefers-color-scheme: dark){{body{{color:#e6edf3;background:#0d1117}}}}
h1{{font-size:20px;margin:0 0 4px}} h2{{font-size:16px}}
pre{{white-space:pre-wrap;word-break:break-word}} .sub{{opacity:.75;margin:0 0 16px}}
</style></head><body>
<h1>{title}</h1><p class="sub">{subtitle}</p>
{body}
</body></html>
"""


class SavedFileError(ValueError):
    """The file is not a saved trace (``trace_to_json``) or eval report (``to_json``)."""


def trace_page(trace: AgentTrace, *, source: str = "") -> str:
    """The page of one trace: its Gantt chart (when plotly is installed) and its steps."""
    try:
        from .charts import trace_gantt

        figure = trace_gantt(trace)
        chart = figure.to_html(
            full_html=False, include_plotlyjs=True, config={"displaylogo": False}
        )
    except ImportError as exc:
        chart = h.muted(f"No Gantt chart: {exc}")
    title = f"Trace {trace.run_id}"
    return _PAGE.format(
        title=h.esc(title),
        subtitle=h.esc(" · ".join(filter(None, [render(trace, "text"), source]))),
        body=chart + steps_table(trace) + "<h2>Steps</h2>" + _step_details(trace),
    )


def _step_details(trace: AgentTrace) -> str:
    """Every recorded field of every step, one collapsible block each (nothing summarised)."""
    blocks = []
    for index, step in enumerate(trace.steps, start=1):
        fields = {k: v for k, v in step.to_dict().items() if v not in (None, "", [], {})}
        summary = f"{index}. {step.type.value}: {step.summary or ''}"
        blocks.append(
            f"<details><summary>{h.esc(one_line(summary, 160))}</summary>"
            f"<pre>{h.esc(json.dumps(fields, indent=2, default=str, ensure_ascii=False))}</pre>"
            "</details>"
        )
    return "".join(blocks)


def page_for_file(path: str | Path) -> tuple[str, str]:
    """``(kind, html)`` for a saved trace (``"trace"``) or eval report (``"report"``)."""
    file = Path(path)
    try:
        data: Any = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SavedFileError(f"{file}: not a JSON file ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("steps"), list) and "run_id" in data:
        try:
            trace = AgentTrace.from_dict(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise SavedFileError(f"{file}: a trace with a damaged step ({exc})") from None
        return "trace", trace_page(trace, source=str(file))
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        try:
            report = EvalReport.from_dict(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise SavedFileError(f"{file}: an eval report with a damaged case ({exc})") from None
        return "report", report.to_html()
    raise SavedFileError(
        f"{file}: neither a saved trace (trace_to_json(result.trace, path)) nor an eval "
        "report (report.to_json(path))"
    )
