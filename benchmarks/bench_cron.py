"""Our cron matcher against croniter, on the same expressions in the same run.

Why keep our own matcher: the scheduler is stdlib only, and computing the next fire time
is what it does for every job after every run. For each expression both libraries compute
the next 200 fire times from the same start; rounds alternate ours / croniter and the
report gives the median time per next-fire-time of each and the ratio (croniter / ours).
croniter is the reference (the tests check the two agree).

Run: ``python benchmarks/bench_cron.py [--rounds R]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import datetime

from croniter import croniter

from selectools.scheduler import cron

EXPRESSIONS = [
    "*/5 * * * *",
    "0 9 * * mon-fri",
    "30 2 1,15 * *",
    "0 0 * jan,jul sun",
    "@daily",
]
STEPS = 200
START = datetime(2026, 1, 1, 0, 0)


def ours(expr: str) -> float:
    schedule = cron(expr)
    moment = START
    began = time.perf_counter()
    for _ in range(STEPS):
        moment = schedule.next_after(moment)
    return (time.perf_counter() - began) / STEPS


def theirs(expr: str) -> float:
    iterator = croniter(expr, START)
    began = time.perf_counter()
    for _ in range(STEPS):
        iterator.get_next(datetime)
    return (time.perf_counter() - began) / STEPS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    print(f"{'expression':<22} {'ours µs':>9} {'croniter µs':>12} {'ratio':>7}")
    ratios = []
    for expr in EXPRESSIONS:
        a: list[float] = []
        b: list[float] = []
        for _ in range(rounds):
            a.append(ours(expr))
            b.append(theirs(expr))
        mine, ref = statistics.median(a), statistics.median(b)
        ratios.append(ref / mine)
        print(f"{expr:<22} {mine * 1e6:>9.1f} {ref * 1e6:>12.1f} {ref / mine:>6.1f}x")
    print(f"median: croniter takes {statistics.median(ratios):.1f}x as long as ours")


if __name__ == "__main__":
    main()
