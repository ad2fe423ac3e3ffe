"""The Ray executor against a local cluster: evals and Agent.batch give what a local run gives."""

from __future__ import annotations

import threading

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


class UserThing:
    """A user's own object holding a lock: Ray cannot serialise it unless the user says how."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.value = 42


def test_an_eval_run_leaves_the_serialisation_of_user_objects_alone(ray_cluster):
    with pytest.raises(TypeError, match="lock"):
        ray_cluster.put(UserThing())  # without selectools
    assert len(suite_for(executor=RayExecutor()).run().results) == 60
    with pytest.raises(TypeError, match="lock"):
        ray_cluster.put(UserThing())  # the same after a run: nothing registered process-wide
    with pytest.raises(TypeError, match="lock"):
        ray_cluster.cloudpickle.dumps(UserThing())


def test_a_users_own_lock_serializer_survives_a_run(ray_cluster):
    lock_type = type(threading.Lock())
    ray_cluster.util.register_serializer(
        lock_type, serializer=lambda _: "user", deserializer=lambda s: f"sent by {s}"
    )
    try:
        suite_for(executor=RayExecutor()).run()
        thing = ray_cluster.get(ray_cluster.put(UserThing()))
        assert thing.lock == "sent by user" and thing.value == 42
    finally:
        ray_cluster.util.deregister_serializer(lock_type)


# -- Agent.batch on the cluster ------------------------------------------------------------------


def batch_table():
    # defined in here: Ray workers get it by value (they cannot import this test module)
    def model_down():
        raise RuntimeError("model down")

    table: dict[str, object] = {f"p{i}": f"answer {i}" for i in range(23)}
    table["p5"] = model_down
    table["p17"] = model_down
    return table


def batch_view(results):
    return [(r.stop_reason, r.content, r.usage.total_tokens if r.usage else None) for r in results]


def test_agent_batch_on_ray_equals_a_local_batch(ray_cluster):
    prompts = [f"p{i}" for i in range(23)]
    local_agent = make_agent(batch_table())
    local = local_agent.batch(prompts, max_concurrency=3, progress=False)
    agent = make_agent(batch_table())
    progress: list[tuple[int, int]] = []
    remote = agent.batch(
        prompts,
        max_concurrency=3,
        on_progress=lambda done, total: progress.append((done, total)),
        progress=False,
        executor=RayExecutor(chunk_size=4),
    )
    assert batch_view(remote) == batch_view(local)
    assert [r.content for r in remote][:3] == ["answer 0", "answer 1", "answer 2"]
    failed = [i for i, r in enumerate(remote) if r.error is not None]
    assert failed == [5, 17]  # errors isolated per prompt
    assert isinstance(remote[5].error, RuntimeError) and "model down" in str(remote[5].error)
    assert progress[-1] == (23, 23) and len(progress) == 23
    assert agent.total_tokens == local_agent.total_tokens > 0  # usage comes home


def test_agent_batch_on_ray_reports_a_lost_task_on_its_prompts_only(ray_cluster):
    def dies_in_the_worker():
        import os

        os._exit(1)  # the worker process dies: Ray reports the task as failed

    table = batch_table()
    table["p9"] = dies_in_the_worker
    prompts = [f"p{i}" for i in range(12)]
    executor = RayExecutor(chunk_size=4, task_options={"max_retries": 0})
    results = make_agent(table).batch(prompts, progress=False, executor=executor)
    lost = [i for i, r in enumerate(results) if r.stop_reason == "error"]
    assert lost == [5, 8, 9, 10, 11]
    assert isinstance(results[11].error, ray_cluster.exceptions.RayError)
    assert [r.content for r in results[:5]] == [f"answer {i}" for i in range(5)]


def test_runtime_env_reaches_the_workers(ray_cluster):
    def reads_the_key():
        import os

        return os.environ.get("SELECTOOLS_TEST_KEY", "missing")

    executor = RayExecutor(runtime_env={"env_vars": {"SELECTOOLS_TEST_KEY": "sk-from-env"}})
    results = make_agent({"p": reads_the_key}).batch(["p", "p"], progress=False, executor=executor)
    assert [r.content for r in results] == ["sk-from-env", "sk-from-env"]
