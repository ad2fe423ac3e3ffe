"""``AgentScheduler``: run agents (or plain functions) on cron or interval schedules.

Design choices, and why:

- **The clock is injectable** (``AgentScheduler(now=...)``) and so is the
  loop's sleep, so tests drive time instead of waiting for it.
- **Cadence is anchored to the schedule**: after a firing due at ``T`` the next
  is ``schedule.next_after(T)``, not "now + interval", so a slow agent does not
  drift the schedule. Firings missed while the process was busy are
  *coalesced*: the job fires once and resumes at its next slot after now, it
  does not replay a burst.
- **No overlap**: in ``astart`` every firing runs as its own task, so a slow job
  never delays its siblings, and a job never runs concurrently with itself:
  while one of its runs is in flight it is not due, and the slots that pass
  meanwhile are coalesced as above.
- **Failure isolation**: an exception in a job (or in its ``on_result``
  callback) becomes ``JobResult.error`` / a logged warning; siblings and the
  loop carry on.
- **Clean shutdown**: ``astart`` returns after ``stop()``, its ``until``
  deadline or when every job has used up ``max_runs``, once the runs in
  flight have finished; if ``astart`` itself is cancelled it cancels them and
  waits for them.
"""

from __future__ import annotations

import inspect
import itertools
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from .._display import RichDisplay
from ..stability import beta
from ._schedules import Schedule, ScheduleError

if TYPE_CHECKING:
    import asyncio

__all__ = ["AgentScheduler", "JobResult", "ScheduledJob"]


class _Log:
    """``logging.getLogger("selectools.scheduler")``, loaded when something goes wrong."""

    def warning(self, message: str, *args: Any, **kwargs: Any) -> None:
        import logging

        logging.getLogger("selectools.scheduler").warning(message, *args, **kwargs)


_log = _Log()


@dataclass
class JobResult:
    """One firing of a job: its answer on success, ``"ExcType: message"`` on failure."""

    job_name: str
    fired_at: datetime
    run_index: int
    output: str | None = None
    error: str | None = None
    duration_ms: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class ScheduledJob:
    """A target (an agent, or a function taking the prompt), its prompt and its schedule."""

    name: str
    target: Any
    prompt: str
    schedule: Schedule
    next_run: datetime
    max_runs: int | None = None
    on_result: Callable[[JobResult], Any] | None = None
    #: set False to pause the job without removing it
    enabled: bool = True
    runs: int = 0
    last_result: JobResult | None = None
    running: bool = field(default=False, repr=False)

    @property
    def exhausted(self) -> bool:
        """True once the job has fired ``max_runs`` times."""
        return self.max_runs is not None and self.runs >= self.max_runs

    def is_due(self, moment: datetime) -> bool:
        return self.enabled and not self.running and not self.exhausted and self.next_run <= moment


def _system_now() -> datetime:
    return datetime.now(timezone.utc)


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _output(value: Any) -> str | None:
    """An agent result's ``content``, or a function's return value as text."""
    if value is None:
        return None
    content = getattr(value, "content", None)
    if isinstance(content, str):
        return content
    return value if isinstance(value, str) else str(value)


@beta
class AgentScheduler(RichDisplay):
    """Fires agents on schedules; see the module docstring for the policies.

    ``now`` returns the current time (default: ``datetime.now(timezone.utc)``);
    pass your own for tests or another time zone (naive or aware, used
    consistently). ``sleep`` is the loop's ``await sleep(seconds)``.
    """

    def __init__(
        self,
        now: Callable[[], datetime] | None = None,
        *,
        sleep: Callable[[float], Awaitable[Any]] | None = None,
    ) -> None:
        self._now = now or _system_now
        self._sleep = sleep
        self._jobs: dict[str, ScheduledJob] = {}
        self._counter = itertools.count(1)
        self._stop = False
        self._lock = threading.Lock()
        self.results: list[JobResult] = []
        #: called with (scheduler, result) after each firing; the notebook view listens here
        self.listeners: list[Callable[[AgentScheduler, JobResult], Any]] = []

    # -- jobs --------------------------------------------------------------
    def now(self) -> datetime:
        """The current time on this scheduler's clock (the ``now`` it was given)."""
        return self._now()

    @property
    def jobs(self) -> list[ScheduledJob]:
        return list(self._jobs.values())

    def add_job(
        self,
        agent: Any,
        prompt: str,
        schedule: Schedule,
        *,
        name: str | None = None,
        max_runs: int | None = None,
        on_result: Callable[[JobResult], Any] | None = None,
        start_immediately: bool = False,
    ) -> ScheduledJob:
        """Schedule ``agent.run(prompt)`` (``arun`` in the async loop); returns the job.

        ``agent`` may also be a function (sync or async) taking the prompt. The
        first firing is the schedule's next time strictly after now, or the next
        tick with ``start_immediately=True``.
        """
        if not callable(getattr(schedule, "next_after", None)):
            raise ScheduleError(
                f"add_job() needs a schedule such as cron('0 9 * * *') or every(minutes=5), "
                f"got {schedule!r}"
            )
        if not (hasattr(agent, "run") or callable(agent)):
            raise TypeError(
                f"add_job() runs an Agent or a function taking the prompt, got {agent!r}"
            )
        if max_runs is not None and max_runs < 1:
            raise ValueError(f"max_runs must be at least 1 (or None), got {max_runs}")
        with self._lock:
            if name is None:
                name = getattr(agent, "name", None)
                if not isinstance(name, str) or name in self._jobs:
                    name = self._fresh_name()
            elif name in self._jobs:
                raise ValueError(f"a job named {name!r} already exists; pass another name=")
            now = self._now()
            first = now if start_immediately else schedule.next_after(now)
            job = ScheduledJob(name, agent, prompt, schedule, first, max_runs, on_result)
            self._jobs[name] = job
        return job

    def _fresh_name(self) -> str:
        while True:
            name = f"job-{next(self._counter)}"
            if name not in self._jobs:
                return name

    def remove_job(self, name: str) -> ScheduledJob:
        """Remove and return the job called ``name`` (``KeyError`` when there is none)."""
        with self._lock:
            job = self._jobs.pop(name, None)
        if job is None:
            raise KeyError(f"no job named {name!r}; jobs: {sorted(self._jobs)}")
        return job

    def due_jobs(self, now: datetime | None = None) -> list[ScheduledJob]:
        """The jobs that would fire at ``now`` (default: the clock's now)."""
        moment = self._now() if now is None else now
        return [job for job in self.jobs if job.is_due(moment)]

    # -- firing ------------------------------------------------------------
    def _claim(self, job: ScheduledJob, moment: datetime) -> int:
        """Mark ``job`` running, count the firing and move its next slot past ``moment``."""
        job.running = True
        job.runs += 1
        upcoming = job.schedule.next_after(job.next_run)
        while upcoming <= moment:  # coalesce slots missed while busy
            upcoming = job.schedule.next_after(upcoming)
        job.next_run = upcoming
        return job.runs

    def _settle(self, job: ScheduledJob, result: JobResult) -> JobResult:
        job.running = False
        job.last_result = result
        self.results.append(result)
        if job.on_result is not None:
            try:
                job.on_result(result)
            except Exception:
                _log.warning("on_result callback of job %r raised", job.name, exc_info=True)
        for listener in list(self.listeners):
            try:
                listener(self, result)
            except Exception:
                _log.warning("scheduler listener %r raised", listener, exc_info=True)
        return result

    def _fire_sync(self, job: ScheduledJob, moment: datetime) -> JobResult:
        index = self._claim(job, moment)
        started = time.perf_counter()
        try:
            target = job.target
            if hasattr(target, "run"):
                value = target.run(job.prompt)
            else:
                value = target(job.prompt)
                if inspect.isawaitable(value):
                    from .._async_bridge import run_sync

                    value = run_sync(_awaited(value))
            result = JobResult(job.name, moment, index, output=_output(value))
        except Exception as exc:
            result = JobResult(job.name, moment, index, error=_error_text(exc))
        result.duration_ms = (time.perf_counter() - started) * 1000.0
        return self._settle(job, result)

    async def _fire_async(self, job: ScheduledJob, moment: datetime, index: int) -> JobResult:
        """Run a job :meth:`_claim` has already claimed (so it is never due twice)."""
        import asyncio

        started = time.perf_counter()
        try:
            target = job.target
            if hasattr(target, "arun"):
                value = await target.arun(job.prompt)
            elif hasattr(target, "run"):
                value = await asyncio.to_thread(target.run, job.prompt)
            elif inspect.iscoroutinefunction(target):
                value = await target(job.prompt)
            else:
                value = await asyncio.to_thread(target, job.prompt)
                if inspect.isawaitable(value):
                    value = await value
            result = JobResult(job.name, moment, index, output=_output(value))
        except Exception as exc:
            result = JobResult(job.name, moment, index, error=_error_text(exc))
        result.duration_ms = (time.perf_counter() - started) * 1000.0
        return self._settle(job, result)

    def run_pending(self, now: datetime | None = None) -> list[JobResult]:
        """Fire every due job once, one after another, with ``agent.run``."""
        moment = self._now() if now is None else now
        return [self._fire_sync(job, moment) for job in self.due_jobs(moment)]

    async def arun_pending(self, now: datetime | None = None) -> list[JobResult]:
        """Fire every due job once, concurrently, with ``agent.arun``."""
        import asyncio

        moment = self._now() if now is None else now
        claimed = [(job, self._claim(job, moment)) for job in self.due_jobs(moment)]
        return list(await asyncio.gather(*(self._fire_async(j, moment, i) for j, i in claimed)))

    # -- the loop ----------------------------------------------------------
    def stop(self) -> None:
        """Make ``astart`` return after its current iteration (thread-safe)."""
        self._stop = True

    async def astart(
        self, poll_interval: float = 1.0, until: datetime | None = None
    ) -> list[JobResult]:
        """Run until ``stop()``, the ``until`` deadline, or every job has used up ``max_runs``.

        Returns the results of the firings made during this call.
        """
        import asyncio

        if poll_interval <= 0:
            raise ValueError(f"poll_interval must be positive, got {poll_interval}")
        sleep = self._sleep or asyncio.sleep
        first = len(self.results)
        self._stop = False
        inflight: set[asyncio.Task[JobResult]] = set()
        try:
            while not self._stop:
                moment = self._now()
                if until is not None and moment >= until:
                    break
                for job in self.due_jobs(moment):
                    index = self._claim(job, moment)
                    task = asyncio.ensure_future(self._fire_async(job, moment, index))
                    inflight.add(task)
                    task.add_done_callback(inflight.discard)
                jobs = self.jobs
                if jobs and all(job.exhausted for job in jobs) and not inflight:
                    break
                if not jobs and not inflight:
                    break
                await sleep(self._pause(poll_interval, moment, until))
            if inflight:
                await asyncio.gather(*inflight)
        except BaseException:
            for task in inflight:
                task.cancel()
            if inflight:
                await asyncio.gather(*inflight, return_exceptions=True)
            raise
        return self.results[first:]

    def _pause(self, poll_interval: float, moment: datetime, until: datetime | None) -> float:
        """Sleep until the next due time, the deadline or one poll interval, whichever is first."""
        pause = poll_interval
        upcoming = [
            job.next_run
            for job in self.jobs
            if job.enabled and not job.exhausted and not job.running
        ]
        if until is not None:
            upcoming.append(until)
        for when in upcoming:
            pause = min(pause, max((when - moment).total_seconds(), 0.0))
        return max(pause, 0.001)

    def __repr__(self) -> str:
        return f"AgentScheduler({len(self._jobs)} jobs, {len(self.results)} results)"


async def _awaited(value: Awaitable[Any]) -> Any:
    return await value
