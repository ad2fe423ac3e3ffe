"""EvalSuite throughput: 1,000 cases at max_concurrency=50 against a 20 ms model.

The ideal is the model's latency alone: 1,000 cases / 50 at a time x 20 ms =
0.40 s; the target is within 1.25x of it (suite overhead: the fresh agent per
case, the agent loop, the evaluators, the thread pool). The same suite then
runs on a local Ray cluster (``ray.init(num_cpus=2)``), and its report must
match the local one exactly (wall-clock latencies and run ids aside).

Ratios only: the ideal is computed, the runs are measured in this process.
Run: ``python benchmarks/bench_evals.py [--rounds R] [--no-ray]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

from selectools import Agent, AgentConfig
from selectools.evals import EvalSuite, TestCase
from selectools.testing import ScriptedProvider

CASES = 1000
CONCURRENCY = 50
LATENCY = 0.020
IDEAL = CASES / CONCURRENCY * LATENCY


def answer(request):
    return f"Answer to {request.last_message.content}"


def suite(**options) -> EvalSuite:
    agent = Agent(
        provider=ScriptedProvider(answer, latency=LATENCY), config=AgentConfig(model="gpt-4o-mini")
    )
    cases = [
        TestCase(
            input=f"question {i}",
            expect_contains=f"question {i}" if i % 10 else "never",
            tags=["odd" if i % 2 else "even"],
        )
        for i in range(CASES)
    ]
    return EvalSuite(agent, cases, max_concurrency=CONCURRENCY, **options)


def comparable(report) -> dict:
    data = report.to_dict()
    for key in ("started_at", "duration_s"):
        data.pop(key)
    for key in ("latency_p50", "latency_p95", "latency_p99"):
        data["metrics"].pop(key)
    for result in data["results"]:
        result.pop("latency_ms")
        result.pop("trace_id")
    return data


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-ray", action="store_true")
    args = parser.parse_args()
    suite().run()  # warm up imports and the thread pool path
    times = []
    report = None
    for _ in range(args.rounds):
        began = time.perf_counter()
        report = suite().run()
        times.append(time.perf_counter() - began)
    median = statistics.median(times)
    assert report is not None
    print(
        f"local: {CASES} cases, max_concurrency={CONCURRENCY}, model latency {LATENCY * 1000:.0f} ms"
    )
    print(f"  runs (s): {', '.join(f'{t:.3f}' for t in times)}")
    print(
        f"  median {median:.3f} s vs ideal {IDEAL:.3f} s -> {median / IDEAL:.2f}x (target <= 1.25x)"
    )
    print(
        f"  accuracy {report.accuracy:.1%}, p50 {report.latency_p50:.1f} ms, cost ${report.total_cost:.4f}"
    )
    if args.no_ray:
        return
    import ray

    from selectools.evals import RayExecutor

    began = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    print(f"ray: local cluster started in {time.perf_counter() - began:.1f} s")
    try:
        began = time.perf_counter()
        remote = suite(executor=RayExecutor()).run()
        elapsed = time.perf_counter() - began
    finally:
        ray.shutdown()
    same = comparable(remote) == comparable(report)
    print(
        f"  ray run {elapsed:.3f} s ({elapsed / IDEAL:.2f}x ideal); report identical to local: {same}"
    )
    if not same:
        raise SystemExit("the Ray report differs from the local report")


if __name__ == "__main__":
    main()
