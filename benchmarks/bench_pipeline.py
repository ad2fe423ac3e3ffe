"""What a selectools ``Pipeline`` costs: 1, 3 and 10 steps, next to references measured in the same run.

Each iteration composes a fresh pipeline from already-defined steps with ``|`` and runs it
on an int (the steps add one), so the figure is composition + execution + the per-step
trace selectools records. The references, same steps, same input:

- **plain**: function composition by hand (``for f in fns: x = f(x)``), the floor;
- **LCEL**: LangChain's ``RunnableLambda`` steps composed with ``|`` into a
  ``RunnableSequence`` and ``invoke``-d. langchain-core lives in its own virtualenv
  (created once under ``$SELECTOOLS_BENCH_CACHE`` or ``~/.cache/selectools-bench``
  with ``python -m venv`` and ``pip install langchain-core``), never in ours. The
  plain composition is measured there too, so the two processes can be compared.

Rounds alternate ours / LCEL; the report gives medians and same-run ratios. No stored
numbers: the PIPELINE page's claim is that pipelines are "effectively free" next to an
agent turn, and the ratios show what selectools' tracing costs over the floor and
where it stands against LCEL. ``--no-lcel`` skips the LangChain reference.

Run: ``python benchmarks/bench_pipeline.py [iterations per round] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _reference import clean_env, reference_python

ROOT = Path(__file__).resolve().parents[1]
SIZES = (1, 3, 10)

# python scenario.py KIND ITERATIONS -> one JSON line {size: seconds per iteration}
SCENARIO = """
import gc
import json
import sys
import time

KIND, N = sys.argv[1], int(sys.argv[2])
SIZES = (1, 3, 10)


def add_one(x: int) -> int:
    return x + 1


def timed(once):
    once()  # warm up
    gc.collect()
    gc.disable()
    start = time.perf_counter()
    for _ in range(N):
        once()
    elapsed = time.perf_counter() - start
    gc.enable()
    return elapsed / N


def plain(size):
    fns = [add_one] * size

    def once():
        steps = list(fns)  # a fresh composition each time
        x = 0
        for f in steps:
            x = f(x)
        assert x == size

    return once


def selectools_case(size):
    from selectools import Pipeline, step

    steps = [step(add_one, name=f"add_{i}") for i in range(size)]

    def once():
        pipeline = Pipeline(steps=steps[:1])  # one step: no | to apply
        for s in steps[1:]:
            pipeline = pipeline | s
        result = pipeline.run(0)
        assert result.output == size and len(result.trace) == size

    return once


def lcel_case(size):
    from langchain_core.runnables import RunnableLambda

    steps = [RunnableLambda(add_one, name=f"add_{i}") for i in range(size)]

    def once():
        chain = steps[0]  # one step: the runnable itself
        for s in steps[1:]:
            chain = chain | s  # a RunnableSequence
        assert chain.invoke(0) == size

    return once


case = {"plain": plain, "selectools": selectools_case, "lcel": lcel_case}[KIND]
print(json.dumps({str(size): timed(case(size)) for size in SIZES}))
"""


def lcel_python() -> tuple[str, str]:
    """(interpreter, langchain-core version) of the reference virtualenv, created once."""
    probe = "import langchain_core; print(langchain_core.__version__)"
    python, version = reference_python("langchain-core", "langchain-core", probe)
    return str(python), version


def scenario(
    python: str, script: Path, kind: str, iterations: int, env: dict[str, str]
) -> dict[str, float]:
    out = subprocess.run(
        [python, str(script), kind, str(iterations)],
        capture_output=True,
        text=True,
        env=env,
        cwd=script.parent,
    )
    if out.returncode:
        raise SystemExit(f"{kind} scenario failed:\n{out.stderr}")
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("iterations", nargs="?", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-lcel", action="store_true", help="skip the LangChain reference")
    args = parser.parse_args()

    ours_env = {**clean_env(), "PYTHONPATH": str(ROOT)}
    runs: list[tuple[str, str, str, dict[str, str]]] = [
        ("selectools", sys.executable, "selectools", ours_env),
        ("plain (ours)", sys.executable, "plain", ours_env),
    ]
    lcel_version = ""
    if not args.no_lcel:
        lcel, lcel_version = lcel_python()
        runs += [
            ("LCEL", lcel, "lcel", clean_env()),
            ("plain (LCEL venv)", lcel, "plain", clean_env()),
        ]

    times: dict[str, dict[str, list[float]]] = {
        label: {str(s): [] for s in SIZES} for label, *_ in runs
    }
    with tempfile.TemporaryDirectory(prefix="selectools-bench-") as tmp:
        script = Path(tmp) / "scenario.py"
        script.write_text(SCENARIO, encoding="utf-8")
        for _ in range(args.rounds):
            for label, python, kind, env in runs:
                for size, seconds in scenario(python, script, kind, args.iterations, env).items():
                    times[label][size].append(seconds)

    def us(label: str, size: int) -> float:
        return statistics.median(times[label][str(size)]) * 1e6

    def ratio(a: str, b: str, size: int) -> float:
        pairs = zip(times[a][str(size)], times[b][str(size)], strict=True)
        return statistics.median(x / y for x, y in pairs)

    print(
        f"pipeline.run(): compose fresh + run, median of {args.rounds} rounds of "
        f"{args.iterations} iterations"
        + (f"; langchain-core {lcel_version}" if lcel_version else "")
    )
    header = f"{'steps':>5}" + "".join(f"{label:>20}" for label, *_ in runs)
    header += f"{'ours/plain':>12}" + (f"{'ours/LCEL':>11}" if lcel_version else "")
    print(header)
    for size in SIZES:
        row = f"{size:>5}" + "".join(f"{us(label, size):>17.2f} us" for label, *_ in runs)
        row += f"{ratio('selectools', 'plain (ours)', size):>11.1f}x"
        if lcel_version:
            row += f"{ratio('selectools', 'LCEL', size):>10.2f}x"
        print(row)


if __name__ == "__main__":
    main()
