"""Prompt caching and long prompts are priced as the providers bill them.

Each provider reports its cache counts in its own wire format (OpenAI
``prompt_tokens_details.cached_tokens``, Anthropic ``cache_read_input_tokens`` /
``cache_creation_input_tokens``, Gemini ``cachedContentTokenCount``); the fake server sends
them, the real SDK clients parse them, and :class:`UsageStats` carries them normalised
(``prompt_tokens`` is all input, the cache counts are parts of it).
"""

from __future__ import annotations

import asyncio

import pytest

from selectools import Agent, Message, Role
from selectools.pricing import calculate_cost
from selectools.testing import FakeReply
from selectools.usage import UsageStats

from .conftest import fast_config, make_provider

pytestmark = pytest.mark.timeout(60)

USER = [Message(role=Role.USER, content="Summarise the attached contract.")]

# A model of each vendor that has a cache price (Azure's deployment in conftest is gpt-4o).
MODELS = {
    "openai": "gpt-4o",
    "azure": "gpt-4o",
    "anthropic": "claude-sonnet-4-6",
    "gemini": "gemini-2.5-pro",
}


def _call(provider, method: str, model: str) -> UsageStats:
    options = {"model": model, "system_prompt": "", "messages": USER, "timeout": 5.0}
    if method == "complete":
        return provider.complete(**options)[1]
    if method == "acomplete":
        return asyncio.run(provider.acomplete(**options))[1]
    if method == "stream":
        items = list(provider.stream(**options))
    else:

        async def collect():
            return [item async for item in provider.astream(**options)]

        items = asyncio.run(collect())
    usages = [item for item in items if isinstance(item, UsageStats)]
    assert len(usages) == 1
    return usages[0]


@pytest.mark.parametrize("method", ["complete", "acomplete", "stream", "astream"])
@pytest.mark.parametrize("vendor", sorted(MODELS))
def test_cache_reads_are_recorded_and_priced(vendor, method, server):
    provider = make_provider(vendor, server)
    model = MODELS[vendor]
    server.add(FakeReply("Done.", usage=(10_000, 200), cache_read_tokens=8_000))
    usage = _call(provider, method, model)
    assert (usage.prompt_tokens, usage.completion_tokens) == (10_000, 200)
    assert usage.cache_read_tokens == 8_000 and usage.cache_write_tokens == 0
    expected = calculate_cost(model, 10_000, 200, cache_read_tokens=8_000)
    assert usage.cost_usd == pytest.approx(expected)
    # cheaper than the same prompt uncached: the read price is a fraction of the input price
    assert usage.cost_usd < calculate_cost(model, 10_000, 200) * 0.75


@pytest.mark.parametrize("method", ["complete", "stream"])
def test_anthropic_cache_writes_cost_more_than_input(method, server):
    provider = make_provider("anthropic", server)
    model = MODELS["anthropic"]
    server.add(FakeReply("Done.", usage=(10_000, 0), cache_write_tokens=10_000))
    usage = _call(provider, method, model)
    assert usage.prompt_tokens == 10_000 and usage.cache_write_tokens == 10_000
    # 10k tokens written at $3.75 / 1M (1.25x the $3 input price)
    assert usage.cost_usd == pytest.approx(10_000 * 3.75 / 1_000_000)


def test_worked_figures_against_uncached_pricing():
    # 80 % of a 10k prompt cached: gpt-4o bills cache reads at half price, claude at a tenth
    assert calculate_cost("gpt-4o", 10_000, 0, cache_read_tokens=8_000) == pytest.approx(
        (2_000 * 2.50 + 8_000 * 1.25) / 1e6
    )
    assert calculate_cost("claude-sonnet-4-5", 10_000, 0, cache_read_tokens=8_000) == (
        pytest.approx((2_000 * 3.00 + 8_000 * 0.30) / 1e6)
    )
    # a 300k-token prompt crosses Gemini 2.5 Pro's 200k tier: the whole request at 2x / 1.5x
    assert calculate_cost("gemini-2.5-pro", 300_000, 1_000) == pytest.approx(
        (300_000 * 2.50 + 1_000 * 15.00) / 1e6
    )
    assert calculate_cost("gemini-2.5-pro", 200_000, 1_000) == pytest.approx(
        (200_000 * 1.25 + 1_000 * 10.00) / 1e6
    )
    # a model without a cache discount bills cached tokens as input
    assert calculate_cost("gpt-4", 1_000, 0, cache_read_tokens=900) == calculate_cost(
        "gpt-4", 1_000, 0
    )


def test_an_agent_run_totals_cache_tokens_and_cost(server):
    provider = make_provider("anthropic", server)
    server.add(FakeReply("First.", usage=(5_000, 50), cache_write_tokens=4_000))
    server.add(FakeReply("Second.", usage=(5_100, 60), cache_read_tokens=4_000))
    agent = Agent(tools=[], provider=provider, config=fast_config(model=MODELS["anthropic"]))
    agent.run("one")
    agent.run("two")
    usage = agent.usage
    assert usage.total_cache_write_tokens == 4_000 and usage.total_cache_read_tokens == 4_000
    expected = calculate_cost(
        MODELS["anthropic"], 5_000, 50, cache_write_tokens=4_000
    ) + calculate_cost(MODELS["anthropic"], 5_100, 60, cache_read_tokens=4_000)
    assert usage.total_cost_usd == pytest.approx(expected)
    assert "(cached: 4,000 read, 4,000 written)" in str(usage)


def test_usage_round_trips_cache_counts():
    stats = UsageStats.priced("gpt-4o", "openai", 1_000, 10, cache_read_tokens=600)
    again = UsageStats.from_dict(stats.to_dict())
    assert again == stats and again.cache_read_tokens == 600
