"""A graph's total usage carries what its agents' usage says, cache counts included."""

from __future__ import annotations

from selectools import Agent, AgentConfig, UsageStats
from selectools.orchestration import AgentGraph
from selectools.testing import ScriptedProvider, reply


def _agent(cache_read: int, cache_write: int) -> Agent:
    usage = UsageStats.priced(
        "claude-sonnet-4-5", "anthropic", 1_000, 50,
        cache_read_tokens=cache_read, cache_write_tokens=cache_write,
    )  # fmt: skip
    return Agent(
        provider=ScriptedProvider([reply("done", usage=usage)]),
        config=AgentConfig(model="claude-sonnet-4-5"),
    )


def test_cache_tokens_of_agent_nodes_and_subgraphs_add_up_in_the_graph_total():
    inner = AgentGraph(name="inner")
    inner.add_node("c", _agent(300, 0), next_node=AgentGraph.END)
    graph = AgentGraph(name="outer")
    graph.add_node("a", _agent(600, 100), next_node="b")
    graph.add_node("b", _agent(0, 200), next_node="sub")
    graph.add_subgraph("sub", inner)
    graph.add_edge("sub", AgentGraph.END)
    result = graph.run("go")
    total = result.total_usage
    assert total.prompt_tokens == 3_000 and total.completion_tokens == 150
    assert (total.cache_read_tokens, total.cache_write_tokens) == (900, 300)
    agents = [r.usage for results in result.node_results.values() for r in results]
    assert round(total.cost_usd, 9) == round(sum(u.total_cost_usd for u in agents), 9)
