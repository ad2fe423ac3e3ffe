"""Retries with backoff and rate-limit cooldown (sleeps are faked and recorded)."""

import asyncio

import pytest

from selectools import Agent, AgentConfig, AgentObserver, ProviderError
from selectools.testing import ScriptedProvider


class RetryRecorder(AgentObserver):
    def __init__(self):
        self.retries = []

    def on_llm_retry(self, run_id, attempt, max_retries, error, backoff_seconds):
        self.retries.append((attempt, max_retries, str(error), backoff_seconds))


def _within(delays, bounds):
    return len(delays) == len(bounds) and all(
        low <= d <= high for d, (low, high) in zip(delays, bounds, strict=True)
    )


def test_every_attempt_fails(fake_sleep):
    recorder = RetryRecorder()
    provider = ScriptedProvider(default=ProviderError("server exploded", status_code=500))
    agent = Agent(provider=provider, config=AgentConfig(max_retries=2, observers=[recorder]))
    result = agent.run("x")
    assert provider.calls == 3
    # backoff_seconds * attempt, jittered down by up to half
    assert _within(fake_sleep, [(0.5, 1.0), (1.0, 2.0)])
    assert [r[:3] for r in recorder.retries] == [
        (1, 2, "server exploded"),
        (2, 2, "server exploded"),
    ]
    assert [r[3] for r in recorder.retries] == fake_sleep
    assert result.content == "Provider error: server exploded"
    assert result.stop_reason == "provider_error"
    assert isinstance(result.error, ProviderError)
    errors = result.trace.filter(type="error")
    assert len(errors) == 1 and "after 3 attempt(s)" in errors[0].summary
    assert len(result.trace.filter(type="llm_call", status="error")) == 3


def test_rate_limits_add_the_cooldown(fake_sleep):
    provider = ScriptedProvider(
        [ProviderError("Rate limit reached"), ProviderError("HTTP 429"), "ok"]
    )
    config = AgentConfig(max_retries=2, retry_backoff_seconds=1.0, rate_limit_cooldown_seconds=5.0)
    result = Agent(provider=provider, config=config).run("x")
    assert result.content == "ok"
    assert _within(fake_sleep, [(3.0, 6.0), (6.0, 12.0)])  # (backoff + cooldown) * attempt
    llm_steps = result.trace.filter(type="llm_call")
    assert [s.status for s in llm_steps] == ["error", "error", "ok"]
    assert llm_steps[-1].data == {"attempts": 3}


def test_retry_after_header_is_honoured_when_longer(fake_sleep):
    provider = ScriptedProvider(
        [ProviderError("slow down", status_code=429, retry_after=30.0), "ok"]
    )
    Agent(provider=provider, config=AgentConfig(retry_backoff_seconds=0.0)).run("x")
    assert _within(fake_sleep, [(30.0, 36.0)])  # never sooner than the server asked


def test_retry_after_replaces_the_cooldown_when_shorter(fake_sleep):
    provider = ScriptedProvider(
        [ProviderError("slow down", status_code=429, retry_after=0.1), "ok"]
    )
    Agent(provider=provider, config=AgentConfig(rate_limit_cooldown_seconds=5.0)).run("x")
    assert _within(fake_sleep, [(0.1, 0.12)])


def test_retry_after_past_the_cap_ends_the_run(fake_sleep):
    provider = ScriptedProvider(
        [ProviderError("slow down", status_code=429, retry_after=120.0), "ok"]
    )
    config = AgentConfig(max_retry_after_seconds=60)
    result = Agent(provider=provider, config=config).run("x")
    assert result.stop_reason == "provider_error"
    assert provider.calls == 1 and fake_sleep == []


def test_backoff_is_jittered(fake_sleep):
    for _ in range(20):
        Agent(provider=ScriptedProvider([ProviderError("flaky"), "ok"])).run("x")
    assert len(fake_sleep) == 20
    assert all(0.5 <= d <= 1.0 for d in fake_sleep)
    assert len(set(fake_sleep)) > 10  # not in lock-step


def test_zero_backoff_does_not_sleep(fake_sleep):
    provider = ScriptedProvider([ProviderError("flaky"), "ok"])
    result = Agent(provider=provider, config=AgentConfig(retry_backoff_seconds=0)).run("x")
    assert result.content == "ok"
    assert fake_sleep == []


def test_async_retries_use_the_same_schedule(fake_sleep):
    provider = ScriptedProvider([ProviderError("a"), ProviderError("b"), "ok"])
    result = asyncio.run(Agent(provider=provider).arun("x"))
    assert result.content == "ok"
    assert _within(fake_sleep, [(0.5, 1.0), (1.0, 2.0)])


@pytest.mark.parametrize("max_retries", [0, 1, 4])
def test_attempt_count_is_max_retries_plus_one(fake_sleep, max_retries):
    provider = ScriptedProvider(default=ProviderError("down"))
    Agent(provider=provider, config=AgentConfig(max_retries=max_retries)).run("x")
    assert provider.calls == max_retries + 1
