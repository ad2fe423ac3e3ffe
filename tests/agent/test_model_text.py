"""Whatever text a model writes comes back as text, or as a parse error the model is told about."""

import pytest

from selectools import Agent, tool
from selectools.testing import ScriptedProvider


@tool()
def get_price(product: str) -> str:
    """Look up the price of a product."""
    return {"laptop": "$999"}.get(product, "unknown")


TEMPLATES = [
    "{{ 'hello' }}",
    "{{}}",
    "In Jinja write {{ user.name }}; in Vue, <p>{{ message | capitalize }}</p>.",
    "A set of sets is {{1, 2}}.",
]


@pytest.mark.parametrize("native", [True, False], ids=["native", "text"])
@pytest.mark.parametrize("text", TEMPLATES)
def test_template_text_is_the_answer(text, native):
    provider = ScriptedProvider([text], native_tools=native)
    result = Agent(tools=[get_price], provider=provider).run("How do templates look?")
    assert result.content == text and result.tool_calls == [] and result.iterations == 1


def test_a_native_provider_answer_with_tool_shaped_json_is_not_read_as_a_call():
    """The text protocol is for providers without native tools: only their prompt asks for it."""
    answer = 'Write it as {"tool": "get_price", "name": "laptop", "params": {}} in the config.'
    provider = ScriptedProvider([answer])
    result = Agent(tools=[get_price], provider=provider).run("How do I configure it?")
    assert result.content == answer and result.tool_calls == [] and provider.calls == 1


def test_a_call_the_parser_cannot_read_is_reported_to_the_model():
    provider = ScriptedProvider(
        ["TOOL_CALL {{ 'hello' }}", "Sorry, plain answer."], native_tools=False
    )
    result = Agent(tools=[get_price], provider=provider).run("price?")
    assert result.content == "Sorry, plain answer."
    told = provider.requests[1].messages[-1]
    assert told.is_error and "Could not read the tool call" in told.content
    assert "not valid JSON" in told.content


def test_an_unterminated_call_names_its_tool_to_the_model():
    bad = 'TOOL_CALL {"tool_name": "get_price", "parameters": {"product": "laptop"}'
    provider = ScriptedProvider([bad, "ok"], native_tools=False)
    assert Agent(tools=[get_price], provider=provider).run("price?").content == "ok"
    told = provider.requests[1].messages[-1].content
    assert "get_price" in told and "unterminated JSON after TOOL_CALL" in told
