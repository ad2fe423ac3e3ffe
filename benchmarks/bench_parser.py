"""``ToolCallParser.parse`` time against reply length: linear, checked against 1k in the same run.

Replies of 1,000, 4,000, 16,000 and 64,000 characters are built in five shapes:
prose ending in one ``TOOL_CALL``, prose with inline JSON objects that are not
calls, Jinja/Vue templates (``{{ ... }}``), deep nesting (``{`` * n/2 then
``}`` * n/2, the old parser's worst case: 16,000 characters took 50 s) and
brace-and-quote noise. Each size is parsed enough times to cover 64,000 * runs
characters; rounds alternate the sizes and the report gives the median (over
rounds) CPU time per parse, the time per 1,000 characters, and that figure's ratio to the 1k figure of
the same shape. Linear time keeps the ratio near 1 (quadratic would give 4, 16
and 64). The parse of a reply of ``MAX_REPLY_CHARS`` (the longest read for
calls) in the slowest shape is timed once, as the bound on one parse.

Target: the per-1k ratio at 64k stays under 2.0 for every shape.

Run: ``python benchmarks/bench_parser.py [runs] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from collections.abc import Callable

from selectools import ToolCallParser
from selectools.parser import MAX_REPLY_CHARS

SIZES = (1_000, 4_000, 16_000, 64_000)
TARGET_RATIO = 2.0

_PROSE = (
    "The parcels were expected on Monday, but the tracking page still shows them as pending. "
    "Let me look the order up before I answer, so the dates I give are the real ones. "
)
_CALL = 'TOOL_CALL {"tool_name": "lookup", "parameters": {"order_id": "A-1042", "full": true}}'
_CONFIG = json.dumps({"retries": 3, "regions": ["eu", "us"], "limits": {"rps": 10, "burst": 20}})
_TEMPLATE = (
    "<li v-for='item in items'>{{ item.name | capitalize }}</li> {% if x %}{{ x }}{% endif %} "
)


def _fill(unit: str, size: int, tail: str = "") -> str:
    body = (unit * (size // len(unit) + 1))[: size - len(tail)]
    return body + tail


SHAPES: dict[str, Callable[[int], str]] = {
    "prose + call": lambda n: _fill(_PROSE, n, "\n" + _CALL),
    "inline JSON": lambda n: _fill(f"Config: {_CONFIG}. ", n),
    "templates": lambda n: _fill(_TEMPLATE, n),
    "deep nesting": lambda n: "{" * (n // 2) + "}" * (n - n // 2),
    "brace noise": lambda n: _fill("{\"a\": '{x}' [\"}\" {'b\\'': ", n),
}


def _cpu_seconds_per_parse(parser: ToolCallParser, text: str, runs: int) -> float:
    """CPU time, not wall time: on a shared machine a parse longer than the scheduler's
    time slice would otherwise be charged for the other processes' turns."""
    gc.disable()
    try:
        started = time.process_time()
        for _ in range(runs):
            parser.parse(text)
        return (time.process_time() - started) / runs
    finally:
        gc.enable()


def main() -> None:
    parser_args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser_args.add_argument("runs", nargs="?", type=int, default=20, help="64k parses per round")
    parser_args.add_argument("--rounds", type=int, default=5)
    args = parser_args.parse_args()
    parser = ToolCallParser()
    texts = {(shape, size): make(size) for shape, make in SHAPES.items() for size in SIZES}
    assert all(len(text) == size for (_, size), text in texts.items())
    assert parser.parse(texts["prose + call", 1_000]).tool_call is not None
    for text in texts.values():  # warm up
        parser.parse(text)
    samples: dict[tuple[str, int], list[float]] = {key: [] for key in texts}
    for _ in range(args.rounds):
        for (shape, size), text in texts.items():
            runs = max(3, args.runs * SIZES[-1] // size)
            samples[shape, size].append(_cpu_seconds_per_parse(parser, text, runs))
    print(f"{args.rounds} rounds; each size parsed {args.runs} x 64,000 characters per round")
    print(f"{'shape':<14}{'size':>8}{'per parse':>12}{'per 1k chars':>14}{'vs 1k':>8}")
    worst_ratio, slowest_shape, slowest_per_1k = 0.0, "", 0.0
    for shape in SHAPES:
        base = statistics.median(samples[shape, SIZES[0]]) / (SIZES[0] / 1000)
        for size in SIZES:
            per_parse = statistics.median(samples[shape, size])
            per_1k = per_parse / (size / 1000)
            ratio = per_1k / base
            if size == SIZES[-1]:
                worst_ratio = max(worst_ratio, ratio)
                if per_1k > slowest_per_1k:
                    slowest_shape, slowest_per_1k = shape, per_1k
            print(
                f"{shape:<14}{size:>8,}{per_parse * 1000:>10.3f}ms"
                f"{per_1k * 1e6:>12.1f}µs{ratio:>7.2f}x"
            )
    longest = SHAPES[slowest_shape](MAX_REPLY_CHARS)
    bound = _cpu_seconds_per_parse(parser, longest, 3)
    print(
        f"largest per-1k ratio at 64k: {worst_ratio:.2f}x "
        f"(target < {TARGET_RATIO:.1f}x: {'met' if worst_ratio < TARGET_RATIO else 'MISSED'})"
    )
    print(
        f"one parse at MAX_REPLY_CHARS={MAX_REPLY_CHARS:,} ({slowest_shape}): "
        f"{bound * 1000:.0f} ms of CPU (mean of 3)"
    )


if __name__ == "__main__":
    main()
