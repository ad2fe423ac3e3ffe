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


def test_every_attempt_fails(fake_sleep):
    recorder = RetryRecorder()
    provider = ScriptedProvider(default=ProviderError("server exploded", status_code=500))
    agent = Agent(provider=provider, config=AgentConfig(max_retries=2, observers=[recorder]))
    result = agent.run("x")
    assert provider.calls == 3
    assert fake_sleep == [1.0, 2.0]
    assert recorder.retries == [(1, 2, "server exploded", 1.0), (2, 2, "server exploded", 2.0)]
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
    assert fake_sleep == [1.0 + 5.0, 2.0 + 10.0]
    llm_steps = result.trace.filter(type="llm_call")
    assert [s.status for s in llm_steps] == ["error", "error", "ok"]
    assert llm_steps[-1].data == {"attempts": 3}


def test_retry_after_header_is_honoured_when_longer(fake_sleep):
    provider = ScriptedProvider(
        [ProviderError("slow down", status_code=429, retry_after=30.0), "ok"]
    )
    Agent(provider=provider, config=AgentConfig(retry_backoff_seconds=0.0)).run("x")
    assert fake_sleep == [30.0]


def test_zero_backoff_does_not_sleep(fake_sleep):
    provider = ScriptedProvider([ProviderError("flaky"), "ok"])
    result = Agent(provider=provider, config=AgentConfig(retry_backoff_seconds=0)).run("x")
    assert result.content == "ok"
    assert fake_sleep == []


def test_async_retries_use_the_same_schedule(fake_sleep):
    provider = ScriptedProvider([ProviderError("a"), ProviderError("b"), "ok"])
    result = asyncio.run(Agent(provider=provider).arun("x"))
    assert result.content == "ok"
    assert fake_sleep == [1.0, 2.0]


@pytest.mark.parametrize("max_retries", [0, 1, 4])
def test_attempt_count_is_max_retries_plus_one(fake_sleep, max_retries):
    provider = ScriptedProvider(default=ProviderError("down"))
    Agent(provider=provider, config=AgentConfig(max_retries=max_retries)).run("x")
    assert provider.calls == max_retries + 1
