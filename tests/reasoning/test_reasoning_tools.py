"""Reasoning tools (bounded think/analyze) and PromptBuilder reasoning strategies."""

from __future__ import annotations

import pytest

from selectools import Agent, AgentConfig, PromptBuilder, tool
from selectools.prompt import DEFAULT_INSTRUCTIONS, REASONING_STRATEGIES
from selectools.testing import ScriptedProvider, reply, tool_call
from selectools.toolbox.reasoning_tools import (
    ReasoningStep,
    ReasoningTools,
    make_reasoning_tools,
)
from selectools.trace import StepType


@tool()
def migrate(table: str) -> str:
    """Migrates one table."""
    return f"{table} migrated"


def test_make_reasoning_tools_gives_think_and_analyze():
    tools = make_reasoning_tools()
    assert [t.name for t in tools] == ["think", "analyze"]
    think, analyze = tools
    assert "at least 1 and at most 10" in think.description
    assert list(think.schema()["parameters"]["properties"]) == ["thought"]
    assert list(analyze.schema()["parameters"]["properties"]) == ["analysis"]
    # each call makes a fresh log
    other = make_reasoning_tools()
    assert other[0] is not think


def test_steps_are_recorded_in_the_run_and_share_one_budget():
    reasoning = ReasoningTools(min_steps=2, max_steps=6)
    agent = Agent(
        tools=[migrate, *reasoning.tools],
        provider=ScriptedProvider(
            [
                tool_call("think", thought="Users first, then orders."),
                tool_call("migrate", table="users"),
                tool_call("analyze", analysis="Users done; orders next."),
                tool_call("migrate", table="orders"),
                "Both tables migrated.",
            ]
        ),
    )
    result = agent.run("Plan and execute the migration.")
    assert result.content == "Both tables migrated."
    assert reasoning.steps == [
        ReasoningStep(1, "think", "Users first, then orders."),
        ReasoningStep(2, "analyze", "Users done; orders next."),
    ]
    assert reasoning.count == 2
    # visible in the trace as tool executions with the acknowledgement
    executed = [s.tool_name for s in result.trace.filter(StepType.TOOL_EXECUTION)]
    assert executed == ["think", "migrate", "analyze", "migrate"]
    first = result.trace.filter(StepType.TOOL_EXECUTION, tool_name="think")[0]
    assert first.result == (
        "Recorded think step 1. At least 1 more reasoning step(s) expected before answering. "
        "5 reasoning step(s) left."
    )
    reasoning.reset()
    assert reasoning.steps == [] and reasoning.count == 0


def test_max_steps_is_enforced_and_calls_past_it_say_stop():
    reasoning = ReasoningTools(max_steps=2)
    think, analyze = reasoning.think_tool(), reasoning.analyze_tool()
    assert think.execute({"thought": "a"}).startswith("Recorded think step 1.")
    assert analyze.execute({"analysis": "b"}) == (
        "Recorded analyze step 2. That was the last reasoning step: answer next."
    )
    refused = think.execute({"thought": "c"})
    assert refused == (
        "Reasoning budget reached (2 steps): stop reasoning now and give your final answer."
    )
    assert [(s.index, s.kind, s.content) for s in reasoning.steps] == [
        (1, "think", "a"),
        (2, "analyze", "b"),
    ]
    reasoning.reset()
    assert think.execute({"thought": "again"}).startswith("Recorded think step 1.")


def test_unbounded_and_optional():
    reasoning = ReasoningTools(min_steps=0, max_steps=None)
    for i in range(25):
        reasoning.record("think", str(i))
    assert reasoning.count == 25
    assert "no upper limit" in reasoning.think_tool().description


@pytest.mark.parametrize(
    "kwargs", [{"min_steps": -1}, {"max_steps": 0}, {"min_steps": 5, "max_steps": 3}]
)
def test_invalid_bounds_raise_value_error(kwargs):
    with pytest.raises(ValueError):
        ReasoningTools(**kwargs)
    with pytest.raises(ValueError):
        make_reasoning_tools(**kwargs)


def test_prompt_builder_strategies_add_their_instructions():
    plain = PromptBuilder().build([migrate], native_tools=True)
    assert plain == DEFAULT_INSTRUCTIONS  # unchanged without a strategy
    react = PromptBuilder(reasoning_strategy="react").build([migrate], native_tools=True)
    assert react == f"{DEFAULT_INSTRUCTIONS}\n\n{REASONING_STRATEGIES['react']}"
    cot = PromptBuilder(reasoning_strategy="cot").build([], system_prompt="Be brief.")
    assert cot == f"Be brief.\n\n{REASONING_STRATEGIES['cot']}"
    text_mode = PromptBuilder(reasoning_strategy="react").build([migrate])
    assert text_mode.index(REASONING_STRATEGIES["react"]) < text_mode.index("Tool call contract")
    with pytest.raises(ValueError, match="unknown reasoning_strategy 'tot'"):
        PromptBuilder(reasoning_strategy="tot")


def test_agent_config_reasoning_strategy_reaches_the_model():
    provider = ScriptedProvider([reply("ok")])
    agent = Agent(
        tools=[migrate],
        provider=provider,
        config=AgentConfig(reasoning_strategy="react", system_prompt="You migrate databases."),
    )
    agent.run("go")
    assert provider.requests[0].system_prompt.startswith("You migrate databases.\n\nReasoning")
    with pytest.raises(ValueError, match="reasoning_strategy"):
        AgentConfig(reasoning_strategy="bogus")
