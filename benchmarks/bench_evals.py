"""EvalSuite at scale: per-case overhead against a bare loop, and 10,000 cases on Ray.

Local: 1,000 cases at ``max_concurrency=50`` against a 20 ms model, through
``run`` (threads) and ``arun`` (asyncio). The ideal is the model's latency alone
(1,000 / 50 x 20 ms = 0.40 s; target within 1.25x).
The reference, measured in the same run, is a bare loop calling the same agent
from the same thread pool (``agent.run(case.input)``, no copy, no grading, no
report); the suite's own cost per case is its CPU time per case minus the bare
loop's.

Ray: ``--ray-cases`` (default 10,000) cases on a local cluster
(``ray.init(num_cpus=2)``), against the ideal (cases / 50 x 20 ms) and against
the same cases run locally; where the time goes: cluster start, shipping the
suite (its pickled size), the first chunk back, the last chunk back. The Ray
report must equal the local one (wall-clock latencies and run ids aside).

Run: ``python benchmarks/bench_evals.py [--rounds 5] [--ray-cases 10000] [--no-ray]``.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import os
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from selectools import Agent, AgentConfig
from selectools.evals import EvalSuite, TestCase
from selectools.testing import ScriptedProvider

CASES = 1000
CONCURRENCY = 50
LATENCY = 0.020


def answer(request: Any) -> str:
    return f"Answer to {request.last_message.content}"


def make_agent() -> Agent:
    return Agent(
        provider=ScriptedProvider(answer, latency=LATENCY), config=AgentConfig(model="gpt-4o-mini")
    )


def cases(count: int) -> list[TestCase]:
    return [
        TestCase(
            input=f"question {i}",
            expect_contains=f"question {i}" if i % 10 else "never",
            tags=["odd" if i % 2 else "even"],
        )
        for i in range(count)
    ]


def suite(count: int = CASES, **options: Any) -> EvalSuite:
    return EvalSuite(make_agent(), cases(count), max_concurrency=CONCURRENCY, **options)


def bare(count: int = CASES) -> None:
    """The reference: the same agent and pool, no copy, no grading, no report."""
    agent, inputs = make_agent(), [c.input for c in cases(count)]
    with ThreadPoolExecutor(CONCURRENCY) as pool:
        outputs = list(pool.map(lambda prompt: agent.run(prompt).content, inputs))
    assert outputs[7] == "Answer to question 7"


def comparable(report: Any) -> dict[str, Any]:
    data: dict[str, Any] = report.to_dict()
    for key in ("started_at", "duration_s"):
        data.pop(key)
    for key in ("latency_p50", "latency_p95", "latency_p99"):
        data["metrics"].pop(key)
    for result in data["results"]:
        result.pop("latency_ms")
        result.pop("trace_id")
    return data


def timed(run: Callable[[], object]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def local(rounds: int) -> None:
    ideal = CASES / CONCURRENCY * LATENCY
    runs: dict[str, Callable[[], object]] = {
        "bare loop": bare,
        "EvalSuite.run": lambda: suite().run(),
        "EvalSuite.arun": lambda: asyncio.run(suite().arun()),
    }
    for run in runs.values():  # warm up imports and the thread pool path
        run()
    measured: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    for _ in range(rounds):  # interleaved: both see the same background load
        for name, run in runs.items():
            measured[name].append(timed(run))
    walls = {n: statistics.median(w for w, _ in m) for n, m in measured.items()}
    cpus = {n: statistics.median(c for _, c in m) for n, m in measured.items()}
    print(
        f"local: {CASES} cases, max_concurrency={CONCURRENCY}, model latency "
        f"{LATENCY * 1000:.0f} ms, ideal {ideal:.2f} s; {rounds} rounds (medians); "
        f"load {os.getloadavg()[0]:.2f}"
    )
    for name in runs:
        print(
            f"  {name:<14} {walls[name] / ideal:.2f}x ideal  CPU {cpus[name] / CASES * 1e6:5.0f} "
            "us/case"
        )
    own = (cpus["EvalSuite.run"] - cpus["bare loop"]) / CASES * 1e6
    print(
        f"  suite / bare loop: {walls['EvalSuite.run'] / walls['bare loop']:.2f}x wall; the "
        f"suite's own CPU per case {own:.0f} us (target: suite <= 1.25x ideal)"
    )


def on_ray(count: int) -> None:
    import pickle

    import ray

    from selectools.evals import RayExecutor
    from selectools.evals.executors import _dumps

    ideal = count / CONCURRENCY * LATENCY
    began = time.perf_counter()
    local_report = suite(count).run()
    local_wall = time.perf_counter() - began
    began = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    startup = time.perf_counter() - began
    try:
        shipped = copy.copy(suite(count))  # what RayExecutor ships once: no cases, no callbacks
        shipped.cases, shipped.on_progress, shipped.executor = [], None, None
        began = time.perf_counter()
        blob = _dumps(shipped)
        pickled = time.perf_counter() - began
        pickle.loads(blob)
        progress: list[float] = []
        began = time.perf_counter()
        remote = suite(
            count,
            executor=RayExecutor(),
            on_progress=lambda done, total: progress.append(time.perf_counter() - began),
        ).run()
        wall = time.perf_counter() - began
    finally:
        ray.shutdown()
    same = comparable(remote) == comparable(local_report)
    print(
        f"\nray: {count} cases on a local cluster (num_cpus=2), ideal {ideal:.2f} s; "
        f"load {os.getloadavg()[0]:.2f}"
    )
    print(
        f"  ray run {wall:.2f} s = {wall / ideal:.2f}x ideal, {wall / local_wall:.2f}x the local run "
        f"({local_wall:.2f} s = {local_wall / ideal:.2f}x ideal); report identical: {same}"
    )
    print(
        f"  where the time goes: cluster start {startup:.1f} s (not in the run); suite pickled "
        f"{len(blob) / 1e3:.1f} kB in {pickled * 1000:.0f} ms; first chunk back at "
        f"{progress[0]:.2f} s, last at {progress[-1]:.2f} s; report built in "
        f"{wall - progress[-1]:.2f} s"
    )
    if not same:
        raise SystemExit("the Ray report differs from the local report")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--ray-cases", type=int, default=10_000)
    parser.add_argument("--no-ray", action="store_true")
    args = parser.parse_args()
    local(args.rounds)
    if not args.no_ray:
        on_ray(args.ray_cases)


if __name__ == "__main__":
    main()
