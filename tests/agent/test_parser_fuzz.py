"""Model text under hypothesis: ``ToolCallParser.parse`` and ``agent.run()`` survive any reply.

Each generated reply is spelled by a byte tape that hypothesis draws (and can
shrink): a byte picks a fragment from :data:`FRAGMENTS` or, from 240 up, a run
of up to 1,020 copies of an opener, closer or quote (deep nesting). The
fragments are what a model, or an attacker steering one, may write: braces and
brackets alone and doubled, quotes and backslashes, ``TOOL_CALL`` markers and
code fences, template syntax, JSON and Python literals of random values,
well-formed and cut-off tool calls, and any Unicode (lone surrogates included).
Drawing tapes instead of composing strategies keeps the generation at a fraction
of a millisecond per reply, so 20,000 replies fit the suite's time.

Every reply goes through ``parse``, timed (CPU time, garbage collection
paused), and is the first reply of one ``agent.run()`` with a scripted model
(the rest of its batch plays on while the agent keeps calling tools), with text
tool calls and with native ones. ``parse`` never raises, returns only dict
parameters and named or failed calls, gives the reply back unchanged when it
finds no call, and stays under :data:`PARSE_BUDGET_S`. ``agent.run()`` never
raises: a reply without calls is the answer, word for word, and a native-tools
provider's reply always is (its text is not read for calls). Structured output's
``extract_json`` and ``parse_and_validate`` read each reply too, raising nothing
but the documented ``ValueError``. The counts print.
"""

from __future__ import annotations

import contextlib
import gc
import json
import random
import time
from collections import deque
from typing import Any

from hypothesis import HealthCheck, given, settings, strategies as st

from selectools import Agent, AgentConfig, ToolCallParser, tool
from selectools.parser import ParseResult
from selectools.structured import extract_json, parse_and_validate
from selectools.testing import ScriptedProvider

REPLIES = 20_000
EXAMPLES = 2_900  # batches of 7-9 replies: at least 20,300
#: Each parse (replies reach ~40,000 characters) must take less CPU time than this;
#: the slowest measured is printed (tens of ms; the parser is linear, see benchmarks/bench_parser.py).
PARSE_BUDGET_S = 0.25

_PIECES = [
    "{", "}", "{{", "}}", "[", "]", '"', "'", "\\", '\\"', "\\'", ":", ",", ", ", " ", "\n",
    "\t", "TOOL_CALL", "TOOL_CALL ", "TOOL_CALL: ", "```", "```json\n", "\n```", "True", "None",
    "null", "false", '"tool_name": ', '"tool": ', '"name": ', '"parameters": ', '"arguments": ',
    '"args": "', '"search"', "'add'", "{%", "%}", "{{#each xs}}", "{{/each}}", "{{ 'hello' }}",
    "{{}}", "1e999", "-0", "NaN", "9" * 5000, "\u2028", "\x00", "é", "😀", "\udc80", "it's",
]  # fmt: skip
_RUNS = ["{", "[", "}", "]", '{"a":', "{{", "[{", '{"tool": "x", "p": ', '"', "'", "\\", ", ",
         "TOOL_CALL {", "```", " ", '{"tool_name": "add", "parameters": ']  # fmt: skip


def _value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.randrange(-(10**6), 10**6)
    if kind == 3:
        return rng.uniform(-1e9, 1e9)
    if kind in (4, 5):  # any code point, surrogates included
        return "".join(chr(rng.randrange(0x110000)) for _ in range(rng.randrange(8)))
    if kind in (6, 7):
        return {str(_value(rng, 9)): _value(rng, depth + 1) for _ in range(rng.randrange(4))}
    return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def _fragments() -> list[str]:
    rng = random.Random(27)
    values = [_value(rng) for _ in range(60)]
    calls = []
    for _ in range(40):
        key = rng.choice(["tool_name", "tool", "name"])
        name = rng.choice(["search", "add", "nope", ""])
        params = rng.choice([{"query": _value(rng)}, {"a": 1, "b": 2}, {"a": "x"}, _value(rng)])
        call = json.dumps({key: name, "parameters": params})
        calls += [
            call,
            "TOOL_CALL " + call,
            call[: rng.randrange(len(call))],
            repr(json.loads(call)),
        ]
    return _PIECES + [json.dumps(v) for v in values] + [repr(v) for v in values] + calls


FRAGMENTS = _fragments()


def _spell(tape: bytes) -> str:
    out, index = [], 0
    while index < len(tape):
        byte = tape[index]
        index += 1
        if byte >= 240 and index < len(tape):
            out.append(_RUNS[byte - 240] * (tape[index] * 4))
            index += 1
        else:
            out.append(FRAGMENTS[byte % len(FRAGMENTS)])
    return "".join(out)


batches = st.lists(st.binary(max_size=40).map(_spell), min_size=7, max_size=9)


def _timed_parse(parser: ToolCallParser, text: str) -> tuple[ParseResult, float]:
    gc.disable()
    try:
        started = time.process_time()
        result = parser.parse(text)
        return result, time.process_time() - started
    finally:
        gc.enable()


def _check(result: ParseResult, text: str) -> None:
    assert isinstance(result, ParseResult) and isinstance(result.text, str)
    for call in result.tool_calls:
        assert isinstance(call.tool_name, str) and isinstance(call.parameters, dict)
        assert call.error is None or (isinstance(call.error, str) and call.error)
        assert call.error is not None or call.tool_name
    if not result.tool_calls:
        assert result.text == text


@tool()
def search(query: str) -> str:
    """Search for something."""
    return f"results for {query}"


@tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_parse_and_agent_run_survive_generated_replies(report) -> None:
    parser = ToolCallParser()
    script: deque[str] = deque()
    agents = {
        native: Agent(
            tools=[search, add],
            provider=ScriptedProvider(
                lambda _: script.popleft() if script else "done", native_tools=native
            ),
            config=AgentConfig(max_iterations=4),
        )
        for native in (False, True)
    }
    counts = {"replies": 0, "characters": 0, "longest": 0, "with calls": 0, "runs": 0, "played": 0}
    slowest = 0.0

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(texts=batches)
    def check(texts: list[str]) -> None:
        nonlocal slowest
        for index, text in enumerate(texts):
            result, elapsed = _timed_parse(parser, text)
            counts["replies"] += 1
            counts["characters"] += len(text)
            counts["longest"] = max(counts["longest"], len(text))
            counts["with calls"] += bool(result.tool_calls)
            slowest = max(slowest, elapsed)
            _check(result, text)
            assert elapsed < PARSE_BUDGET_S, f"{elapsed:.3f} s of CPU for {len(text):,} characters"
            found = extract_json(text)  # structured output reads the same text
            assert found is None or found in text
            with contextlib.suppress(ValueError):  # the documented error: the model is asked again
                parse_and_validate(text, {"type": "object"})

            native = index % 2 == 1
            script.clear()
            script.extend(texts[index:])
            answer = agents[native].run("go")
            counts["runs"] += 1
            counts["played"] += len(texts) - index - len(script)
            if native or not result.tool_calls:
                assert answer.content == text and answer.iterations == 1

    check()
    report(
        f"\nparser fuzz: parsed {counts['replies']} replies ({counts['characters']:,} characters, "
        f"longest {counts['longest']:,}; {counts['with calls']} with calls), "
        f"max {slowest * 1000:.1f} ms CPU "
        f"(budget {PARSE_BUDGET_S * 1000:.0f} ms); {counts['runs']} agent runs played "
        f"{counts['played']} replies, none raised"
    )
    assert counts["replies"] >= REPLIES and counts["runs"] == counts["replies"]
