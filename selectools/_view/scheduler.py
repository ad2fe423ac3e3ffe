"""The jobs table of an ``AgentScheduler``: name, schedule, next run, runs, last result.

Plain string building (no IPython); :mod:`selectools.notebook.scheduler` redraws
it in place as results arrive.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from .._display import Renderers
from ._html import badge, box, esc, muted, one_line, plural, table

if TYPE_CHECKING:
    from ..scheduler import AgentScheduler, ScheduledJob

__all__ = ["RENDERERS", "scheduler_html", "scheduler_text"]


def _when(job: ScheduledJob, now: datetime) -> str:
    if job.exhausted:
        return "done"
    if not job.enabled:
        return "paused"
    if job.running:
        return "running"
    seconds = int((job.next_run - now).total_seconds())
    if seconds <= 0:
        return "due now"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{v}{u}" for v, u in ((hours, "h"), (minutes, "m"), (secs, "s")) if v]
    return "in " + " ".join(parts[:2])


def _next_html(job: ScheduledJob, now: datetime) -> str:
    """When the job runs next; a finished job has no next run, so only "done"."""
    if job.exhausted:
        return muted("— done")
    return esc(job.next_run.strftime("%Y-%m-%d %H:%M:%S")) + " " + muted(_when(job, now))


def _next_text(job: ScheduledJob, now: datetime) -> str:
    if job.exhausted:
        return "no next run (done)"
    return f"next {job.next_run:%Y-%m-%d %H:%M:%S} ({_when(job, now)})"


def _runs(job: ScheduledJob) -> str:
    return f"{job.runs}/{job.max_runs}" if job.max_runs is not None else str(job.runs)


def _last(job: ScheduledJob) -> tuple[str, str]:
    """(tone, text) of the job's last result."""
    result = job.last_result
    if result is None:
        return "muted", "not run yet"
    if result.ok:
        return "ok", f"#{result.run_index} ✓ {one_line(result.output or '', 60)}"
    return "error", f"#{result.run_index} ✗ {one_line(result.error or '', 60)}"


def scheduler_html(scheduler: AgentScheduler, now: datetime) -> str:
    jobs = scheduler.jobs
    rows = []
    for job in jobs:
        tone, text = _last(job)
        rows.append(
            (
                f"<b>{esc(job.name)}</b>",
                esc(job.schedule),
                _next_html(job, now),
                esc(_runs(job)),
                badge(text, tone) if tone != "muted" else muted(text),
            )
        )
    failures = sum(1 for r in scheduler.results if not r.ok)
    head = (
        f"<b>AgentScheduler</b> · {plural(len(jobs), 'job')} · "
        f"{plural(len(scheduler.results), 'result')}"
        + (f" · {badge(plural(failures, 'failure'), 'error')}" if failures else "")
    )
    body = table(["job", "schedule", "next run", "runs", "last result"], rows, numeric=[3])
    return box(f"<div>{head}</div>{body}", "scheduler")


def scheduler_text(scheduler: AgentScheduler, now: datetime) -> str:
    jobs = scheduler.jobs
    lines = [
        f"AgentScheduler · {plural(len(jobs), 'job')} · {plural(len(scheduler.results), 'result')}"
    ]
    for job in jobs:
        lines.append(
            f"  {job.name:<16} {job.schedule!s:<22} {_next_text(job, now)}  runs {_runs(job)}  "
            f"last: {_last(job)[1]}"
        )
    return "\n".join(lines)


def _html(scheduler: AgentScheduler) -> str:
    return scheduler_html(scheduler, scheduler.now())  # the scheduler's clock (a test may set it)


RENDERERS: dict[str, Renderers] = {
    "selectools.scheduler._scheduler.AgentScheduler": {"text": repr, "html": _html},
}
