"""``Agent.batch`` / ``abatch``: 1,000 prompts at concurrency 50 against a 20 ms scripted model.

The ideal wall time is the model's latency alone: 1,000 / 50 x 20 ms = 0.40 s;
the target is within 1.25x of it. Next to it, measured in the same run, the
floor a Python process reaches on this machine with no agent at all: the same
1,000 waits of 20 ms at concurrency 50 (asyncio tasks, and a thread pool), so
what the machine's load adds shows apart from what the agent adds. Also printed:
the batch's CPU time per prompt (the agent loop and the scripted provider).

Run: ``python benchmarks/bench_batch.py [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from selectools import Agent
from selectools.testing import ScriptedProvider

PROMPTS = 1000
CONCURRENCY = 50
LATENCY = 0.020
IDEAL = PROMPTS / CONCURRENCY * LATENCY


async def bare_async() -> None:
    pending = iter(range(PROMPTS))

    async def worker() -> None:
        for _ in pending:
            await asyncio.sleep(LATENCY)

    await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))


def bare_threads() -> None:
    with ThreadPoolExecutor(CONCURRENCY) as pool:
        list(pool.map(lambda _: time.sleep(LATENCY), range(PROMPTS)))


def timed(run: Callable[[], object]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    agent = Agent(
        provider=ScriptedProvider(lambda r: f"re: {r.last_message.content}", latency=LATENCY)
    )
    prompts = [f"prompt {i}" for i in range(PROMPTS)]

    def batch() -> None:
        results = agent.batch(prompts, max_concurrency=CONCURRENCY, progress=False)
        assert [r.content for r in results] == [f"re: {p}" for p in prompts]

    def abatch() -> None:
        results = asyncio.run(agent.abatch(prompts, max_concurrency=CONCURRENCY, progress=False))
        assert [r.content for r in results] == [f"re: {p}" for p in prompts]

    runs = {
        "bare asyncio (floor)": lambda: asyncio.run(bare_async()),
        "bare threads (floor)": bare_threads,
        "agent.abatch": abatch,
        "agent.batch": batch,
    }
    for run in runs.values():  # warm up imports, pools and caches
        run()
    measured: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    for _ in range(args.rounds):  # interleaved, so each sees the same background load
        for name, run in runs.items():
            measured[name].append(timed(run))
    print(
        f"{PROMPTS} prompts, max_concurrency={CONCURRENCY}, model latency {LATENCY * 1000:.0f} ms: "
        f"ideal {IDEAL:.2f} s; {args.rounds} rounds (medians); load {os.getloadavg()[0]:.2f}"
    )
    floors = {"agent.abatch": "bare asyncio (floor)", "agent.batch": "bare threads (floor)"}
    for name, samples in measured.items():
        wall = statistics.median(w for w, _ in samples)
        cpu = statistics.median(c for _, c in samples)
        line = f"  {name:<22} {wall / IDEAL:.2f}x ideal  CPU {cpu / PROMPTS * 1e6:5.0f} us/prompt"
        if name in floors:
            floor = statistics.median(w for w, _ in measured[floors[name]])
            line += f"  {wall / floor:.2f}x its floor  (target <= 1.25x ideal)"
        print(line)


if __name__ == "__main__":
    main()
