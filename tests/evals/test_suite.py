"""EvalSuite: isolation between cases, concurrency, progress, async, errors and the report's numbers."""

from __future__ import annotations

import asyncio
import threading

import pytest

from selectools import Agent, AgentConfig, ConversationMemory
from selectools.evals import CaseVerdict, EvalReport, EvalSuite, TestCase
from selectools.exceptions import ProviderError
from selectools.testing import ScriptedProvider
from tests.evals.agents import make_agent


def test_each_case_runs_on_a_fresh_copy_no_shared_history_or_memory():
    memory = ConversationMemory()
    seen_history: list[int] = []

    def model(request):
        seen_history.append(len(request.messages))
        return "ok"

    agent = Agent(
        provider=ScriptedProvider(model), config=AgentConfig(model="gpt-4o"), memory=memory
    )
    agent.run("remembered before the suite")
    before = len(memory.get_history())
    seen_history.clear()
    cases = [TestCase(input=f"case {i}") for i in range(6)]
    EvalSuite(agent, cases, max_concurrency=3).run()
    # every case saw the same starting history: the pre-suite turn plus its own prompt
    assert seen_history == [before + 1] * 6
    assert len(memory.get_history()) == before  # the original agent is untouched
    assert agent.usage.total_tokens > 0 and len(agent.usage.iterations) == 1


def test_concurrency_really_overlaps_and_keeps_case_order():
    barrier = threading.Barrier(4, timeout=10)

    def model(request):
        barrier.wait()  # only returns when 4 cases are in flight at once
        return request.last_message.content.upper()

    agent = Agent(provider=ScriptedProvider(model), config=AgentConfig(model="gpt-4o"))
    cases = [TestCase(input=f"case {i}", expect_output=f"CASE {i}") for i in range(8)]
    report = EvalSuite(agent, cases, max_concurrency=4).run()
    assert [r.output for r in report.results] == [f"CASE {i}" for i in range(8)]
    assert report.accuracy == 1.0


def test_on_progress_counts_to_total():
    calls: list[tuple[int, int]] = []
    cases = [TestCase(input=str(i)) for i in range(7)]
    EvalSuite(
        make_agent({}), cases, max_concurrency=5, on_progress=lambda d, t: calls.append((d, t))
    ).run()
    assert sorted(calls) == [(i, 7) for i in range(1, 8)]
    assert calls[-1] == (7, 7)


def test_arun_gives_the_same_verdicts_as_run():
    table = {"a": "alpha", "b": "beta"}
    cases = [
        TestCase(input="a", expect_contains="alpha"),
        TestCase(input="b", expect_contains="alpha"),
        TestCase(input="a", expect_output="alpha", weight=2),
    ]
    sync = EvalSuite(make_agent(table), cases).run()
    progress: list[int] = []
    asynchronous = asyncio.run(
        EvalSuite(
            make_agent(table), cases, max_concurrency=2, on_progress=lambda d, t: progress.append(d)
        ).arun()
    )
    assert [r.verdict for r in asynchronous.results] == [r.verdict for r in sync.results]
    assert asynchronous.accuracy == sync.accuracy == 0.75
    assert sorted(progress) == [1, 2, 3]


def test_arun_limits_concurrency_and_holds_a_task_per_worker_not_per_case():
    active = 0
    peak = 0
    tasks_seen: list[int] = []

    class Counting(ScriptedProvider):
        async def _acomplete(self, llm_request):
            nonlocal active, peak
            active += 1
            peak = max(peak, active)
            tasks_seen.append(len(asyncio.all_tasks()))
            await asyncio.sleep(0.01)
            active -= 1
            return await super()._acomplete(llm_request)

    agent = Agent(provider=Counting(default="x"), config=AgentConfig(model="gpt-4o"))
    report = asyncio.run(
        EvalSuite(agent, [TestCase(input=str(i)) for i in range(40)], max_concurrency=3).arun()
    )
    assert peak == 3
    assert [r.case.input for r in report.results] == [str(i) for i in range(40)]
    assert max(tasks_seen) <= 3 + 1  # the workers and the main task, not one per case


def test_a_provider_error_is_an_error_verdict_and_other_cases_go_on():
    boom = ProviderError("quota exceeded", provider="scripted", retryable=False)
    report = EvalSuite(
        make_agent({"bad": boom, "good": "fine"}),
        [
            TestCase(input="bad", expect_contains="fine"),
            TestCase(input="good", expect_contains="fine"),
        ],
    ).run()
    assert [r.verdict for r in report.results] == [CaseVerdict.ERROR, CaseVerdict.PASS]
    assert "quota exceeded" in report.results[0].error
    assert report.accuracy == 0.5


def test_skip_and_weighted_accuracy():
    cases = [
        TestCase(input="a", expect_contains="alpha", weight=3.0, tags=["billing", "critical"]),
        TestCase(input="b", expect_contains="alpha", weight=1.0, tags=["billing"]),
        TestCase(input="c", skip=True),
    ]
    report = EvalSuite(make_agent({"a": "alpha", "b": "beta"}), cases).run()
    assert report.accuracy == 0.75
    assert (report.pass_count, report.fail_count, report.error_count, report.skip_count) == (
        1,
        1,
        0,
        1,
    )
    billing = report.filter_by_tag("billing")
    assert isinstance(billing, EvalReport) and len(billing) == 2
    assert len(report.filter_by_tag("critical")) == 1
    assert [r.case.input for r in report.filter_by_verdict(CaseVerdict.FAIL).results] == ["b"]
    assert len(report.filter_by_verdict("skip")) == 1


def test_latency_percentiles_cost_and_tokens():
    report = EvalSuite(
        make_agent({}, latency=0.002), [TestCase(input=str(i)) for i in range(20)]
    ).run()
    assert 0 < report.latency_p50 <= report.latency_p95 <= report.latency_p99
    assert report.latency_p50 >= 2.0  # milliseconds: the model waits 2 ms
    assert report.total_tokens == sum(r.tokens for r in report.results) > 0
    assert report.total_cost == pytest.approx(sum(r.cost_usd for r in report.results))
    assert report.total_cost > 0  # gpt-4o-mini is priced
    assert report.cost_per_case == pytest.approx(report.total_cost / 20)
    assert all(r.trace_id for r in report.results)


def test_bad_arguments_are_rejected_clearly():
    with pytest.raises(ValueError, match="max_concurrency"):
        EvalSuite(make_agent({}), [], max_concurrency=0)
    with pytest.raises(Exception, match="TestCase"):
        EvalSuite(make_agent({}), ["just a string"])
    with pytest.raises(Exception, match="not an evaluator"):
        EvalSuite(make_agent({}), [], [object()])
