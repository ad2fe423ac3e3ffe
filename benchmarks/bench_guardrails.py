"""What the five input guardrails cost on a 2,000-character prompt.

Two agents that differ only in ``AgentConfig(guardrails=...)`` run the same
prompt with ``LocalProvider`` (no network, no sleep): one with
``TopicGuardrail``, ``PIIGuardrail``, ``ToxicityGuardrail``, ``FormatGuardrail``
and ``LengthGuardrail`` on the input side, one without. Rounds alternate A B A B
and the report gives the median time per run of each, the difference (the
guardrails' overhead per run) and the ratio. The prompt is ordinary support
text with one email address and one phone number, so PII redaction does real
work; no guardrail blocks it. The pipeline alone (``check_input``) is timed too.

Target (issue 13): overhead < 0.2 ms per run.

Run: ``python benchmarks/bench_guardrails.py [runs per round] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

from selectools import Agent, AgentConfig, LocalProvider, tool
from selectools.guardrails import (
    FormatGuardrail,
    GuardrailsPipeline,
    LengthGuardrail,
    PIIGuardrail,
    TopicGuardrail,
    ToxicityGuardrail,
)

TARGET_MS = 0.2

_PARAGRAPH = (
    "Hello team, I have a question about my last three orders and the delivery schedule for "
    "the new warehouse. The parcels were expected on Monday but the tracking page still shows "
    "them as pending, and the support chat kept timing out when I tried to ask about it. "
    "Could you check whether the address on file is the one in Leeds, and whether the invoice "
    "for March includes the discount we agreed on? "
)
PROMPT = (
    (_PARAGRAPH * 6)[:1900]
    + " You can reach me at jane.doe@example.com or (555) 123-4567. Thanks a lot, Jane."
)[:2000].ljust(2000, ".")


def pipeline() -> GuardrailsPipeline:
    return GuardrailsPipeline(
        input=[
            TopicGuardrail(deny=["politics", "religion", "gambling"]),
            PIIGuardrail(action="rewrite"),
            ToxicityGuardrail(threshold=0.0),
            FormatGuardrail(max_length=10_000),
            LengthGuardrail(max_chars=10_000, max_words=2_000),
        ]
    )


@tool(description="Look up an order")
def lookup(order_id: str) -> str:
    return order_id


def _agent(guarded: bool) -> Agent:
    config = AgentConfig(guardrails=pipeline()) if guarded else AgentConfig()
    return Agent(tools=[lookup], provider=LocalProvider(), config=config)


def _time_runs(agent: Agent, runs: int) -> float:
    """Median milliseconds per ``agent.run`` (memory is off, so runs are independent)."""
    samples = []
    gc.disable()
    try:
        for _ in range(runs):
            started = time.perf_counter()
            agent.run(PROMPT)
            samples.append((time.perf_counter() - started) * 1000.0)
    finally:
        gc.enable()
    return statistics.median(samples)


def _time_pipeline(runs: int) -> float:
    guard = pipeline()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        guard.check_input(PROMPT)
        samples.append((time.perf_counter() - started) * 1000.0)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    assert len(PROMPT) == 2000
    redacted = pipeline().check_input(PROMPT).content
    assert "[EMAIL:********]" in redacted
    assert "[PHONE_US:********]" in redacted
    plain, guarded = _agent(False), _agent(True)
    _time_runs(plain, 200), _time_runs(guarded, 200)  # warm up
    base, with_guards = [], []
    for _ in range(args.rounds):
        base.append(_time_runs(plain, args.runs))
        with_guards.append(_time_runs(guarded, args.runs))
    a, b = statistics.median(base), statistics.median(with_guards)
    overhead = b - a
    alone = _time_pipeline(args.runs)
    print(f"prompt: {len(PROMPT)} characters, 5 input guardrails, {args.rounds}x{args.runs} runs")
    print(f"run without guardrails: {a * 1000:8.1f} µs (median)")
    print(f"run with guardrails:    {b * 1000:8.1f} µs (median)")
    print(f"ratio with/without:     {b / a:8.2f}x")
    print(
        f"overhead per run:       {overhead * 1000:8.1f} µs  "
        f"(target < {TARGET_MS * 1000:.0f} µs: {'met' if overhead < TARGET_MS else 'MISSED'})"
    )
    print(f"pipeline alone:         {alone * 1000:8.1f} µs (check_input, median)")


if __name__ == "__main__":
    main()
