"""The documented loop paths, driven by ScriptedProvider through the public API."""

import pytest

from selectools import Agent, AgentConfig, ConversationMemory, Message, ProviderError, Role, tool
from selectools.testing import LocalProvider, ScriptedProvider, reply, tool_call


@tool()
def get_price(product: str) -> str:
    """Look up the price of a product."""
    return {"laptop": "$999"}.get(product, "unknown")


@tool()
def explode(reason: str) -> str:
    """Always fails."""
    raise RuntimeError(f"kaboom: {reason}")


def test_agent_defaults():
    agent = Agent()
    assert isinstance(agent.provider, LocalProvider)
    assert agent.name == "agent"
    assert agent.config.model == "gpt-5-mini"
    assert Agent(config=AgentConfig(name="researcher")).name == "researcher"
    assert repr(agent) == "Agent(name='agent', provider='local', model='local', tools=[])"


def test_config_defaults_match_the_docs():
    config = AgentConfig()
    assert (config.model, config.temperature, config.max_tokens, config.max_iterations) == (
        "gpt-5-mini",
        0.0,
        1000,
        6,
    )
    assert (
        config.max_retries,
        config.retry_backoff_seconds,
        config.rate_limit_cooldown_seconds,
    ) == (2, 1.0, 5.0)
    assert (
        config.request_timeout,
        config.tool_timeout_seconds,
        config.parallel_tool_execution,
    ) == (30.0, None, True)
    assert AgentConfig().observers is not AgentConfig().observers


def test_hooks_are_rejected_with_a_pointer_to_observers():
    with pytest.raises(TypeError, match="observers"):
        AgentConfig(hooks={"on_tool_start": print})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_iterations": 0}, "max_iterations"),
        ({"max_retries": -1}, "max_retries"),
        ({"tool_timeout_seconds": 0}, "tool_timeout_seconds"),
    ],
)
def test_config_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        AgentConfig(**kwargs)


def test_local_provider_echoes_the_prompt():
    agent = Agent(
        tools=[get_price],
        provider=LocalProvider(),
        config=AgentConfig(max_iterations=2, model="local"),
    )
    result = agent.run([Message(role=Role.USER, content="Hello")])
    assert result.content == "Hello"
    assert result.iterations == 1
    assert result.stop_reason == "final"
    assert agent.total_tokens > 0
    assert agent.total_cost == 0.0


def test_tool_loop_with_native_calls():
    provider = ScriptedProvider(
        [tool_call("get_price", product="laptop"), "The laptop costs $999."]
    )
    agent = Agent(tools=[get_price], provider=provider)
    result = agent.ask("How much is a laptop?")
    assert result.content == "The laptop costs $999."
    assert result.iterations == 2
    assert [c.tool_name for c in result.tool_calls] == ["get_price"]
    assert result.tool_name == "get_price" and result.tool_args == {"product": "laptop"}
    second = provider.requests[1]
    assert [m.role for m in second.messages] == [Role.USER, Role.ASSISTANT, Role.TOOL]
    assert second.messages[2].content == "$999"
    assert second.messages[2].tool_call_id == second.messages[1].tool_calls[0].id
    assert second.tools == ["get_price"]
    assert result.provider_used == "scripted"


def test_text_protocol_calls_are_parsed_and_reasoning_kept():
    provider = ScriptedProvider(
        [reply("I need the price first.", tool_call("get_price", product="laptop")), "Done."],
        native_tools=False,
    )
    agent = Agent(tools=[get_price], provider=provider)
    result = agent.run("price?")
    assert "TOOL_CALL" in provider.requests[0].system_prompt
    assert result.content == "Done."
    assert result.reasoning == "I need the price first."
    assert result.reasoning_history == ["I need the price first."]
    assert provider.requests[1].messages[-1].content == "$999"
    selection = result.trace.filter(type="tool_selection")[0]
    assert selection.reasoning == "I need the price first."


def test_native_provider_prompt_has_no_text_contract():
    agent = Agent(tools=[get_price], provider=ScriptedProvider(["ok"]))
    assert "TOOL_CALL" not in agent.system_prompt


def test_unknown_tool_goes_back_to_the_model():
    provider = ScriptedProvider([tool_call("nope", x=1), "recovered"])
    result = Agent(tools=[get_price], provider=provider).run("x")
    assert result.content == "recovered"
    tool_message = provider.requests[1].messages[-1]
    assert tool_message.content == "Unknown tool 'nope'. Available: ['get_price']"
    assert tool_message.is_error


def test_bad_arguments_go_back_to_the_model():
    provider = ScriptedProvider([tool_call("get_price", produkt="laptop"), "recovered"])
    result = Agent(tools=[get_price], provider=provider).run("x")
    assert result.content == "recovered"
    feedback = provider.requests[1].messages[-1].content
    assert "Tool Validation Error: 'get_price'" in feedback
    assert "Did you mean 'product'?" in feedback


def test_a_raising_tool_goes_back_to_the_model():
    provider = ScriptedProvider([tool_call("explode", reason="test"), "recovered"])
    result = Agent(tools=[explode], provider=provider).run("x")
    assert result.content == "recovered"
    assert (
        provider.requests[1].messages[-1].content == "Error executing tool 'explode': kaboom: test"
    )
    step = result.trace.filter(type="tool_execution")[0]
    assert step.status == "error" and "kaboom" in step.error


def test_unreadable_tool_arguments_never_run_the_tool():
    ran = []

    @tool()
    def record(value: str) -> str:
        """Records."""
        ran.append(value)
        return value

    from selectools import ToolCall

    bad = ToolCall(tool_name="record", id="c1", error="Unterminated string at char 12")
    provider = ScriptedProvider([[bad], "ok"])
    Agent(tools=[record], provider=provider).run("x")
    assert ran == []
    assert "Could not read the arguments" in provider.requests[1].messages[-1].content


def test_tool_timeout_is_reported_and_the_run_continues():
    import time

    @tool()
    def slow() -> str:
        """Sleeps."""
        time.sleep(2)
        return "late"

    provider = ScriptedProvider([tool_call("slow"), "moved on"])
    agent = Agent(tools=[slow], provider=provider, config=AgentConfig(tool_timeout_seconds=0.1))
    started = time.perf_counter()
    result = agent.run("x")
    assert time.perf_counter() - started < 1.5
    assert result.content == "moved on"
    assert (
        provider.requests[1].messages[-1].content
        == "Error executing tool 'slow': Tool 'slow' timed out after 0.1s"
    )


def test_max_iterations_stops_without_raising():
    provider = ScriptedProvider(default=tool_call("get_price", product="laptop"))
    result = Agent(tools=[get_price], provider=provider, config=AgentConfig(max_iterations=3)).run(
        "x"
    )
    assert provider.calls == 3
    assert result.iterations == 3
    assert result.stop_reason == "max_iterations"
    assert "max_iterations=3" in result.content


@pytest.mark.parametrize("how", ["terminal", "stop_condition"])
def test_terminal_tools_end_the_loop(how):
    @tool(terminal=(how == "terminal"))
    def present_question(question_id: int) -> str:
        """Present a question."""
        return f"Question {question_id} presented"

    config = AgentConfig(
        stop_condition=(lambda name, result: "present" in name) if how == "stop_condition" else None
    )
    provider = ScriptedProvider([tool_call("present_question", question_id=7), "never reached"])
    result = Agent(tools=[present_question], provider=provider, config=config).run("x")
    assert provider.calls == 1
    assert result.content == "Question 7 presented"
    assert result.stop_reason == "terminal_tool"


def test_routing_only_makes_one_call_and_runs_nothing():
    ran = []

    @tool()
    def support_tool(topic: str) -> str:
        """Support."""
        ran.append(topic)
        return topic

    provider = ScriptedProvider([tool_call("support_tool", topic="billing"), "unused"])
    result = Agent(
        tools=[support_tool], provider=provider, config=AgentConfig(routing_only=True)
    ).run("bill")
    assert provider.calls == 1 and ran == []
    assert result.tool_name == "support_tool" and result.tool_args == {"topic": "billing"}
    assert result.stop_reason == "routing"
    assert {s.type for s in result.trace} == {"llm_call", "tool_selection"}


def test_add_and_remove_tool():
    agent = Agent(
        provider=ScriptedProvider(
            [
                tool_call("get_price", product="laptop"),
                "a",
                tool_call("get_price", product="laptop"),
                "b",
            ]
        )
    )
    agent.add_tool(get_price)
    assert [t.name for t in agent.tools] == ["get_price"]
    assert agent.run("x").tool_calls[0].tool_name == "get_price"
    assert agent.provider.requests[1].messages[-1].content == "$999"
    agent.remove_tool("get_price")
    agent.run("x")
    assert agent.provider.requests[3].messages[-1].content.startswith("Unknown tool 'get_price'")
    with pytest.raises(KeyError, match="no tool named 'get_price'"):
        agent.remove_tool("get_price")


def test_duplicate_tool_names_are_rejected_at_construction():
    with pytest.raises(ValueError, match="unique"):
        Agent(tools=[get_price, get_price])


def test_placeholder_tools_are_a_clear_error():
    with pytest.raises(TypeError, match="tools must be Tool objects"):
        Agent(tools=[...])


def test_plain_functions_become_tools():
    def shout(text: str) -> str:
        """Uppercase the text."""
        return text.upper()

    agent = Agent(tools=[shout], provider=ScriptedProvider([tool_call("shout", text="hi"), "ok"]))
    agent.run("x")
    assert agent.provider.requests[1].messages[-1].content == "HI"


def test_ask_run_and_call_are_equivalent():
    agent = Agent(provider=LocalProvider())
    assert agent.ask("same").content == agent.run("same").content == agent("same").content


def test_message_inputs():
    agent = Agent()
    assert agent.run(Message(role=Role.USER, content="a")).content == "a"
    assert agent.run([{"role": "user", "content": "b"}]).content == "b"
    with pytest.raises(TypeError, match="prompt string"):
        agent.run(42)


def test_explicit_model_wins_over_provider_default():
    provider = ScriptedProvider(["ok", "ok"], model="provider-model")
    assert Agent(provider=provider).model == "provider-model"
    assert Agent(provider=provider, config=AgentConfig(model="gpt-4o")).model == "gpt-4o"
    Agent(provider=provider, config=AgentConfig(model="gpt-4o")).run("x")
    assert provider.requests[0].model == "gpt-4o"


def test_system_prompt_comes_first():
    agent = Agent(
        tools=[get_price],
        provider=ScriptedProvider(["ok"], native_tools=False),
        config=AgentConfig(system_prompt="You are a medical assistant."),
    )
    agent.run("x")
    prompt = agent.provider.requests[0].system_prompt
    assert prompt.startswith("You are a medical assistant.")
    assert prompt.index("You are a medical assistant.") < prompt.index("Available tools")
    assert Agent(system_prompt="Be terse.").config.system_prompt == "Be terse."


def test_reset_clears_memory_and_usage():
    memory = ConversationMemory()
    agent = Agent(memory=memory)
    agent.run("hello")
    assert agent.total_tokens > 0 and len(memory) == 2
    agent.reset()
    assert agent.total_tokens == 0 and len(memory) == 0


def test_exceptions_from_the_provider_propagate_and_are_traced():
    class Broken:
        name = "broken"
        supports_streaming = False
        supports_async = False

        def complete(self, **kwargs):
            raise ValueError("bug in custom provider")

    events = []
    from selectools import SimpleStepObserver

    agent = Agent(
        provider=Broken(), config=AgentConfig(observers=[SimpleStepObserver(events.append)])
    )
    with pytest.raises(ValueError, match="bug in custom provider"):
        agent.run("x")
    assert events[-1].name == "on_error"
    assert isinstance(events[-1]["error"], ValueError)


def test_provider_errors_that_cannot_be_retried_end_the_run(fake_sleep):
    provider = ScriptedProvider(
        [ProviderError("invalid api key", status_code=401, retryable=False)]
    )
    result = Agent(provider=provider).run("x")
    assert provider.calls == 1
    assert fake_sleep == []
    assert result.stop_reason == "provider_error"
    assert result.content == "Provider error: invalid api key"
    assert isinstance(result.error, ProviderError)


def test_result_carries_the_runs_conversation():
    provider = ScriptedProvider([tool_call("get_price", product="laptop"), "It costs $999."])
    result = Agent(tools=[get_price], provider=provider).run("price?")
    assert [m.role for m in result.messages] == [
        Role.USER,
        Role.ASSISTANT,
        Role.TOOL,
        Role.ASSISTANT,
    ]
    assert result.messages[-1].content == "It costs $999."
