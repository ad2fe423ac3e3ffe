"""``selectools serve`` under load, measured with ``wrk`` (a C load generator), against a bare app.

Two servers run side by side, each in its own process(es) on uvicorn:

* **selectools**: ``selectools serve serve_apps:agent`` (the agent's
  ``ScriptedProvider`` waits ``--latency`` before it echoes the prompt, streamed
  word by word);
* **reference**: ``serve_apps:reference``, a bare Starlette app that reads the
  same JSON, sleeps the same latency and answers the same shapes.

``wrk`` holds ``--connections`` keep-alive connections open (``POST /invoke``,
then ``POST /stream`` to the last SSE event), and a Lua script checks every
response (status 200 and the echoed prompt; ``[DONE]`` for the stream). Reported
per server and endpoint: p50/p99 latency, throughput, server CPU per request;
then the figures the issue targets, from the same run: the p50 overhead over the
model latency (selectools and the reference; the server's own cost is the
difference) and ``/stream`` p50 over ``/invoke`` p50. ``--workers 1 2`` repeats
it with two worker processes. wrk's own ceiling (the reference with no latency)
is printed so its limit is visible. Two cores shared with the load generator
and other work make absolute times noisy: read the ratios, with the load average
printed next to them.

``--soak MINUTES`` then keeps selectools under load (``/invoke`` and ``/stream``
alternating) and prints its memory (RSS) and open file descriptors per interval
and their growth from the first to the last.

Run: ``python benchmarks/bench_serve.py [--connections 200] [--latency 0.05]
[--duration 10] [--workers 1 2] [--soak 10]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent

LUA = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"prompt": "hello there"}'
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) bad = 0 end
function response(status, headers, body)
  if status ~= 200 or not string.find(body, "echo: hello there", 1, true)
     or (STREAM and not string.find(body, "[DONE]", 1, true)) then
    bad = bad + 1
  end
end
function done(summary, latency, requests)
  local bad = 0
  for _, t in ipairs(threads) do bad = bad + t:get("bad") end
  local e = summary.errors
  io.write(string.format(
    'RESULT {"p50": %d, "p99": %d, "requests": %d, "duration_us": %d, "bad": %d, '
    .. '"socket_errors": %d, "non2xx": %d}\\n',
    latency:percentile(50), latency:percentile(99), summary.requests, summary.duration,
    bad, e.connect + e.read + e.write + e.timeout, e.status))
end
"""


@dataclass
class Load:
    p50_ms: float
    p99_ms: float
    rps: float
    cpu_ms: float | None  # server CPU per request


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (Linux /proc)."""
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            with contextlib.suppress(OSError):
                pending += [int(c) for c in (task / "children").read_text().split()]
    return found


def cpu_seconds(pid: int) -> float:
    total = 0.0
    for each in process_tree(pid):
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def rss_and_fds(pid: int) -> tuple[float, int]:
    """Resident memory (MB) and open file descriptors of ``pid`` and its workers."""
    rss, fds = 0.0, 0
    for each in process_tree(pid):
        try:
            status = Path(f"/proc/{each}/status").read_text()
            fds += len(os.listdir(f"/proc/{each}/fd"))
        except OSError:
            continue
        match = re.search(r"VmRSS:\s+(\d+) kB", status)
        rss += int(match.group(1)) / 1024 if match else 0.0
    return rss, fds


class Server:
    """A server process on a free port, stopped (SIGTERM, then SIGKILL) on exit."""

    def __init__(self, kind: str, workers: int, latency: float) -> None:
        self.port = free_port()
        env = {
            **os.environ,
            "PYTHONPATH": f"{ROOT}{os.pathsep}{HERE}",
            "BENCH_LATENCY": str(latency),
        }
        if kind == "selectools":
            command = [sys.executable, "-m", "selectools", "serve", "serve_apps:agent"]
            command += ["--port", str(self.port), "--workers", str(workers)]
            command += ["--no-playground", "--max-connections", "10000"]
        else:
            command = [sys.executable, "-m", "uvicorn", "serve_apps:reference", "--port"]
            command += [str(self.port), "--workers", str(workers), "--log-level", "warning"]
            command += ["--no-access-log", "--lifespan", "off"]
        self.proc = subprocess.Popen(
            command, cwd=HERE, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{kind} server failed: {self.proc.stderr.read()!r}")  # type: ignore[union-attr]
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                time.sleep(0.2)
        else:
            self.stop()
            raise RuntimeError(f"{kind} server did not start")
        time.sleep(1.0 if workers > 1 else 0.2)  # let every worker reach its accept loop

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def wrk(server: Server, endpoint: str, connections: int, duration: float, script: Path) -> Load:
    before = cpu_seconds(server.proc.pid)
    done = subprocess.run(
        [
            "wrk",
            "-t2",
            f"-c{connections}",
            f"-d{round(duration)}s",
            "--timeout",
            "30s",
            "-s",
            str(script),
            f"{server.url}{endpoint}",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    cpu = cpu_seconds(server.proc.pid) - before
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    result = json.loads(line[len("RESULT ") :])
    if result["bad"] or result["socket_errors"] or result["non2xx"]:
        raise SystemExit(f"{endpoint}: failed responses under load: {result}\n{done.stdout}")
    requests = result["requests"]
    return Load(
        p50_ms=result["p50"] / 1000,
        p99_ms=result["p99"] / 1000,
        rps=requests / (result["duration_us"] / 1e6),
        cpu_ms=cpu / requests * 1000 if requests else None,
    )


def scripts(folder: Path) -> dict[str, Path]:
    paths = {}
    for endpoint, stream in (("/invoke", "false"), ("/stream", "true")):
        path = folder / f"{endpoint.strip('/')}.lua"
        path.write_text(f"STREAM = {stream}\n{LUA}")
        paths[endpoint] = path
    return paths


def show(name: str, endpoint: str, load: Load) -> None:
    cpu = f"{load.cpu_ms:.2f} ms" if load.cpu_ms is not None else "?"
    print(
        f"  {name:<10} {endpoint:<7} p50 {load.p50_ms:7.1f} ms  p99 {load.p99_ms:7.1f} ms  "
        f"{load.rps:7.0f} req/s  server CPU/request {cpu}"
    )


def measure(args: argparse.Namespace, workers: int, lua: dict[str, Path]) -> None:
    latency_ms = args.latency * 1000
    loads: dict[tuple[str, str], list[Load]] = {}
    with (
        Server("selectools", workers, args.latency) as ours,
        Server("reference", workers, args.latency) as reference,
    ):
        for server in (ours, reference):  # warm up both (imports, first requests)
            for endpoint in lua:
                wrk(server, endpoint, args.connections, 2, lua[endpoint])
        for _ in range(args.rounds):  # interleave, so both see the same background load
            for name, server in (("selectools", ours), ("reference", reference)):
                for endpoint in lua:
                    load = wrk(server, endpoint, args.connections, args.duration, lua[endpoint])
                    loads.setdefault((name, endpoint), []).append(load)
    med = statistics.median

    def median_load(name: str, endpoint: str) -> Load:
        runs = loads[(name, endpoint)]
        cpus = [r.cpu_ms for r in runs if r.cpu_ms is not None]
        return Load(
            med(r.p50_ms for r in runs),
            med(r.p99_ms for r in runs),
            med(r.rps for r in runs),
            med(cpus) if cpus else None,
        )

    print(
        f"\n{workers} worker(s), {args.connections} connections, model latency {latency_ms:.0f} ms, "
        f"{args.rounds} x {args.duration:.0f} s per endpoint (medians), load {os.getloadavg()[0]:.2f}"
    )
    table = {key: median_load(*key) for key in loads}
    for key, load in table.items():
        show(*key, load)
    for endpoint in lua:
        ours_p50 = table[("selectools", endpoint)].p50_ms
        ref_p50 = table[("reference", endpoint)].p50_ms
        ours_rps = table[("selectools", endpoint)].rps
        ref_rps = table[("reference", endpoint)].rps
        print(
            f"  {endpoint}: p50 overhead over the model {ours_p50 - latency_ms:5.1f} ms "
            f"(reference {ref_p50 - latency_ms:4.1f} ms; selectools' own "
            f"{ours_p50 - ref_p50:5.1f} ms = {(ours_p50 - ref_p50) / latency_ms:.2f}x the model "
            f"latency); throughput {ours_rps / ref_rps:.2f}x the reference (target: overhead <= "
            f"{0.1 * latency_ms:.0f} ms)"
        )
    for name in ("selectools", "reference"):
        ratio = table[(name, "/stream")].p50_ms / table[(name, "/invoke")].p50_ms
        print(f"  {name}: /stream p50 = {ratio:.2f}x /invoke p50 (target <= 1.5x)")


def ceiling(args: argparse.Namespace, lua: dict[str, Path]) -> None:
    """The reference with no model latency: how many requests wrk and uvicorn manage at all."""
    with Server("reference", 1, 0.0) as reference:
        load = wrk(reference, "/invoke", args.connections, 3, lua["/invoke"])
    print(
        f"wrk ceiling: the reference with no model latency answers {load.rps:.0f} req/s "
        f"(p50 {load.p50_ms:.1f} ms); 200 connections x 50 ms need "
        f"{args.connections / args.latency:.0f} req/s"
    )


def soak(args: argparse.Namespace, lua: dict[str, Path]) -> None:
    interval = 30.0
    rounds = max(2, round(args.soak * 60 / interval))
    print(f"\nsoak: {args.soak:g} min of /invoke and /stream at {args.connections} connections")
    with Server("selectools", args.workers[0], args.latency) as ours:
        for endpoint in lua:  # warm up both paths, then take the baseline
            wrk(ours, endpoint, args.connections, 5, lua[endpoint])
        time.sleep(1)  # closed connections released
        samples = [rss_and_fds(ours.proc.pid)]
        print(f"  after warm-up          RSS {samples[0][0]:7.1f} MB  fds {samples[0][1]}")
        for i in range(rounds):
            endpoint = "/invoke" if i % 2 == 0 else "/stream"
            load = wrk(ours, endpoint, args.connections, interval, lua[endpoint])
            time.sleep(1)
            rss, fds = rss_and_fds(ours.proc.pid)
            samples.append((rss, fds))
            print(
                f"  {(i + 1) * interval / 60:5.1f} min  {endpoint:<7} {load.rps:6.0f} req/s  "
                f"RSS {rss:7.1f} MB  fds {fds}"
            )
    (rss0, fd0), (rss1, fd1) = samples[0], samples[-1]
    half = samples[len(samples) // 2][0]
    print(
        f"  growth over the soak: RSS {rss1 - rss0:+.1f} MB ({rss1 / rss0 - 1:+.1%}; second half "
        f"{rss1 - half:+.1f} MB), fds {fd1 - fd0:+d}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--duration", type=float, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, nargs="+", default=[1])
    parser.add_argument("--soak", type=float, default=0, help="minutes of soak (0: none)")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as folder:
        lua = scripts(Path(folder))
        ceiling(args, lua)
        for workers in args.workers:
            measure(args, workers, lua)
        if args.soak:
            soak(args, lua)


if __name__ == "__main__":
    main()
