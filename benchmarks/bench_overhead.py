"""What a user pays for selectools, next to the public selectools 1.3.0 measured in the same run.

Three costs, each measured for this checkout and for ``selectools==1.3.0`` from the
package index:

- **import**: ``from selectools import Agent, tool`` in a fresh process (timed
  in-process around that statement), with the peak memory (``ru_maxrss``) of the
  process afterwards;
- **run**: ``agent.run()`` with ``LocalProvider`` and one tool, a fresh agent per
  iteration built outside the timed window;
- **tool turn**: one tool-call turn: a provider written to the documented keyword
  protocol (``complete(*, model, system_prompt, messages, tools, ...)`` returning
  ``(Message, UsageStats)``) answers with one tool call, then with text.

1.3.0 shares our import name, so it lives in its own virtualenv (created once
under ``$SELECTOOLS_BENCH_CACHE`` or ``~/.cache/selectools-bench``, with
``python -m venv`` and ``pip install selectools==1.3.0``). The same scenario
script (``SCENARIO`` below, written only against the API both versions document)
runs in both interpreters, ours with ``PYTHONPATH`` at this checkout; the rounds
alternate A B A B and the report gives median ratios. Nothing is compared with a
stored number: the issue's targets are ratios to 1.3.0 (run ≤ 0.25×, tool turn
≤ 0.40×) and absolute import figures (≤ 60 ms in-process, ≤ 30 MiB peak).

Run: ``python benchmarks/bench_overhead.py [iterations per round] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from _reference import clean_env, reference_python

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = "1.3.0"
RUN_TARGET = 0.25
TOOL_TURN_TARGET = 0.40
IMPORT_TARGET_MS = 60.0
PEAK_TARGET_MIB = 30.0
HEAVY = ("openai", "anthropic", "httpx", "IPython", "ipywidgets", "anywidget", "pandas", "plotly")

# Runs in either interpreter: python scenario.py import HEAVY... | run N | tool N
SCENARIO = '''
import gc
import json
import resource
import statistics
import sys
import time


def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def measure_import():
    started = time.perf_counter()
    from selectools import Agent, tool  # noqa: F401  the first useful import
    elapsed = time.perf_counter() - started
    heavy = [m for m in sys.argv[2:] if m in sys.modules]
    import selectools
    print(json.dumps({"seconds": elapsed, "peak_mib": peak_mib(), "heavy": heavy,
                      "version": getattr(selectools, "__version__", "?"),
                      "file": selectools.__file__}))


def timed(setup, action, n):
    """Median seconds of action(setup()); only the action is timed, GC off as in timeit."""
    samples = []
    gc.disable()
    try:
        for _ in range(n):
            subject = setup()
            started = time.perf_counter()
            action(subject)
            samples.append(time.perf_counter() - started)
            gc.collect() if len(samples) % 1000 == 0 else None
    finally:
        gc.enable()
    return statistics.median(samples)


def agents():
    from selectools import Agent, Message, Role, ToolCall, UsageStats, tool
    from selectools.providers.stubs import LocalProvider

    @tool()
    def search(query: str) -> str:
        """Search for information."""
        return "Results for: " + query

    class OneToolCall:
        """A provider written to the documented protocol: one tool call, then text."""

        name = "bench"
        supports_streaming = False
        supports_async = False

        def __init__(self):
            self.calls = 0

        def complete(self, *, model, system_prompt, messages, tools=None,
                     temperature=0.0, max_tokens=1000, timeout=None):
            self.calls += 1
            usage = UsageStats(prompt_tokens=12, completion_tokens=4, total_tokens=16,
                               model=model, provider=self.name)
            if self.calls == 1:
                call = ToolCall(tool_name="search", parameters={"query": "python"}, id="call_1")
                return Message(role=Role.ASSISTANT, content="", tool_calls=[call]), usage
            return Message(role=Role.ASSISTANT, content="Here are the results."), usage

    def local_agent():
        return Agent(tools=[search], provider=LocalProvider())

    def tool_agent():
        return Agent(tools=[search], provider=OneToolCall())

    return local_agent, tool_agent


def main():
    mode = sys.argv[1]
    if mode == "import":
        return measure_import()
    n = int(sys.argv[2])
    local_agent, tool_agent = agents()
    prompt = "Find Python tutorials"
    if mode == "run":
        check = local_agent().run(prompt)
        assert prompt in check.content, check.content
        seconds = timed(local_agent, lambda a: a.run(prompt), n)
    else:
        check = tool_agent().run(prompt)
        assert check.content == "Here are the results.", check.content
        assert [c.tool_name for c in check.tool_calls] == ["search"], check.tool_calls
        seconds = timed(tool_agent, lambda a: a.run(prompt), n)
    print(json.dumps({"seconds": seconds}))


main()
'''


@dataclass(frozen=True)
class Interpreter:
    label: str
    python: str
    env: dict[str, str]

    def scenario(self, script: Path, *args: str) -> dict[str, object]:
        out = subprocess.run(
            [self.python, str(script), *args],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=script.parent,  # never the checkout: 1.3.0 must not import our package
        )
        if out.returncode:
            raise SystemExit(f"{self.label}: scenario {args} failed:\n{out.stderr}")
        result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
        return result


def reference_venv() -> Path:
    """A virtualenv with selectools 1.3.0 from the package index (created once, then reused)."""
    probe = "import selectools; print(selectools.__version__)"
    return reference_python(
        f"selectools-{REFERENCE}", f"selectools=={REFERENCE}", probe, expect=REFERENCE
    )[0]


def interpreters() -> tuple[Interpreter, Interpreter]:
    env = clean_env()
    ours = Interpreter("this checkout", sys.executable, {**env, "PYTHONPATH": str(ROOT)})
    reference = Interpreter(f"selectools {REFERENCE}", str(reference_venv()), env)
    return ours, reference


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("iterations", nargs="?", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5, help="A B rounds per measurement")
    parser.add_argument("--imports", type=int, default=11, help="fresh processes per version")
    args = parser.parse_args()
    ours, reference = interpreters()

    with tempfile.TemporaryDirectory(prefix="selectools-bench-") as tmp:
        script = Path(tmp) / "scenario.py"
        script.write_text(SCENARIO, encoding="utf-8")

        imports: dict[str, list[dict[str, object]]] = {ours.label: [], reference.label: []}
        for _ in range(args.imports):  # A B A B ...
            for interp in (ours, reference):
                imports[interp.label].append(interp.scenario(script, "import", *HEAVY))
        found = imports[ours.label][0]
        if Path(str(found["file"])).resolve().parents[1] != ROOT:
            raise SystemExit(f"ours imported {found['file']}, not this checkout")

        timings: dict[str, dict[str, list[float]]] = {
            mode: {ours.label: [], reference.label: []} for mode in ("run", "tool")
        }
        for _ in range(args.rounds):
            for mode in ("run", "tool"):
                for interp in (ours, reference):
                    result = interp.scenario(script, mode, str(args.iterations))
                    timings[mode][interp.label].append(float(str(result["seconds"])))

    def median_of(label: str, key: str) -> float:
        return statistics.median(float(str(r[key])) for r in imports[label])

    def ratio(mode: str) -> float:
        pairs = zip(timings[mode][ours.label], timings[mode][reference.label], strict=True)
        return statistics.median(a / b for a, b in pairs)

    def ms(mode: str, label: str) -> float:
        return statistics.median(timings[mode][label]) * 1e3

    a, b = ours.label, reference.label
    print(
        f"selectools overhead: this checkout vs {b} (same run, {args.rounds} A/B rounds of "
        f"{args.iterations} iterations; {args.imports} fresh processes per import figure)"
    )
    print(f"{'case':<42}{'ours':>12}{REFERENCE:>12}{'ratio':>8}   target")
    for mode, name, target in (
        ("run", "agent.run(), LocalProvider, fresh agent", RUN_TARGET),
        ("tool", "one tool-call turn (protocol provider)", TOOL_TURN_TARGET),
    ):
        r = ratio(mode)
        print(
            f"{name:<42}{ms(mode, a):>10.4f}ms{ms(mode, b):>10.4f}ms{r:>7.2f}x"
            f"   <= {target:.2f}x  {verdict(r <= target)}"
        )
    imp_a, imp_b = median_of(a, "seconds") * 1e3, median_of(b, "seconds") * 1e3
    print(
        f"{'from selectools import Agent, tool':<42}{imp_a:>10.1f}ms{imp_b:>10.1f}ms"
        f"{imp_a / imp_b:>7.2f}x   <= {IMPORT_TARGET_MS:.0f} ms  {verdict(imp_a <= IMPORT_TARGET_MS)}"
    )
    peak_a, peak_b = median_of(a, "peak_mib"), median_of(b, "peak_mib")
    print(
        f"{'  peak RSS of that process':<42}{peak_a:>9.1f}MiB{peak_b:>9.1f}MiB"
        f"{peak_a / peak_b:>7.2f}x   <= {PEAK_TARGET_MIB:.0f} MiB  "
        f"{verdict(peak_a <= PEAK_TARGET_MIB)}"
    )
    heavy = sorted({m for r in imports[a] for m in r["heavy"]})  # type: ignore[attr-defined]
    print(f"SDK/notebook modules loaded by that import (ours): {heavy or 'none'}")


if __name__ == "__main__":
    main()
