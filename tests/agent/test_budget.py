"""Token and cost budgets: checked before each model call, stopping once spend reaches the limit."""

import asyncio

import pytest

from selectools import Agent, AgentConfig, AgentObserver, UsageStats, tool
from selectools.testing import ScriptedProvider, reply, tool_call


@tool()
def analyze(part: int) -> str:
    """Analyze one part of the dataset."""
    return f"part {part} analyzed"


class BudgetWatcher(AgentObserver):
    def __init__(self):
        self.calls = []

    def on_budget_exceeded(self, run_id, reason, tokens_used, cost_used):
        self.calls.append((reason, tokens_used, cost_used))


def usage(tokens, cost=0.0):
    return UsageStats(prompt_tokens=tokens - 100, completion_tokens=100, cost_usd=cost, model="m")


def turns(*tokens, cost=0.0):
    """One tool-calling model turn per entry, each reporting that many tokens."""
    return [
        reply(f"working on part {i}", tool_call("analyze", part=i), usage=usage(n, cost))
        for i, n in enumerate(tokens, 1)
    ]


def test_the_documented_token_example_stops_at_iteration_four():
    watcher = BudgetWatcher()
    provider = ScriptedProvider(turns(15_000, 20_000, 18_000, 1_000))
    config = AgentConfig(max_total_tokens=50_000, max_iterations=12, observers=[watcher])
    result = Agent(tools=[analyze], provider=provider, config=config).run("Analyze this dataset")
    assert provider.calls == 3  # iteration 4 was stopped before its model call
    assert result.stop_reason == "budget_exceeded" and result.error is None
    assert "budget exceeded" in result.content.lower()
    assert "Partial result:\nworking on part 3" in result.content
    assert result.usage.total_tokens == 53_000
    step = result.trace.filter(type="budget_exceeded")[0]
    assert step.summary == "Token budget exceeded: 53000/50000 tokens"
    assert watcher.calls == [("Token budget exceeded: 53000/50000 tokens", 53_000, 0.0)]
    # the tools of the last paid-for turn still ran
    assert len(result.trace.filter(type="tool_execution")) == 3


def test_reaching_the_limit_exactly_stops():
    provider = ScriptedProvider(turns(500, 500))
    result = Agent(
        tools=[analyze], provider=provider, config=AgentConfig(max_total_tokens=500)
    ).run("x")
    assert provider.calls == 1 and result.stop_reason == "budget_exceeded"


def test_cost_budget_and_async():
    watcher = BudgetWatcher()
    provider = ScriptedProvider(turns(1000, 1000, 1000, cost=0.08))
    config = AgentConfig(max_cost_usd=0.20, observers=[watcher])
    agent = Agent(tools=[analyze], provider=provider, config=config)
    result = asyncio.run(agent.arun("x"))
    assert provider.calls == 3  # 0.08, 0.16, 0.24 >= 0.20: stop before the fourth
    assert result.stop_reason == "budget_exceeded"
    reason, tokens, cost = watcher.calls[0]
    assert reason.startswith("Cost budget exceeded: $0.24") and tokens == 3000
    assert cost == pytest.approx(0.24)


def test_under_budget_runs_normally_and_iterations_still_apply():
    provider = ScriptedProvider([*turns(10, 10), "all done"])
    config = AgentConfig(max_total_tokens=10**6, max_cost_usd=5.0)
    result = Agent(tools=[analyze], provider=provider, config=config).run("x")
    assert result.stop_reason == "final" and result.content == "all done"
    provider = ScriptedProvider(turns(10, 10, 10))
    config = AgentConfig(max_total_tokens=10**6, max_iterations=2)
    assert (
        Agent(tools=[analyze], provider=provider, config=config).run("x").stop_reason
        == "max_iterations"
    )


def test_budget_stop_in_a_stream():
    provider = ScriptedProvider(turns(600, 600))
    agent = Agent(tools=[analyze], provider=provider, config=AgentConfig(max_total_tokens=500))
    items = list(agent.stream("x"))
    assert items[-1].stop_reason == "budget_exceeded" and provider.calls == 1


@pytest.mark.parametrize(
    "kwargs",
    [{"max_total_tokens": 0}, {"max_total_tokens": 1.5}, {"max_cost_usd": 0}, {"max_cost_usd": -1}],
)
def test_invalid_budgets(kwargs):
    with pytest.raises(ValueError, match="max_"):
        AgentConfig(**kwargs)


def test_verbose_mode_says_why_the_run_stopped(capsys):
    provider = ScriptedProvider(turns(600, 600))
    config = AgentConfig(max_total_tokens=500, verbose=True)
    Agent(tools=[analyze], provider=provider, config=config).run("x")
    assert "[agent] Token budget exceeded: 600/500 tokens; stopping" in capsys.readouterr().out
