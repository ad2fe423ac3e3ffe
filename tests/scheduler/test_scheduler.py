"""AgentScheduler: first fires, anchored cadence, isolation, overlap, the loop and shutdown."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from html import unescape

import pytest

from selectools import Agent, AgentScheduler, JobResult, cron, every
from selectools.scheduler import ScheduleError
from selectools.testing import ScriptedProvider

T0 = datetime(2026, 11, 23, 8, 0, tzinfo=timezone.utc)


class Clock:
    """A controllable clock; ``sleep`` advances it instead of waiting."""

    def __init__(self, start: datetime = T0) -> None:
        self.now = start
        self.slept: list[float] = []

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += timedelta(seconds=seconds)
        await asyncio.sleep(0)


def _agent(*answers: str, name: str = "agent") -> Agent:
    from selectools import AgentConfig

    return Agent(tools=[], provider=ScriptedProvider(list(answers)), config=AgentConfig(name=name))


def test_first_fire_is_strictly_after_now_unless_start_immediately():
    clock = Clock()
    scheduler = AgentScheduler(now=clock)
    later = scheduler.add_job(_agent("a"), "p", every(minutes=5), name="later")
    now = scheduler.add_job(_agent("b"), "p", every(minutes=5), name="now", start_immediately=True)
    daily = scheduler.add_job(_agent("c"), "p", cron("0 9 * * *"), name="daily")
    assert later.next_run == T0 + timedelta(minutes=5)
    assert now.next_run == T0
    assert daily.next_run == T0.replace(hour=9)
    assert scheduler.due_jobs() == [now]
    assert [r.job_name for r in scheduler.run_pending()] == ["now"]
    assert scheduler.run_pending() == []
    clock.advance(minutes=5)
    assert {j.name for j in scheduler.due_jobs()} == {"later", "now"}


def test_run_pending_returns_results_with_the_agents_answers():
    clock = Clock()
    scheduler = AgentScheduler(now=clock)
    seen: list[JobResult] = []
    job = scheduler.add_job(
        _agent("first digest", "second digest"),
        "Daily digest",
        every(hours=1),
        name="digest",
        on_result=seen.append,
        start_immediately=True,
    )
    (first,) = scheduler.run_pending()
    assert first == JobResult("digest", T0, 1, output="first digest", duration_ms=first.duration_ms)
    assert first.ok
    clock.advance(hours=1)
    (second,) = scheduler.run_pending()
    assert (second.run_index, second.output, second.fired_at) == (2, "second digest", clock.now)
    assert seen == [first, second]
    assert job.last_result is second
    assert scheduler.results == [first, second]


def test_a_raising_job_is_isolated_and_reported():
    clock = Clock()
    scheduler = AgentScheduler(now=clock)

    def broken(prompt: str) -> str:
        raise ConnectionError("status page unreachable")

    def bad_callback(result: JobResult) -> None:
        raise RuntimeError("callback bug")

    scheduler.add_job(broken, "poll", every(minutes=1), name="poll", start_immediately=True)
    scheduler.add_job(
        _agent("fine"),
        "digest",
        every(minutes=1),
        name="ok",
        start_immediately=True,
        on_result=bad_callback,
    )
    results = {r.job_name: r for r in scheduler.run_pending()}
    assert results["poll"].ok is False
    assert results["poll"].error == "ConnectionError: status page unreachable"
    assert results["poll"].output is None
    assert results["ok"].ok and results["ok"].output == "fine"
    assert scheduler.jobs[0].last_result is results["poll"]
    clock.advance(minutes=1)
    assert {r.job_name for r in scheduler.run_pending()} == {"poll", "ok"}  # both still scheduled


def test_cadence_is_anchored_to_the_schedule_not_to_when_the_run_ended():
    clock = Clock()
    scheduler = AgentScheduler(now=clock)

    def slow(prompt: str) -> str:
        clock.advance(seconds=90)  # the run takes 1.5 minutes of a 5-minute cadence
        return "done"

    job = scheduler.add_job(slow, "p", every(minutes=5), name="slow")
    clock.advance(minutes=5)
    scheduler.run_pending()
    assert job.next_run == T0 + timedelta(minutes=10)  # not 11:30 past the start
    # a run that overran several slots fires once, then resumes on the grid
    clock.now = T0 + timedelta(minutes=27)
    scheduler.run_pending()
    assert job.runs == 2
    assert job.next_run == T0 + timedelta(minutes=30)


def test_max_runs_enabled_and_remove_job():
    clock = Clock()
    scheduler = AgentScheduler(now=clock)
    job = scheduler.add_job(lambda p: p.upper(), "x", every(seconds=1), name="twice", max_runs=2)
    paused = scheduler.add_job(lambda p: p, "y", every(seconds=1), name="paused")
    paused.enabled = False
    outputs = []
    for _ in range(4):
        clock.advance(seconds=1)
        outputs += [r.output for r in scheduler.run_pending()]
    assert outputs == ["X", "X"]
    assert job.exhausted and paused.runs == 0
    assert scheduler.remove_job("paused") is paused
    assert [j.name for j in scheduler.jobs] == ["twice"]
    with pytest.raises(KeyError, match="nope"):
        scheduler.remove_job("nope")


def test_job_names_default_to_the_agent_then_job_n():
    scheduler = AgentScheduler(now=Clock())
    agent = _agent("a", name="reporter")
    assert scheduler.add_job(agent, "p", every(minutes=1)).name == "reporter"
    assert scheduler.add_job(agent, "q", every(minutes=1)).name == "job-1"
    assert scheduler.add_job(lambda p: p, "r", every(minutes=1)).name == "job-2"
    with pytest.raises(ValueError, match="already exists"):
        scheduler.add_job(agent, "s", every(minutes=1), name="reporter")


def test_bad_arguments_are_clear_errors():
    scheduler = AgentScheduler(now=Clock())
    with pytest.raises(ScheduleError, match="needs a schedule"):
        scheduler.add_job(_agent("a"), "p", "0 9 * * *")
    with pytest.raises(TypeError, match="Agent or a function"):
        scheduler.add_job(42, "p", every(minutes=1))
    with pytest.raises(ValueError, match="max_runs"):
        scheduler.add_job(_agent("a"), "p", every(minutes=1), max_runs=0)


def test_arun_pending_runs_async_and_sync_jobs_concurrently():
    clock = Clock()
    scheduler = AgentScheduler(now=clock)
    both_started = asyncio.Event()
    started: list[str] = []

    async def waits_for_sibling(prompt: str) -> str:
        started.append(prompt)
        if len(started) == 2:
            both_started.set()
        await asyncio.wait_for(both_started.wait(), 5)
        return f"async {prompt}"

    scheduler.add_job(waits_for_sibling, "a", every(minutes=1), name="a", start_immediately=True)
    scheduler.add_job(waits_for_sibling, "b", every(minutes=1), name="b", start_immediately=True)
    scheduler.add_job(_agent("from arun"), "c", every(minutes=1), name="c", start_immediately=True)
    scheduler.add_job(
        lambda p: f"sync {p}", "d", every(minutes=1), name="d", start_immediately=True
    )
    results = asyncio.run(scheduler.arun_pending())
    assert {r.job_name: r.output for r in results} == {
        "a": "async a",
        "b": "async b",
        "c": "from arun",
        "d": "sync d",
    }


def test_async_job_in_the_sync_pending_call():
    scheduler = AgentScheduler(now=Clock())

    async def job(prompt: str) -> str:
        await asyncio.sleep(0)
        return prompt * 2

    scheduler.add_job(job, "ab", every(minutes=1), start_immediately=True)
    assert [r.output for r in scheduler.run_pending()] == ["abab"]


def test_astart_with_a_controlled_clock_runs_until_max_runs():
    clock = Clock()
    scheduler = AgentScheduler(now=clock, sleep=clock.sleep)

    async def answer(prompt: str) -> str:
        return prompt

    scheduler.add_job(answer, "tick", every(minutes=5), name="t", max_runs=3)
    scheduler.add_job(answer, "tock", every(minutes=7), name="u", max_runs=2)
    results = asyncio.run(scheduler.astart(poll_interval=60))
    fired = [(r.job_name, r.fired_at - T0) for r in results]
    assert fired == [
        ("t", timedelta(minutes=5)),
        ("u", timedelta(minutes=7)),
        ("t", timedelta(minutes=10)),
        ("u", timedelta(minutes=14)),
        ("t", timedelta(minutes=15)),
    ]
    assert max(clock.slept) <= 60  # never sleeps past a poll interval


def test_astart_stops_at_until_and_on_stop():
    clock = Clock()
    scheduler = AgentScheduler(now=clock, sleep=clock.sleep)

    async def job(prompt: str) -> str:  # async: done within one turn of the fake clock
        return "x"

    scheduler.add_job(job, "p", every(minutes=1), name="forever")
    results = asyncio.run(
        scheduler.astart(poll_interval=30, until=T0 + timedelta(minutes=3, seconds=1))
    )
    assert [(r.run_index, r.fired_at - T0) for r in results] == [
        (1, timedelta(minutes=1)),
        (2, timedelta(minutes=2)),
        (3, timedelta(minutes=3)),
    ]
    assert clock.now <= T0 + timedelta(minutes=3, seconds=1)

    async def stopper(prompt: str) -> str:
        scheduler.stop()
        return "stopping"

    scheduler.add_job(stopper, "s", every(minutes=2), name="stopper")
    more = asyncio.run(scheduler.astart(poll_interval=30))
    assert more[-1].output == "stopping"
    assert [r.job_name for r in more].count("stopper") == 1


def test_a_job_never_overlaps_itself_and_siblings_keep_their_cadence():
    clock = Clock()
    scheduler = AgentScheduler(now=clock, sleep=clock.sleep)
    release = asyncio.Event()
    calls: list[datetime] = []

    async def long_job(prompt: str) -> str:
        calls.append(clock.now)
        await release.wait()
        return "long done"

    async def quick(prompt: str) -> str:
        if clock.now >= T0 + timedelta(minutes=4):
            release.set()  # the long job finishes after about four minutes
        return "quick"

    long = scheduler.add_job(long_job, "l", every(minutes=1), name="long", max_runs=2)
    scheduler.add_job(quick, "q", every(minutes=1), name="quick", max_runs=5)
    results = asyncio.run(scheduler.astart(poll_interval=60))
    assert len(calls) == 2  # not once per minute while the first run was in flight
    assert calls[1] - calls[0] >= timedelta(minutes=4)
    assert [r.output for r in results if r.job_name == "quick"] == ["quick"] * 5
    assert long.runs == 2 and long.last_result.output == "long done"


def test_cancelling_astart_cancels_runs_in_flight():
    scheduler = AgentScheduler()
    cancelled = []

    async def forever(prompt: str) -> str:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.append(prompt)
            raise
        return "never"

    scheduler.add_job(forever, "p", every(hours=1), start_immediately=True)

    async def main() -> None:
        task = asyncio.ensure_future(scheduler.astart(poll_interval=0.01))
        while not cancelled and not scheduler.jobs[0].running:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(asyncio.wait_for(main(), 10))
    assert cancelled == ["p"]


def test_bounded_real_time_run():
    """Real clock and sleep: every(seconds=1) twice, start_immediately; bounded by a deadline."""
    scheduler = AgentScheduler()
    added = datetime.now(timezone.utc)
    scheduler.add_job(
        _agent("one", "two"), "go", every(seconds=1), max_runs=2, start_immediately=True
    )
    deadline = datetime.now(timezone.utc) + timedelta(seconds=10)
    results = asyncio.run(scheduler.astart(poll_interval=0.05, until=deadline))
    assert [r.output for r in results] == ["one", "two"]
    # the cadence is anchored to the first slot (when the job was added), not to when the
    # first firing happened to run: the second firing is never before that slot + 1 s
    assert results[1].fired_at >= added + timedelta(seconds=1)


def test_display_html_lists_jobs_and_last_results():
    clock = Clock()
    scheduler = AgentScheduler(now=clock)
    scheduler.add_job(
        lambda p: "all good", "p", every(minutes=5), name="poll", start_immediately=True
    )
    scheduler.add_job(
        lambda p: 1 / 0, "p", cron("0 9 * * *"), name="digest", start_immediately=True
    )
    html_before = scheduler._repr_html_()
    assert "not run yet" in html_before and "due now" in html_before
    scheduler.run_pending()
    html = scheduler._repr_html_()
    assert "poll" in html and "every 5m" in html and "cron(&#x27;0 9 * * *&#x27;)" in html
    assert "#1 ✓ all good" in unescape(html)
    assert "#1 ✗ ZeroDivisionError: division by zero" in unescape(html)
    assert "1 failure" in html
    assert "in 5m" in html
    assert repr(scheduler) == "AgentScheduler(2 jobs, 2 results)"


def test_now_reads_the_clock_the_scheduler_was_given():
    moment = datetime(2026, 1, 2, 3, 4, tzinfo=timezone.utc)
    assert AgentScheduler(now=lambda: moment).now() == moment
    assert abs(AgentScheduler().now() - datetime.now(timezone.utc)) < timedelta(seconds=60)
