"""Framework overhead: what selectools adds on top of the LLM call.

Prints medians for ``agent.run()`` with ``LocalProvider`` (a fresh agent per
iteration, built outside the timed window), a one-tool-call turn with
``ScriptedProvider``, and ``import selectools`` in a fresh interpreter. Each is
compared with a reference measured in the same run: the bare provider call for
the agent timings, a bare interpreter start for the import, plus the documented
targets (half of the reference implementation's 0.043 ms per run; import under
0.1 s). Run: ``python benchmarks/bench_overhead.py``.
"""

from __future__ import annotations

import gc
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from selectools import Agent, Message, Role, tool  # noqa: E402
from selectools.providers.stubs import LocalProvider  # noqa: E402
from selectools.testing import ScriptedProvider, tool_call  # noqa: E402

RUN_TARGET_MS = 0.043 / 2
IMPORT_TARGET_S = 0.1


@tool()
def search(query: str) -> str:
    """Search for information."""
    return f"Results for: {query}"


def timed(setup: Callable[[], object], action: Callable[[object], object], n: int) -> float:
    """Median seconds of ``action(setup())``; only the action is timed."""
    samples = []
    gc.disable()
    try:
        for _ in range(n):
            subject = setup()
            started = time.perf_counter()
            action(subject)
            samples.append(time.perf_counter() - started)
    finally:
        gc.enable()
    return statistics.median(samples)


def import_time(module: str, n: int) -> float:
    code = (
        f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
        if module
        else "print(0.0)"
    )
    samples = []
    for _ in range(n):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
        ).stdout
        samples.append(float(out))
    return statistics.median(samples)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    prompt = "Find Python tutorials"
    messages = [Message(role=Role.USER, content=prompt)]

    bare = timed(
        LocalProvider,
        lambda p: p.complete(model="local", system_prompt="x", messages=messages),  # type: ignore[attr-defined]
        n,
    )
    run = timed(lambda: Agent(tools=[search], provider=LocalProvider()), lambda a: a.run(prompt), n)

    def scripted_agent() -> Agent:
        provider = ScriptedProvider([tool_call("search", query="python"), "Here are the results."])
        return Agent(tools=[search], provider=provider)

    bare_scripted = timed(
        lambda: ScriptedProvider(["a", "b"]),
        lambda p: (
            p.complete(model="m", system_prompt="", messages=messages),  # type: ignore[attr-defined]
            p.complete(model="m", system_prompt="", messages=messages),
        ),  # type: ignore[attr-defined]
        max(n // 4, 100),
    )
    tool_turn = timed(scripted_agent, lambda a: a.run(prompt), max(n // 4, 100))

    imports = max(n // 1000, 10)
    python_start = import_time("json", imports)
    selectools_import = import_time("selectools", imports)
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, selectools; print(' '.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout.split()
    heavy = [
        m
        for m in ("openai", "anthropic", "httpx", "IPython", "pandas", "plotly", "pydantic")
        if m in loaded
    ]

    print(f"{'case':<46}{'median':>12}{'reference':>14}{'ratio':>8}")
    print(
        f"{'agent.run() LocalProvider, fresh agent':<46}{run * 1e3:>10.4f}ms"
        f"{bare * 1e3:>12.4f}ms{run / bare:>8.1f}   (bare provider call)"
    )
    print(
        f"{'  vs documented target (0.0215 ms)':<46}{run * 1e3:>10.4f}ms"
        f"{RUN_TARGET_MS:>12.4f}ms{run * 1e3 / RUN_TARGET_MS:>8.2f}"
    )
    print(
        f"{'one tool-call turn, ScriptedProvider':<46}{tool_turn * 1e3:>10.4f}ms"
        f"{bare_scripted * 1e3:>12.4f}ms{tool_turn / bare_scripted:>8.1f}   (two bare provider calls)"
    )
    print(
        f"{'import selectools (fresh interpreter)':<46}{selectools_import * 1e3:>10.2f}ms"
        f"{IMPORT_TARGET_S * 1e3:>12.2f}ms{selectools_import / IMPORT_TARGET_S:>8.2f}   (target)"
    )
    print(f"{'  import json, same harness':<46}{python_start * 1e3:>10.2f}ms")
    print(f"modules loaded by 'import selectools' from the SDK/notebook stack: {heavy or 'none'}")


if __name__ == "__main__":
    main()
