"""arun/aask, run() inside a running event loop, async providers and tools from sync code."""

import asyncio
import contextvars

import pytest

from selectools import Agent, AgentConfig, AsyncAgentObserver, tool
from selectools.testing import LocalProvider, ScriptedProvider, tool_call

request_id = contextvars.ContextVar("request_id", default="none")


@tool()
async def async_lookup(key: str) -> str:
    """Async lookup."""
    await asyncio.sleep(0)
    return f"async {key}"


@tool()
def sync_reads_context() -> str:
    """Reads a context variable."""
    return request_id.get()


def test_aask_and_arun():
    agent = Agent(provider=LocalProvider())
    assert asyncio.run(agent.aask("hi")).content == "hi"
    assert asyncio.run(agent.arun("hi")).content == "hi"


def test_run_inside_a_running_event_loop():
    async def cell():
        # what a notebook cell does: call the sync API while a loop is running
        agent = Agent(
            tools=[async_lookup],
            provider=ScriptedProvider([tool_call("async_lookup", key="k"), "ok"]),
        )
        result = agent.run("x")
        return result, agent.provider.requests[1].messages[-1].content

    result, tool_output = asyncio.run(cell())
    assert result.content == "ok"
    assert tool_output == "async k"


def test_async_only_provider_from_sync_run_inside_a_loop():
    class AsyncOnly:
        name = "async-only"
        supports_streaming = False
        supports_async = True

        async def acomplete(self, **kwargs):
            return await LocalProvider().acomplete(**kwargs)

    async def cell():
        return Agent(provider=AsyncOnly()).run("from a cell")

    assert asyncio.run(cell()).content == "from a cell"
    assert Agent(provider=AsyncOnly()).run("plain").content == "plain"


def test_sync_tools_see_context_variables_in_arun():
    async def go():
        request_id.set("req-42")
        provider = ScriptedProvider([tool_call("sync_reads_context"), "ok"])
        await Agent(tools=[sync_reads_context], provider=provider).arun("x")
        return provider.requests[1].messages[-1].content

    assert asyncio.run(go()) == "req-42"


def test_async_observers_fire_in_arun_not_in_run():
    seen = []

    class Recorder(AsyncAgentObserver):
        blocking = True

        async def a_on_run_end(self, run_id, result):
            seen.append(result.content)

    agent = Agent(provider=LocalProvider(), config=AgentConfig(observers=[Recorder()]))
    agent.run("sync")
    assert seen == []
    asyncio.run(agent.arun("async"))
    assert seen == ["async"]


def test_cancelling_arun_records_cancellation():
    from selectools import SimpleStepObserver

    events = []
    provider = ScriptedProvider(["never"], latency=5)
    agent = Agent(
        provider=provider, config=AgentConfig(observers=[SimpleStepObserver(events.append)])
    )

    async def go():
        task = asyncio.create_task(agent.arun("x"))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    assert events[-1].name == "on_cancelled"
