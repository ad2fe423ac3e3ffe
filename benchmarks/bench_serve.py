"""Load test of ``selectools serve``: 200 concurrent ``POST /invoke`` against a 50 ms model.

The server runs in its own process (uvicorn, one worker) serving an agent whose
``ScriptedProvider`` waits ``--latency`` seconds before every reply (an LLM call
that costs nothing). The client (httpx, async) fires ``--requests`` requests at
once, checks every one succeeded with the expected answer, and reports p50/p99
latency and throughput. The server's own cost per request is reported next to a
reference measured in the same run: the same number of concurrent
``agent.arun()`` calls in one process, no HTTP. Overhead under load = (server p50 -
direct p50) / provider latency; on an idle server = (sequential p50 - provider
latency) / provider latency. Client and server share the machine's cores.

Run: ``python benchmarks/bench_serve.py [--requests 200] [--latency 0.05] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]

SERVER = """
import sys
from selectools import Agent
from selectools.serve import create_app
from selectools.testing import ScriptedProvider

latency = float(sys.argv[1])
provider = ScriptedProvider(lambda request: f"echo: {request.last_message.content}", latency=latency)
create_app(Agent(provider=provider)).serve(port=0)
"""


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux /proc), None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def load(url: str, n: int) -> tuple[list[float], float]:
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=n)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as client:

        async def one(i: int) -> float:
            started = time.perf_counter()
            response = await client.post("/invoke", json={"prompt": f"q{i}"})
            elapsed = time.perf_counter() - started
            assert response.status_code == 200, response.text
            assert response.json()["content"] == f"echo: q{i}", response.text
            return elapsed

        await client.get("/health")  # warm up
        started = time.perf_counter()
        times = await asyncio.gather(*(one(i) for i in range(n)))
        return list(times), time.perf_counter() - started


async def sequential(url: str, n: int) -> list[float]:
    """One request at a time: the latency of a request on an idle server."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        times = []
        for i in range(n):
            started = time.perf_counter()
            response = await client.post("/invoke", json={"prompt": f"s{i}"})
            times.append(time.perf_counter() - started)
            assert response.status_code == 200
        return times


async def direct(n: int, latency: float) -> list[float]:
    sys.path.insert(0, str(ROOT))
    from selectools import Agent
    from selectools.testing import ScriptedProvider

    provider = ScriptedProvider(lambda r: f"echo: {r.last_message.content}", latency=latency)
    agent = Agent(provider=provider)

    async def one(i: int) -> float:
        started = time.perf_counter()
        result = await Agent(provider=provider, config=agent.config).arun(f"q{i}")
        assert result.content == f"echo: q{i}"
        return time.perf_counter() - started

    return list(await asyncio.gather(*(one(i) for i in range(n))))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(args.latency)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        url = None
        for line in proc.stdout:
            match = re.search(r"serving at (http://\S+)", line)
            if match:
                url = match.group(1)
                break
        assert url, "the server did not start"
        served_p50, served_p99, throughput, direct_p50, idle_p50 = [], [], [], [], []
        server_cpu: list[float] = []
        for _ in range(args.rounds):  # alternate: served, direct, served, direct ...
            before = cpu_seconds(proc.pid)
            times, wall = asyncio.run(load(url, args.requests))
            after = cpu_seconds(proc.pid)
            if before is not None and after is not None:
                server_cpu.append((after - before) / (args.requests + 1))
            served_p50.append(percentile(times, 0.5))
            served_p99.append(percentile(times, 0.99))
            throughput.append(args.requests / wall)
            direct_p50.append(percentile(asyncio.run(direct(args.requests, args.latency)), 0.5))
            idle_p50.append(percentile(asyncio.run(sequential(url, 30)), 0.5))
    finally:
        proc.terminate()
        proc.wait(10)
    med = statistics.median
    overhead = (med(served_p50) - med(direct_p50)) / args.latency
    idle = (med(idle_p50) - args.latency) / args.latency
    print(
        f"{args.requests} concurrent POST /invoke, provider latency {args.latency * 1000:.0f} ms, "
        f"{args.rounds} rounds (medians): all succeeded"
    )
    print(
        f"  served  p50 {med(served_p50) * 1000:7.1f} ms   p99 {med(served_p99) * 1000:7.1f} ms   "
        f"throughput {med(throughput):7.1f} req/s"
    )
    print(
        f"  direct  p50 {med(direct_p50) * 1000:7.1f} ms   (agent.arun, same concurrency, no HTTP)"
    )
    if server_cpu:
        per = med(server_cpu)
        print(
            f"  server CPU per request {per * 1000:.2f} ms = {per / args.latency:.3f}x the provider "
            "latency (the server's own cost; the rest of the loaded latency is client-side queueing)"
        )
    print(f"  idle    p50 {med(idle_p50) * 1000:7.1f} ms   (one request at a time)")
    print(
        f"  server overhead per request: {overhead:.2f}x the provider latency under load, "
        f"{idle:.2f}x on an idle server"
    )


if __name__ == "__main__":
    main()
