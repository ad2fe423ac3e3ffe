"""The Ray executor against a local cluster: same results, order, costs and report as a local run."""

from __future__ import annotations

import pytest

from selectools.evals import CaseVerdict, EvalSuite, RayExecutor, TestCase
from selectools.testing import reply
from selectools.usage import UsageStats
from tests.evals.agents import make_agent

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def comparable(report):
    """The report without what differs between any two runs (wall times, run ids)."""
    data = report.to_dict()
    for key in ("started_at", "duration_s"):
        data.pop(key)
    for key in ("latency_p50", "latency_p95", "latency_p99"):
        data["metrics"].pop(key)
    for result in data["results"]:
        result.pop("latency_ms")
        result.pop("trace_id")
    return data


def suite_for(**options):
    priced = reply("alpha", usage=UsageStats(100, 50, 150, 0.0125, "gpt-4o-mini", "scripted"))
    table = {f"q{i}": ("alpha" if i % 4 else "beta") for i in range(60)}
    table["q7"] = priced
    cases = [
        TestCase(
            input=f"q{i}",
            name=f"case {i}",
            expect_contains="alpha",
            tags=["even" if i % 2 == 0 else "odd"],
            weight=1 + i % 3,
            custom_evaluator=(lambda r: len(r.content) < 10) if i % 5 == 0 else None,
        )
        for i in range(60)
    ]
    return EvalSuite(make_agent(table), cases, max_concurrency=4, name="cluster", **options)


def test_ray_run_matches_the_local_run(ray_cluster):
    local = suite_for().run()
    progress: list[int] = []
    remote = suite_for(
        executor=RayExecutor(chunk_size=7), on_progress=lambda d, t: progress.append(d)
    ).run()
    assert comparable(remote) == comparable(local)
    assert [r.case.name for r in remote.results] == [f"case {i}" for i in range(60)]
    assert remote.results[7].cost_usd == pytest.approx(0.0125)
    assert remote.total_cost == local.total_cost and remote.total_tokens == local.total_tokens
    assert remote.fail_count == 15 and remote.results[0].verdict is CaseVerdict.FAIL
    assert progress[-1] == 60 and progress == sorted(progress)
    assert remote.summary().splitlines()[1] == local.summary().splitlines()[1]
    assert all(r.trace_id for r in remote.results)


def test_results_keep_the_callers_case_objects(ray_cluster):
    suite = suite_for(executor=RayExecutor())
    report = suite.run()
    assert all(r.case is c for r, c in zip(report.results, suite.cases))
