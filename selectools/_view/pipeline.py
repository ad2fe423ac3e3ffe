"""Notebook displays of a ``Pipeline`` (its steps as a chain) and of a ``StepResult`` (per-step trace).

Plain string building (no IPython): ``Pipeline._repr_html_`` and ``StepResult._repr_html_`` call these.
A ``parallel`` group is drawn as a stack of its branches, a ``branch`` as its named routes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._display import Renderers
from ._html import badge, box, duration, esc, muted, one_line, plural, pre, table

if TYPE_CHECKING:
    from ..pipeline import Pipeline, Step, StepResult

__all__ = ["RENDERERS", "render_pipeline", "render_step_result"]

_STATUS_TONE = {"ok": "ok", "skipped": "warn", "retrying": "warn", "error": "error"}
_CHIP = (
    "display: inline-block; border: 1px solid rgba(128, 128, 128, 0.45); border-radius: 4px; "
    "padding: 1px 7px; margin: 1px 0; white-space: nowrap;"
)
_ARROW = '<span style="opacity: 0.6; padding: 0 6px;">&rarr;</span>'


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp)


def _chip(step: Step) -> str:
    branches: dict[str, Step] | None = getattr(step, "branches", None)
    if isinstance(branches, list):  # parallel
        inner = "<br>".join(_chip(b) for b in branches)
        return f'<span style="{_CHIP}"><b>parallel</b><br>{inner}</span>'
    if isinstance(branches, dict):  # branch
        inner = "<br>".join(f"{esc(key)}: {_chip(b)}" for key, b in branches.items())
        return f'<span style="{_CHIP}"><b>branch</b><br>{inner}</span>'
    notes = []
    if step.retry:
        notes.append(f"retry {step.retry}")
    if step.on_error != "raise":
        notes.append(f"on_error={step.on_error}")
    if getattr(step, "cache", None) is not None:
        notes.append("cached")
    types = ""
    if step.input_type is not None or step.output_type is not None:
        types = muted(
            f" {_type_name(step.input_type or '?')} → {_type_name(step.output_type or '?')}"
        )
    extra = " " + badge(", ".join(notes)) if notes else ""
    return f'<span style="{_CHIP}">{esc(step.name)}{types}{extra}</span>'


def render_pipeline(pipeline: Pipeline) -> str:
    steps = pipeline.steps
    chain = _ARROW.join(_chip(s) for s in steps) or muted("no steps")
    name = f" {esc(pipeline.name)}" if pipeline.name != "pipeline" else ""
    head = f"<b>Pipeline</b>{name} {muted(plural(len(steps), 'step'))}"
    body = f'<div style="display: flex; align-items: center; flex-wrap: wrap; margin-top: 4px;">{chain}</div>'
    return box(head + body, "pipeline")


def _rows(trace: Sequence[dict[str, Any]], depth: int = 0) -> list[list[str]]:
    rows: list[list[str]] = []
    for entry in trace:
        status = entry.get("status", "")
        notes = []
        if entry.get("retry"):
            notes.append(f"retry #{entry['retry']}")
        if entry.get("cached"):
            notes.append("cached")
        if entry.get("branch"):
            notes.append(f"→ {entry['branch']}")
        if entry.get("error"):
            notes.append(one_line(str(entry["error"]), 120))
        name = "&nbsp;&nbsp;" * depth + esc(entry.get("step", "?"))
        rows.append(
            [
                name,
                badge(status, _STATUS_TONE.get(status, "muted")),
                duration(entry.get("duration_ms")),
                esc("; ".join(notes)),
            ]
        )
        rows.extend(_rows(entry.get("steps", ()), depth + 1))
    return rows


def render_step_result(result: StepResult) -> str:
    head = f"<b>Pipeline result</b> {muted(plural(result.steps_run, 'step') + ' run')}"
    output = pre(
        one_line(repr(result.output), 2000) if not isinstance(result.output, str) else result.output
    )
    trace = table(["step", "status", "time", "notes"], _rows(result.trace), numeric=[2])
    return box(head + output + trace, "pipeline-result")


RENDERERS: dict[str, Renderers] = {
    "selectools.pipeline._pipeline.Pipeline": {"text": repr, "html": render_pipeline},
    "selectools.pipeline._pipeline.StepResult": {"text": repr, "html": render_step_result},
}
