"""Scheduled agents: ``AgentScheduler`` with ``cron(...)`` and ``every(...)`` schedules.

Stdlib only (``asyncio`` + ``datetime``). See :mod:`._scheduler` for the
policies (anchored cadence, coalesced missed slots, no overlap, isolation).
"""

from __future__ import annotations

from ._scheduler import AgentScheduler, JobResult, ScheduledJob
from ._schedules import CronSchedule, Interval, Schedule, ScheduleError, cron, every

__all__ = [
    "AgentScheduler",
    "CronSchedule",
    "Interval",
    "JobResult",
    "Schedule",
    "ScheduleError",
    "ScheduledJob",
    "cron",
    "every",
]
