"""``EvalSuite``: run every case on a fresh copy of the agent and grade the answers.

Cases run concurrently (threads for ``run``, an ``asyncio.Semaphore`` for
``arun``) and each gets its own copy of the agent, so no case sees another's
history, memory or usage. An ``executor`` (e.g. :class:`~selectools.evals.RayExecutor`)
runs the cases elsewhere instead; the report is the same either way.
"""

from __future__ import annotations

import asyncio
import copy
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Protocol

from .._bounded import gather_bounded
from ..stability import stable
from .case import CaseResult, CaseVerdict, EvalError, EvalFailure, TestCase
from .evaluators import CaseRun, Evaluator, deterministic_evaluators
from .llm_evaluators import JudgeReplyError
from .snapshot import SnapshotStore

if TYPE_CHECKING:
    from ..agent.core import Agent
    from .report import EvalReport

__all__ = ["CaseExecutor", "EvalSuite", "SuiteWatcher", "fresh_agent"]

ProgressCallback = Callable[[int, int], Any]


class CaseExecutor(Protocol):
    """Runs ``suite.run_case`` over the cases somewhere else; results in case order."""

    def run_cases(
        self, suite: EvalSuite, cases: Sequence[TestCase], on_done: Callable[[int], None]
    ) -> list[CaseResult]: ...


class SuiteWatcher(Protocol):
    """Follows a running suite (the live dashboard is one): called from the suite's threads."""

    def suite_started(self, suite: EvalSuite, total: int) -> None: ...

    def case_finished(self, index: int, result: CaseResult) -> None: ...

    def suite_finished(self, report: EvalReport) -> None: ...


def fresh_agent(agent: Agent) -> Agent:
    """A copy of ``agent`` sharing its tools, provider and config, with its own usage and memory.

    The memory is copied in its current state (``to_dict``/``from_dict`` when
    the memory has them, else a deep copy), so every case starts from the same
    history and nothing a case adds reaches the original or another case.
    """
    from ..usage import AgentUsage

    clone = object.__new__(type(agent))  # what copy.copy makes, in 1.5 us instead of 5
    clone.__dict__.update(agent.__dict__)
    clone.usage = AgentUsage()
    clone._lock = threading.Lock()
    if agent.analytics is not None:
        clone.analytics = type(agent.analytics)()
    memory = agent.memory
    if memory is not None:
        to_dict = getattr(memory, "to_dict", None)
        from_dict = getattr(type(memory), "from_dict", None)
        try:
            if callable(to_dict) and callable(from_dict):
                clone.memory = from_dict(to_dict())
            else:
                clone.memory = copy.deepcopy(memory)
        except Exception as exc:  # a memory that can be neither serialised nor copied
            raise EvalError(
                f"cannot give each eval case its own copy of {type(memory).__name__} ({exc}); "
                "give the memory to_dict/from_dict or run the suite on an agent without memory"
            ) from exc
    return clone


@stable
class EvalSuite:
    """A set of test cases for one agent.

    ``evaluators`` are added to the 12 deterministic ones (which check the
    ``expect_*`` fields a case sets); pass LLM judges here. ``max_concurrency``
    cases run at once (default 1); ``on_progress(done, total)`` is called after
    each case. ``executor`` runs the cases elsewhere, e.g. ``RayExecutor()``.

    ``snapshots`` (a folder or a :class:`SnapshotStore`) turns on snapshot mode:
    the first run records every case's output, a later run fails a case whose
    output changed (the failure holds the diff), and ``update_snapshots=True``
    accepts the new outputs. ``report.snapshots`` says what happened.
    ``metadata`` labels the run (``{"prompt_version": "v2", "tags": [...]}``); it is
    saved with the report, so :class:`~selectools.evals.runs.EvalRuns` can compare runs by it.
    """

    def __init__(
        self,
        agent: Agent,
        cases: Sequence[TestCase],
        evaluators: Sequence[Evaluator] | None = None,
        *,
        max_concurrency: int = 1,
        on_progress: ProgressCallback | None = None,
        executor: CaseExecutor | None = None,
        name: str = "eval",
        snapshots: SnapshotStore | str | os.PathLike[str] | None = None,
        update_snapshots: bool = False,
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(max_concurrency, int) or max_concurrency < 1:
            raise ValueError(f"max_concurrency must be an int >= 1, got {max_concurrency!r}")
        bad = [c for c in cases if not isinstance(c, TestCase)]
        if bad:
            raise EvalError(f"cases must be TestCase objects, got {type(bad[0]).__name__}")
        for evaluator in evaluators or ():
            if not isinstance(evaluator, Evaluator):
                raise EvalError(
                    f"{type(evaluator).__name__} is not an evaluator: it needs a `name` "
                    "and evaluate(case, run) -> list[EvalFailure]"
                )
        self.agent = agent
        self.cases = list(cases)
        extra = list(evaluators or ())
        given = {type(e) for e in extra}
        self.evaluators: list[Evaluator] = [
            e for e in deterministic_evaluators() if type(e) not in given
        ] + extra
        self.max_concurrency = max_concurrency
        self.on_progress = on_progress
        self.executor = executor
        self.name = name
        if snapshots is not None and not isinstance(snapshots, SnapshotStore):
            snapshots = SnapshotStore(snapshots)
        self.snapshots = snapshots
        self.update_snapshots = update_snapshots
        self.metadata = dict(metadata or {})
        self._watchers: list[SuiteWatcher] = []

    def watch(self, watcher: SuiteWatcher) -> None:
        """Tell ``watcher`` about every later run: its start, each finished case, the report."""
        if watcher not in self._watchers:
            self._watchers.append(watcher)

    def unwatch(self, watcher: SuiteWatcher) -> None:
        if watcher in self._watchers:
            self._watchers.remove(watcher)

    def __repr__(self) -> str:
        return f"EvalSuite(name={self.name!r}, cases={len(self.cases)}, max_concurrency={self.max_concurrency})"

    # -- running -----------------------------------------------------------------
    def run(self) -> EvalReport:
        """Run every case (concurrently up to ``max_concurrency``) and return the report."""
        started = time.time()
        total = len(self.cases)
        lock = threading.Lock()
        done = 0
        self._started(total)

        def tick(count: int = 1) -> None:
            nonlocal done
            with lock:
                done += count
                if self.on_progress is not None:
                    self.on_progress(done, total)

        if self.executor is not None:
            results = self.executor.run_cases(self, self.cases, tick)
        else:
            results = self.run_cases(self.cases, tick, self._case_finished)
        return self._report(results, started)

    def run_cases(
        self,
        cases: Sequence[TestCase],
        on_done: Callable[[int], None] | None = None,
        on_result: Callable[[int, CaseResult], None] | None = None,
    ) -> list[CaseResult]:
        """Run ``cases`` in this process with threads; results in case order."""

        def one(index: int) -> CaseResult:
            outcome = self.run_case(cases[index])
            if on_result is not None:
                on_result(index, outcome)
            if on_done is not None:
                on_done(1)
            return outcome

        if not cases:
            return []
        workers = min(self.max_concurrency, len(cases))
        if workers == 1:
            return [one(i) for i in range(len(cases))]
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="selectools-eval") as pool:
            return list(pool.map(one, range(len(cases))))

    async def arun(self) -> EvalReport:
        """Async :meth:`run`: ``agent.arun`` per case, at most ``max_concurrency`` at once."""
        started = time.time()
        total = len(self.cases)
        done = 0
        self._started(total)

        async def one(index: int, case: TestCase) -> CaseResult:
            nonlocal done
            outcome = await self.arun_case(case)
            self._case_finished(index, outcome)
            done += 1
            if self.on_progress is not None:
                self.on_progress(done, total)
            return outcome

        results = await gather_bounded(self.cases, one, self.max_concurrency)
        return self._report(results, started)

    def run_case(self, case: TestCase) -> CaseResult:
        """Run one case on a fresh copy of the agent and grade it."""
        if case.skip:
            return CaseResult(case=case, verdict=CaseVerdict.SKIP)
        agent = fresh_agent(self.agent)
        began = time.perf_counter()
        try:
            result = agent.run(case.input, response_format=case.response_format)
        except Exception as exc:
            return self._errored(case, exc, (time.perf_counter() - began) * 1000)
        latency = (time.perf_counter() - began) * 1000
        return self._grade(case, result, latency)

    async def arun_case(self, case: TestCase) -> CaseResult:
        if case.skip:
            return CaseResult(case=case, verdict=CaseVerdict.SKIP)
        agent = fresh_agent(self.agent)
        began = time.perf_counter()
        try:
            result = await agent.arun(case.input, response_format=case.response_format)
        except Exception as exc:
            return self._errored(case, exc, (time.perf_counter() - began) * 1000)
        latency = (time.perf_counter() - began) * 1000
        if any(not isinstance(e, _SYNC_CHEAP) for e in self.evaluators):
            return await asyncio.to_thread(self._grade, case, result, latency)
        return self._grade(case, result, latency)

    # -- grading -----------------------------------------------------------------
    def _grade(self, case: TestCase, result: Any, latency_ms: float) -> CaseResult:
        usage = result.usage
        run = CaseRun(
            output=result.content,
            result=result,
            tool_calls=list(result.tool_calls),
            parsed=result.parsed,
            latency_ms=latency_ms,
            cost_usd=usage.total_cost_usd if usage is not None else 0.0,
            tokens=usage.total_tokens if usage is not None else 0,
            iterations=result.iterations,
        )
        outcome = CaseResult(
            case=case,
            verdict=CaseVerdict.PASS,
            output=run.output,
            tool_calls=[c.tool_name for c in run.tool_calls],
            latency_ms=latency_ms,
            cost_usd=run.cost_usd,
            tokens=run.tokens,
            iterations=run.iterations,
            trace_id=result.run_id,
            scores=run.scores,
            result=result,
        )
        if result.error is not None:
            outcome.verdict = CaseVerdict.ERROR
            outcome.error = f"{type(result.error).__name__}: {result.error}"
            return outcome
        failures: list[EvalFailure] = []
        for evaluator in self.evaluators:
            try:
                failures += evaluator.evaluate(case, run)
            except JudgeReplyError as exc:
                outcome.verdict = CaseVerdict.ERROR
                outcome.error = str(exc)
                outcome.failures = [
                    *failures,
                    EvalFailure(
                        exc.evaluator, "unreadable judge reply", "SCORE: <0-10>", exc.reply
                    ),
                ]
                return outcome
            except Exception as exc:
                outcome.verdict = CaseVerdict.ERROR
                outcome.error = f"{evaluator.name}: {type(exc).__name__}: {exc}"
                outcome.failures = failures
                return outcome
        outcome.failures = failures
        if failures:
            outcome.verdict = CaseVerdict.FAIL
        return outcome

    @staticmethod
    def _errored(case: TestCase, exc: BaseException, latency_ms: float) -> CaseResult:
        return CaseResult(
            case=case,
            verdict=CaseVerdict.ERROR,
            latency_ms=latency_ms,
            error=f"{type(exc).__name__}: {exc}",
        )

    # -- watchers ----------------------------------------------------------------
    def _started(self, total: int) -> None:
        for watcher in list(self._watchers):
            watcher.suite_started(self, total)

    def _case_finished(self, index: int, result: CaseResult) -> None:
        for watcher in list(self._watchers):
            watcher.case_finished(index, result)

    def _report(self, results: list[CaseResult], started: float) -> EvalReport:
        from .report import EvalReport

        report = EvalReport(
            results,
            name=self.name,
            started_at=started,
            duration_s=time.time() - started,
            model=getattr(self.agent, "model", ""),
            metadata=self.metadata,
        )
        if self.snapshots is not None:
            report.snapshots = self.snapshots.check(report, update=self.update_snapshots)
        for watcher in list(self._watchers):
            watcher.suite_finished(report)
        return report


def _cheap_types() -> tuple[type, ...]:
    return tuple(type(e) for e in deterministic_evaluators())


_SYNC_CHEAP = _cheap_types()
