"""Structured output: the helpers, the JSON Schema subset, and the validate-and-retry loop."""

import asyncio
import dataclasses
from typing import Literal

import pytest
from pydantic import BaseModel

from selectools import (
    Agent,
    AgentConfig,
    AgentResult,
    ConversationMemory,
    RetryConfig,
    SimpleStepObserver,
    StreamChunk,
    StructuredOutputError,
    tool,
)
from selectools.structured import (
    build_schema_instruction,
    extract_json,
    parse_and_validate,
    schema_from_response_format,
    validation_retry_message,
)
from selectools.testing import ScriptedProvider, tool_call


class Classification(BaseModel):
    intent: Literal["billing", "support", "sales", "cancel"]
    confidence: float


@dataclasses.dataclass
class Point:
    x: int
    y: int


PERSON_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "age": {"type": "integer", "minimum": 0},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
    },
    "required": ["name", "age"],
    "additionalProperties": False,
}

VALID = '{"intent": "billing", "confidence": 0.9}'


# -- helpers ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('Here is the analysis: ```json\n{"label": "positive", "score": 0.95}\n```',
         '{"label": "positive", "score": 0.95}'),
        ('x ```json\n{"a": 1}\n``` y', '{"a": 1}'),
        ('prefix {"a": {"b": [1, 2]}} suffix {"c": 3}', '{"a": {"b": [1, 2]}}'),
        ('a brace in a string: {"s": "}{"} done', '{"s": "}{"}'),
        ("list: [1, 2, 3].", "[1, 2, 3]"),
        ("{not json} then {\"ok\": true}", '{"ok": true}'),
        ("```\n[1]\n```", "[1]"),
        ("no json here", None),
        ("unbalanced {\"a\": 1", None),
    ],
)  # fmt: skip
def test_extract_json(text, expected):
    assert extract_json(text) == expected


def test_parse_and_validate_pydantic_model_and_errors():
    assert parse_and_validate(f"Sure! {VALID}", Classification) == Classification(
        intent="billing", confidence=0.9
    )
    with pytest.raises(ValueError, match="intent"):
        parse_and_validate('{"intent": "other", "confidence": 1}', Classification)
    with pytest.raises(ValueError, match="confidence: Field required"):
        parse_and_validate('{"intent": "sales"}', Classification)
    with pytest.raises(ValueError, match="no JSON object or array"):
        parse_and_validate("I think it's billing", Classification)


def test_parse_and_validate_other_types_through_pydantic():
    assert parse_and_validate('{"x": 1, "y": 2}', Point) == Point(1, 2)
    assert parse_and_validate("[1, 2]", list[int]) == [1, 2]
    assert parse_and_validate('"just text"', str) == "just text"
    with pytest.raises(ValueError, match="0"):
        parse_and_validate('["a"]', list[int])


def test_parse_and_validate_dict_schema():
    assert parse_and_validate('{"name": "Ann", "age": 3}', PERSON_SCHEMA) == {
        "name": "Ann",
        "age": 3,
    }
    cases = {
        '{"name": "Ann"}': "missing required property 'age'",
        '{"name": "Ann", "age": -1}': r"\$.age: must be >= 0",
        '{"name": "Ann", "age": 1.5}': r"\$.age: expected integer",
        '{"name": "Ann", "age": true}': r"\$.age: expected integer, got boolean",
        '{"name": "", "age": 1}': "at least 1 character",
        '{"name": "A", "age": 1, "x": 0}': "unexpected property 'x'",
        '{"name": "A", "age": 1, "tags": ["a", 2]}': r"\$.tags\[1\]: expected string",
        '{"name": "A", "age": 1, "tags": ["a", "b", "c"]}': "at most 2 item",
        "[]": r"\$: expected object",
    }
    for text, problem in cases.items():
        with pytest.raises(ValueError, match=problem):
            parse_and_validate(text, PERSON_SCHEMA)


def test_dict_schema_combinators_refs_and_enums():
    schema = {
        "$defs": {"Color": {"enum": ["red", "green"]}},
        "type": "object",
        "properties": {
            "color": {"$ref": "#/$defs/Color"},
            "size": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "kind": {"oneOf": [{"const": "a"}, {"const": "b"}]},
            "code": {"type": "string", "pattern": "^[A-Z]{2}$"},
        },
    }
    assert parse_and_validate('{"color": "red", "size": null, "kind": "a", "code": "FR"}', schema)
    for bad, problem in [
        ('{"color": "blue"}', "must be one of"),
        ('{"size": "big"}', "matches none"),
        ('{"kind": "c"}', "exactly one"),
        ('{"code": "fra"}', "does not match pattern"),
    ]:
        with pytest.raises(ValueError, match=problem):
            parse_and_validate(bad, schema)
    assert parse_and_validate("1", {"enum": [1]}) == 1
    with pytest.raises(ValueError, match="must be one of"):
        parse_and_validate("true", {"enum": [1]})  # JSON true is not 1


def test_schema_and_instruction_and_retry_message():
    schema = schema_from_response_format(Classification)
    assert schema["required"] == ["intent", "confidence"]
    assert schema_from_response_format(PERSON_SCHEMA) is PERSON_SCHEMA
    assert schema_from_response_format(list[Point])["type"] == "array"
    instruction = build_schema_instruction(schema)
    assert '"intent"' in instruction and "JSON" in instruction
    assert "oops" in validation_retry_message("oops")
    for bad in ("text", 3, None, {}):
        with pytest.raises((TypeError, ValueError)):
            schema_from_response_format(bad)


def test_importing_selectools_does_not_import_pydantic():
    import subprocess
    import sys

    code = "import sys, selectools, selectools.structured; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- the loop -----------------------------------------------------------------
def _agent(replies, **config):
    events = []
    provider = ScriptedProvider(replies)
    config.setdefault("observers", [SimpleStepObserver(events.append)])
    return Agent(provider=provider, config=AgentConfig(**config)), provider, events


def _validations(events):
    return [(e["success"], e["attempt"]) for e in events if e.name == "on_structured_validate"]


def _check_retried_result(result, provider, events):
    assert result.parsed == Classification(intent="billing", confidence=0.9)
    assert result.content == VALID
    assert result.stop_reason == "final" and result.error is None
    assert _validations(events) == [(False, 1), (True, 2)]
    retries = result.trace.filter(type="structured_retry")
    assert len(retries) == 1 and "no JSON" in retries[0].error
    # the model saw its failed answer and the correction
    second = provider.requests[1].messages
    assert second[-2].text == "not JSON at all"
    assert second[-1].role.value == "user" and "no JSON object" in second[-1].text
    # the schema instruction was in the system prompt of every call
    assert all('"confidence"' in r.system_prompt for r in provider.requests)


def test_invalid_then_valid_sync():
    agent, provider, events = _agent(["not JSON at all", VALID])
    result = agent.run("bill?", response_format=Classification)
    _check_retried_result(result, provider, events)


def test_invalid_then_valid_async():
    agent, provider, events = _agent(["not JSON at all", VALID])
    result = asyncio.run(agent.arun("bill?", response_format=Classification))
    _check_retried_result(result, provider, events)


def test_invalid_then_valid_astream():
    agent, provider, events = _agent(["not JSON at all", VALID])

    async def consume():
        return [item async for item in agent.astream("bill?", response_format=Classification)]

    items = asyncio.run(consume())
    assert isinstance(items[-1], AgentResult)
    streamed = "".join(i.content for i in items if isinstance(i, StreamChunk))
    assert streamed == "not JSON at all" + VALID
    _check_retried_result(items[-1], provider, events)


def test_sync_stream_and_dict_schema():
    agent, provider, _ = _agent(['{"name": "Ann"}', '{"name": "Ann", "age": 4}'])
    items = list(agent.stream("who?", response_format=PERSON_SCHEMA))
    assert items[-1].parsed == {"name": "Ann", "age": 4}
    assert provider.calls == 2


def test_retries_do_not_consume_max_iterations():
    # max_iterations=1 would end the run at once if retries shared its budget
    agent, provider, events = _agent(
        ["a", "b", "c", VALID], max_iterations=1, retry=RetryConfig(max_retries=3)
    )
    result = agent.run("x", response_format=Classification)
    assert result.parsed is not None and provider.calls == 4
    assert result.iterations == 4
    assert _validations(events)[-1] == (True, 4)


@tool()
def lookup(topic: str) -> str:
    """Look something up."""
    return f"facts about {topic}"


def test_tool_iterations_and_retries_are_counted_separately():
    replies = [tool_call("lookup", topic="bills"), "nope", VALID]
    agent, provider, _ = _agent(replies, max_iterations=2, retry=RetryConfig(max_retries=1))
    agent.add_tool(lookup)
    result = agent.run("x", response_format=Classification)
    assert result.parsed.intent == "billing" and provider.calls == 3


def test_retry_budget_spent_ends_with_a_typed_error():
    agent, provider, events = _agent(["no", "still no", "never"], retry=RetryConfig(max_retries=2))
    result = agent.run("x", response_format=Classification)
    assert provider.calls == 3
    assert result.parsed is None
    assert result.stop_reason == "structured_output_failed"
    assert isinstance(result.error, StructuredOutputError) and isinstance(result.error, ValueError)
    assert result.error.attempts == 3 and result.error.content == "never"
    assert "RetryConfig(max_retries=...)" in str(result.error)
    assert result.content == "never"
    assert _validations(events) == [(False, 1), (False, 2), (False, 3)]
    assert "retry budget spent" in result.trace.filter(type="structured_retry")[-1].summary


def test_zero_retries_validates_once():
    agent, provider, _ = _agent(["no"], retry=RetryConfig(max_retries=0))
    assert agent.run("x", response_format=Classification).error is not None
    assert provider.calls == 1


def test_retry_chatter_stays_out_of_memory():
    memory = ConversationMemory()
    agent, _, _ = _agent(["no", VALID])
    agent.memory = memory
    agent.run("x", response_format=Classification)
    assert [m.text for m in memory.get_history()] == ["x", VALID]


def test_without_response_format_nothing_is_validated():
    agent, provider, events = _agent(["plain text"])
    result = agent.run("x")
    assert result.parsed is None and _validations(events) == []
    assert "Response format" not in provider.requests[0].system_prompt


def test_bad_response_format_fails_before_any_call():
    agent, provider, _ = _agent(["x"])
    with pytest.raises(TypeError, match="response_format must be"):
        agent.run("x", response_format="json please")
    assert provider.calls == 0


def test_retry_config_validation():
    with pytest.raises(ValueError, match="max_retries"):
        RetryConfig(max_retries=-1)
    with pytest.raises(TypeError, match="RetryConfig"):
        AgentConfig(retry=3)
    assert AgentConfig().retry == RetryConfig(max_retries=2)
