"""Cost arithmetic against the docs' worked examples; warnings, analytics, verbose output."""

import pytest

from selectools import Agent, AgentConfig, UsageStats, tool
from selectools.exceptions import CostWarning
from selectools.testing import ScriptedProvider, reply, tool_call


@tool()
def search(query: str) -> str:
    """Search."""
    return f"results for {query}"


def test_estimated_usage_is_priced_with_the_registry():
    agent = Agent(provider=ScriptedProvider(["hello world"]), config=AgentConfig(model="gpt-4o"))
    result = agent.run("x")
    usage = result.usage.iterations[0]
    expected = usage.prompt_tokens / 1e6 * 2.5 + usage.completion_tokens / 1e6 * 10.0
    assert usage.cost_usd == pytest.approx(expected)
    assert agent.total_cost == pytest.approx(expected)


def test_worked_example_gpt_4o_1500_300():
    usage = UsageStats(prompt_tokens=1500, completion_tokens=300, cost_usd=0.00675, model="gpt-4o")
    provider = ScriptedProvider([reply("ok", usage=usage)])
    agent = Agent(provider=provider, config=AgentConfig(model="gpt-4o"))
    agent.run("x")
    assert agent.total_cost == pytest.approx(0.006750)
    assert agent.total_tokens == 1800


def test_agent_totals_are_sums_over_runs_and_reset():
    u1 = UsageStats(prompt_tokens=100, completion_tokens=10, cost_usd=0.01)
    u2 = UsageStats(prompt_tokens=200, completion_tokens=20, cost_usd=0.02)
    provider = ScriptedProvider([reply("a", usage=u1), reply("b", usage=u2)])
    agent = Agent(provider=provider)
    first = agent.run("x")
    second = agent.run("y")
    assert (first.usage.total_tokens, second.usage.total_tokens) == (110, 220)
    assert agent.total_tokens == 330
    assert agent.total_cost == pytest.approx(0.03)
    assert len(agent.usage.iterations) == 2
    assert "Total Tokens: 330" in agent.get_usage_summary()
    agent.reset_usage()
    assert agent.total_tokens == 0 and agent.total_cost == 0


def test_tool_calls_are_counted_per_tool():
    provider = ScriptedProvider(
        [[tool_call("search", query="a"), tool_call("search", query="b")], "done"]
    )
    agent = Agent(tools=[search], provider=provider)
    result = agent.run("x")
    assert result.usage.tool_usage == {"search": 2}


def test_cost_warning_is_a_warning_issued_once_per_run(capsys):
    usage = UsageStats(prompt_tokens=10, completion_tokens=10, cost_usd=0.125)
    provider = ScriptedProvider(
        [reply("a", tool_call("search", query="q"), usage=usage), reply("b", usage=usage)]
    )
    agent = Agent(
        tools=[search], provider=provider, config=AgentConfig(cost_warning_threshold=0.10)
    )
    with pytest.warns(CostWarning) as caught:
        agent.run("x")
    assert [str(w.message) for w in caught] == [
        "⚠️  Cost Warning: Total cost $0.125000 exceeds threshold $0.100000"
    ]
    assert capsys.readouterr().out == ""  # a library does not print
    assert caught[0].filename == __file__  # it points at the user's call, not at selectools


def test_analytics_only_when_enabled():
    assert Agent().get_analytics() is None
    provider = ScriptedProvider([[tool_call("search", query="py"), tool_call("nope")], "done"])
    agent = Agent(tools=[search], provider=provider, config=AgentConfig(enable_analytics=True))
    agent.run("x")
    analytics = agent.get_analytics()
    metrics = analytics.get_metrics("search")
    assert (metrics.total_calls, metrics.successful_calls) == (1, 1)
    assert metrics.parameter_usage == {"query": {"py": 1}}
    assert "nope" not in analytics.get_all_metrics()


def test_verbose_prints_the_run(capsys):
    provider = ScriptedProvider([tool_call("search", query="q"), "done"])
    Agent(tools=[search], provider=provider, config=AgentConfig(verbose=True, name="bot")).run("x")
    out = capsys.readouterr().out
    assert "[bot] iteration 1" in out
    assert "[bot] tool search({'query': 'q'})" in out
    assert "[bot] done (final)" in out
