"""Tool-call arguments a model writes, read by a provider: never an exception from the run.

Only the vendors whose wire format carries arguments as a JSON string are driven
here: for the others the arguments are part of the response body itself.
"""

from __future__ import annotations

import pytest

from selectools import Agent, tool
from selectools.testing import FakeReply, FakeToolCall

from .conftest import fast_config, make_provider

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("entry", ["run", "stream"])
@pytest.mark.parametrize("vendor", ["openai", "azure"])
def test_deeply_nested_arguments_are_reported_to_the_model(vendor, entry, server):
    runs: list[object] = []

    @tool()
    def store(value: str) -> str:
        """Store a value."""
        runs.append(value)
        return "stored"

    nested = '{"value": ' + "[" * 50_000 + "]" * 50_000 + "}"
    server.add(FakeReply(tool_calls=[FakeToolCall("store", nested)]), "I will send less.")
    agent = Agent(tools=[store], provider=make_provider(vendor, server), config=fast_config())
    result = agent.run("Store it") if entry == "run" else list(agent.stream("Store it"))[-1]
    assert runs == [] and result.content == "I will send less."
    told = server.requests[1].body.decode()
    assert "Could not read the arguments: arguments are nested too deeply" in told
