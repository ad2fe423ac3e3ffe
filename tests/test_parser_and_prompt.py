import json
import time

import pytest

from selectools import PromptBuilder, ToolCallParser
from selectools.parser import MAX_NESTING, MAX_REPLY_CHARS, loads_lenient
from selectools.prompt import TOOL_CALL_CONTRACT

parser = ToolCallParser()


def test_plain_text_has_no_calls():
    result = parser.parse("The answer is 42.")
    assert result.tool_calls == [] and result.tool_call is None
    assert result.text == "The answer is 42."


def test_tool_call_marker_with_reasoning():
    text = 'I should search first.\nTOOL_CALL {"tool_name": "search", "parameters": {"query": "python"}}'
    result = parser.parse(text)
    assert result.tool_call.tool_name == "search"
    assert result.tool_call.parameters == {"query": "python"}
    assert result.text == "I should search first."


def test_several_markers_give_several_calls():
    text = (
        'TOOL_CALL {"tool_name": "a", "parameters": {"x": 1}}\n'
        'TOOL_CALL {"tool": "b", "params": {"y": "}"}}'
    )
    calls = parser.parse(text).tool_calls
    assert [(c.tool_name, c.parameters) for c in calls] == [("a", {"x": 1}), ("b", {"y": "}"})]


def test_fenced_block_and_key_variants():
    text = 'Let me check.\n```json\n{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}\n```'
    call = parser.parse(text).tool_call
    assert (call.tool_name, call.parameters) == ("get_weather", {"city": "Paris"})


def test_inline_json_needs_a_tool_key():
    assert parser.parse('Config is {"name": "x"} ok').tool_calls == []
    call = parser.parse('Calling {"tool_name": "t", "parameters": {}} now').tool_call
    assert call.tool_name == "t"


def test_lenient_json():
    assert loads_lenient('{"a": 1,}') == {"a": 1}
    assert loads_lenient("{'a': true, 'b': null}") == {"a": True, "b": None}
    call = parser.parse("TOOL_CALL {'tool_name': 'x', 'parameters': {'n': 2,},}").tool_call
    assert (call.tool_name, call.parameters) == ("x", {"n": 2})


def test_unreadable_arguments_are_reported_not_guessed():
    call = parser.parse('TOOL_CALL {"tool_name": "x", "parameters": {"a": }').tool_call
    assert call.error
    call = parser.parse('TOOL_CALL {"tool_name": "x", "parameters": [1, 2]}').tool_call
    assert call.error == "the parameters must be a JSON object"


class _FakeTool:
    def __init__(self, name):
        self.name = name

    def schema(self):
        return {
            "name": self.name,
            "description": "d",
            "parameters": {"type": "object", "properties": {}, "required": []},
        }


def test_prompt_builder_text_and_native_modes():
    builder = PromptBuilder()
    tools = [_FakeTool("search")]
    text_mode = builder.build(tools)
    assert text_mode.startswith("You are an assistant that can call tools when helpful.")
    assert TOOL_CALL_CONTRACT in text_mode
    assert json.dumps(tools[0].schema(), indent=2) in text_mode
    assert (
        builder.build(tools, native_tools=True)
        == "You are an assistant that can call tools when helpful."
    )
    custom = builder.build(tools, system_prompt="You are a medical assistant.")
    assert custom.startswith("You are a medical assistant.\n\nTool call contract:")
    assert builder.build([]) == "You are a helpful assistant."


def test_prompt_schema_text_is_json_indented_and_follows_changes():
    """The schema text equals ``json.dumps(schema, indent=2)``, whatever the values, and a
    tool changed between builds is rendered anew (nothing stale is reused)."""
    from selectools import tool

    @tool(description="Größe in °C — «quoted»")
    def measure(reading: float = 0.1, unit: str = "c", samples: int = 3) -> str:
        return f"{reading}{unit}{samples}"

    builder = PromptBuilder()
    assert json.dumps(measure.schema(), indent=2) in builder.build([measure])
    measure.description = "Now in kelvin"
    text = builder.build([measure])
    assert json.dumps(measure.schema(), indent=2) in text and "kelvin" in text


# -- hostile model text: never an exception, never more than linear time -------------------

TEMPLATES = [
    "{{ 'hello' }}",
    "{{}}",
    "Hello {{ user.name }}, you have {{ count }} messages.",
    "{{#each items}}<li>{{this}}</li>{{/each}}",
    '<p v-if="ok">{{ message | capitalize }}</p>',
    "{% for x in xs %}{{ x }}{% endfor %}",
    "A set literal: {{1, 2}} and a dict of sets {{'a'}: 1}",
    "{{{}}} {[]: 1} {(): 2} {b'x': 1j}",
]


@pytest.mark.parametrize("text", TEMPLATES)
def test_templates_and_set_literals_come_back_as_text(text):
    result = parser.parse(text)
    assert result.tool_calls == [] and result.text == text


def test_unreadable_json_after_the_marker_is_an_error_for_the_model():
    call = parser.parse("TOOL_CALL {{ 'hello' }}").tool_call
    assert call.tool_name == "" and call.error.startswith("not valid JSON")


def test_deep_nesting_is_an_error_not_a_recursion_error():
    depth = 100_000
    call = parser.parse("TOOL_CALL " + '{"a":' * depth + "1" + "}" * depth).tool_call
    assert call.error == f"nested deeper than {MAX_NESTING} levels"
    as_string = '"' + "[" * 5_000 + "]" * 5_000 + '"'
    call = parser.parse(f'TOOL_CALL {{"tool_name": "x", "parameters": {as_string}}}').tool_call
    assert call.tool_name == "x" and "nested deeper" in call.error
    inline = '{"tool_name": "x", "parameters": {"a": ' + "[" * depth + "]" * depth + "}}"
    assert parser.parse(inline).tool_calls == []
    # up to the limit, nesting is read (the call's own braces count)
    value: object = 1
    for _ in range(MAX_NESTING - 2):
        value = [value]
    text = "TOOL_CALL " + json.dumps({"tool_name": "x", "parameters": {"v": value}})
    assert parser.parse(text).tool_call.parameters == {"v": value}


def test_raw_newlines_and_quotes_inside_strings_are_read():
    text = 'TOOL_CALL {"tool_name": "write", "parameters": {"text": "line 1\nline 2"}}'
    assert parser.parse(text).tool_call.parameters == {"text": "line 1\nline 2"}
    text = "TOOL_CALL {'tool_name': 'say', 'parameters': {'text': 'he said \"hi\", it\\'s {ok}'}}"
    assert parser.parse(text).tool_call.parameters == {"text": 'he said "hi", it\'s {ok}'}


def test_an_apostrophe_in_braced_prose_does_not_hide_a_later_call():
    text = 'Note {it\'s a placeholder} then {"tool_name": "a", "parameters": {"n": 1}}'
    result = parser.parse(text)
    assert [(c.tool_name, c.parameters) for c in result.tool_calls] == [("a", {"n": 1})]
    assert result.text == "Note {it's a placeholder} then"


def test_an_unclosed_array_is_reported_not_repaired():
    call = parser.parse('TOOL_CALL {"tool_name": "x", "parameters": {"a": [1, 2}}').tool_call
    assert call.tool_name == "x" and call.error.startswith("not valid JSON")


def test_replies_over_the_limit_are_not_read_for_calls():
    padding = " " * MAX_REPLY_CHARS
    result = parser.parse('TOOL_CALL {"tool_name": "x"}' + padding)
    assert result.tool_call.error.startswith(f"the reply is {MAX_REPLY_CHARS + 28:,} characters")
    long_text = '{"tool_name": "x"}' + padding
    assert parser.parse(long_text).tool_calls == [] and parser.parse(long_text).text == long_text


LONG_REPLIES = {
    "nested braces": lambda n: "{" * (n // 2) + "}" * (n // 2),
    "nested objects": lambda n: '{"a":' * (n // 6) + "1" + "}" * (n // 6),
    "nested calls": lambda n: '{"tool": 1, "x": ' * (n // 18) + "1" + "}" * (n // 18),
    "templates": lambda n: ("{{ name }} " * n)[:n],
    "open braces": lambda n: ("{ " * n)[:n],
    "quotes": lambda n: ('{"a": \'' * n)[:n],
    "fence and spaces": lambda n: "```" + " " * n + "{",
    "marker and spaces": lambda n: 'TOOL_CALL {"tool_name": "x"}' + " \t" * (n // 2),
    "many markers": lambda n: ("TOOL_CALL {" * n)[:n],
}


@pytest.mark.parametrize("shape", LONG_REPLIES)
def test_a_64k_reply_of_any_shape_parses_quickly(shape):
    """Linear, not quadratic: on the old parser 16k characters of braces took 50 s."""
    text = LONG_REPLIES[shape](64_000)
    started = time.perf_counter()
    parser.parse(text)
    elapsed = time.perf_counter() - started
    assert elapsed < 3.0, f"{shape}: {elapsed:.2f} s for {len(text):,} characters"


def test_memory_stays_small_on_deep_nesting():
    """Brackets too deep to decode are kept as one byte each, not as an entry per level."""
    import tracemalloc

    from selectools.structured import extract_json

    deep = "TOOL_CALL " + "{" * 30_000 + "[" * 30_000
    tracemalloc.start()
    try:
        parser.parse(deep)
        extract_json(deep)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, f"{peak:,} bytes for {len(deep):,} characters"
