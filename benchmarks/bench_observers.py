"""What the OpenTelemetry observer adds to a run, measured against the same run without it.

The scenario is one agent run with a tool-call turn and a final answer, a fresh
agent per iteration built outside the timed window, in two settings:

- **http** (the target): ``OpenAIProvider`` talking to the loopback
  ``FakeLLMServer`` over real HTTP, i.e. the run a user has minus the model's
  own latency;
- **scripted** (shown, not gated): ``ScriptedProvider`` in process, where a run
  costs ~50 µs and the SDK's ~15 µs per span dominates any ratio.
 Variant B attaches ``OTelObserver`` with the real SDK
``TracerProvider`` and a ``SimpleSpanProcessor`` over an exporter that drops
what it receives (the cost of creating, ending and handing off every span,
without I/O). A third variant, ``OTelObserver`` with no tracer provider
configured, shows the no-op path. Rounds alternate A B C A B C and the report
gives median ratios; the issue's target is B/A <= 2.0 (the script exits 1 above it).

Run: ``python benchmarks/bench_observers.py [iterations per round] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)

from selectools import Agent, AgentConfig, tool
from selectools.observe import OTelObserver
from selectools.testing import ScriptedProvider, reply, tool_call
from selectools.testing.fake_server import FakeLLMServer

TARGET = 2.0


class DropExporter(SpanExporter):
    """Accepts every batch and keeps nothing: the exporter's own cost is zero."""

    def __init__(self) -> None:
        self.count = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.count += len(spans)
        return SpanExportResult.SUCCESS


@tool(description="Searches the catalogue.")
def search(query: str) -> str:
    return f"Results for {query}"


def make_agent(observers: list[object], server: FakeLLMServer | None = None) -> Agent:
    provider: object
    if server is None:
        provider = ScriptedProvider([reply("looking", tool_call("search", query="x")), "Found it."])
    else:
        from selectools import OpenAIProvider

        server.add(reply("looking", tool_call("search", query="x")), "Found it.")
        provider = OpenAIProvider(api_key="bench", base_url=server.openai_base_url)
    return Agent(tools=[search], provider=provider, config=AgentConfig(observers=list(observers)))


def time_runs(factory: Callable[[], Agent], n: int) -> float:
    agents = [factory() for _ in range(n)]
    gc.collect()
    started = time.perf_counter()
    for agent in agents:
        agent.run("Find it")
    return (time.perf_counter() - started) / n


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("iterations", nargs="?", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    exporter = DropExporter()
    tp = TracerProvider()
    tp.add_span_processor(SimpleSpanProcessor(exporter))
    with_otel = OTelObserver(tracer_provider=tp)
    unconfigured = OTelObserver()  # no global provider set: the no-op path

    ratios = {}
    with FakeLLMServer() as server:
        for setting, srv, n in (
            ("scripted", None, args.iterations),
            ("http", server, max(args.iterations // 10, 20)),
        ):
            variants: dict[str, Callable[[], Agent]] = {
                "plain": lambda srv=srv: make_agent([], srv),
                "otel": lambda srv=srv: make_agent([with_otel], srv),
                "otel-noop": lambda srv=srv: make_agent([unconfigured], srv),
            }
            for factory in variants.values():  # warm up
                time_runs(factory, 20)
            times: dict[str, list[float]] = {name: [] for name in variants}
            for _ in range(args.rounds):
                for name, factory in variants.items():
                    times[name].append(time_runs(factory, n))
            medians = {name: statistics.median(values) for name, values in times.items()}
            base = medians["plain"]
            print(f"[{setting}] {n} runs x {args.rounds} rounds")
            for name, value in medians.items():
                print(f"  {name:10s} {value * 1e6:9.1f} µs/run   {value / base:5.2f}x plain")
            ratios[setting] = medians["otel"] / base
    print(f"spans exported: {exporter.count}")
    ratio = ratios["http"]
    verdict = "OK" if ratio <= TARGET else "OVER TARGET"
    print(
        f"OTel observer (http run): {ratio:.2f}x the run without it (target <= {TARGET:.1f}x): "
        f"{verdict}; in-process scripted run: {ratios['scripted']:.2f}x"
    )
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
