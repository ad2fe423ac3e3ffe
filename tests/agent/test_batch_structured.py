"""Batch runs with structured output: order, concurrency, isolation and progress, sync and async."""

import asyncio
import json
import threading
import time
from typing import Literal

from pydantic import BaseModel

from selectools import Agent, AgentConfig, ProviderError, RetryConfig, StructuredOutputError
from selectools.testing import ScriptedProvider


class Ticket(BaseModel):
    intent: Literal["cancel", "upgrade", "billing"]
    priority: int


ANSWERS = {
    "Cancel my sub": {"intent": "cancel", "priority": 2},
    "How do I upgrade?": {"intent": "upgrade", "priority": 1},
    "Payment failed": {"intent": "billing", "priority": 3},
}


def classifier():
    """A model that answers each prompt with its JSON; "?!" gets prose, "boom" fails."""
    state = {"active": 0, "peak": 0}
    lock = threading.Lock()

    def respond(request):
        with lock:
            state["active"] += 1
            state["peak"] = max(state["peak"], state["active"])
        time.sleep(0.03)
        with lock:
            state["active"] -= 1
        prompt = request.messages[0].text
        if prompt == "boom":
            return ProviderError("upstream 500", retryable=False)
        if prompt == "?!":
            return "I am not sure what you mean."
        return "```json\n" + json.dumps(ANSWERS[prompt]) + "\n```"

    return ScriptedProvider(respond), state


PROMPTS = ["Cancel my sub", "?!", "How do I upgrade?", "boom", "Payment failed"]


def _check(results, state, limit):
    assert len(results) == 5
    assert [r.parsed for r in results[::2]] == [Ticket(**ANSWERS[p]) for p in PROMPTS[::2]]
    assert all(r.error is None and r.stop_reason == "final" for r in results[::2])
    assert isinstance(results[1].error, StructuredOutputError) and results[1].parsed is None
    assert results[3].stop_reason == "provider_error"
    assert state["peak"] <= limit


def test_batch_with_response_format():
    provider, state = classifier()
    agent = Agent(provider=provider, config=AgentConfig(retry=RetryConfig(max_retries=1)))
    progress = []
    results = agent.batch(
        PROMPTS,
        max_concurrency=2,
        response_format=Ticket,
        on_progress=lambda d, t: progress.append((d, t)),
    )
    _check(results, state, 2)
    assert sorted(progress) == [(k, 5) for k in range(1, 6)]
    # every request carried the schema instruction
    assert all('"priority"' in r.system_prompt for r in provider.requests)


def test_abatch_with_response_format():
    provider, state = classifier()
    agent = Agent(provider=provider, config=AgentConfig(retry=RetryConfig(max_retries=1)))
    progress = []
    results = asyncio.run(
        agent.abatch(
            PROMPTS,
            max_concurrency=3,
            response_format=Ticket,
            on_progress=lambda d, t: progress.append(d),
        )
    )
    _check(results, state, 3)
    assert sorted(progress) == [1, 2, 3, 4, 5]
