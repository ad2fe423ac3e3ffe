"""Structured output on hostile answers: deep nesting and brace floods are retried, never raised."""

import time

import pytest
from pydantic import BaseModel

from selectools import Agent, AgentConfig, RetryConfig
from selectools.structured import extract_json, parse_and_validate
from selectools.testing import ScriptedProvider


class Point(BaseModel):
    x: int
    y: int


VALID = '{"x": 1, "y": 2}'
DEEP = 100_000
HOSTILE = {
    "deep arrays": "[" * DEEP + "]" * DEEP,
    "deep objects": '{"a": ' * DEEP + "1" + "}" * DEEP,
    "deep, fenced": "```json\n" + "[" * DEEP + "]" * DEEP + "\n```",
}


@pytest.mark.parametrize("answer", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_deeply_nested_answer_is_retried(answer):
    with pytest.raises(ValueError):
        parse_and_validate(answer, Point)
    provider = ScriptedProvider([answer, VALID])
    config = AgentConfig(retry=RetryConfig(max_retries=1))
    result = Agent(provider=provider, config=config).run("Where?", response_format=Point)
    assert result.parsed == Point(x=1, y=2) and provider.calls == 2


FLOODS = {
    "nested braces": lambda n: "{" * (n // 2) + "}" * (n // 2),
    "open brackets": lambda n: "[" * n,
    "fence and spaces": lambda n: "```" + " " * n + "x",
    "strings": lambda n: '["' * (n // 2),
}


@pytest.mark.parametrize("shape", FLOODS)
def test_finding_json_in_a_64k_answer_is_linear(shape):
    text = FLOODS[shape](64_000)
    started = time.perf_counter()
    extract_json(text + " " + VALID)
    elapsed = time.perf_counter() - started
    assert elapsed < 3.0, f"{shape}: {elapsed:.2f} s"


def test_json_past_a_deep_invalid_value_is_still_found():
    deep = "[" * 1_000 + "x" + "]" * 1_000
    assert extract_json(f"noise {deep} then {VALID}") == VALID
    assert parse_and_validate(f"{deep} {VALID}", Point) == Point(x=1, y=2)
