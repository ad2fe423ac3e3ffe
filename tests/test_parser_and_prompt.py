import json

from selectools import PromptBuilder, ToolCallParser
from selectools.parser import loads_lenient
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
