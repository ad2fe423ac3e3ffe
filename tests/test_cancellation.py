"""CancellationToken: cooperative cancellation between steps, from other threads and tasks."""

import asyncio
import threading
import time

from selectools import (
    Agent,
    AgentConfig,
    AgentObserver,
    AgentResult,
    ApprovalQueue,
    CancellationToken,
    ToolConfig,
    tool,
)
from selectools.testing import ScriptedProvider, reply, tool_call


class CancelWatcher(AgentObserver):
    def __init__(self):
        self.reasons = []

    def on_cancelled(self, run_id, reason):
        self.reasons.append(reason)


def test_token_basics():
    token = CancellationToken()
    fired = []
    remove = token.on_cancel(lambda: fired.append("a"))
    token.on_cancel(lambda: fired.append("b"))
    remove()
    assert not token.cancelled and token.wait(0.01) is False
    assert token.cancel("stop now") is True
    assert token.cancel("again") is False
    assert token.cancelled and token.reason == "stop now" and token.wait(0) is True
    assert fired == ["b"]
    token.on_cancel(lambda: fired.append("late"))  # already cancelled: runs at once
    assert fired == ["b", "late"]
    assert "cancelled" in repr(token)


def test_cancelled_before_the_run_makes_no_call():
    token = CancellationToken()
    token.cancel()
    watcher = CancelWatcher()
    provider = ScriptedProvider(default="never")
    agent = Agent(
        provider=provider, config=AgentConfig(cancellation_token=token, observers=[watcher])
    )
    result = agent.run("x")
    assert provider.calls == 0
    assert result.stop_reason == "cancelled" and result.error is None
    assert result.content.startswith("Cancelled")
    assert watcher.reasons == ["cancelled by a CancellationToken"]
    assert result.trace.filter(type="cancelled")


def _slow_tool(started, release):
    @tool()
    def crunch(n: int) -> str:
        """Crunch numbers slowly."""
        started.set()
        release.wait(5)
        return f"crunched {n}"

    return crunch


def test_cancel_from_another_thread_stops_before_the_next_model_call():
    started, release = threading.Event(), threading.Event()
    token = CancellationToken()
    provider = ScriptedProvider([reply("let me crunch", tool_call("crunch", n=1)), "never reached"])
    agent = Agent(tools=[_slow_tool(started, release)], provider=provider)

    def canceller():
        started.wait(5)
        token.cancel("user pressed stop")

    thread = threading.Thread(target=canceller)
    thread.start()
    result = agent.run("go", cancellation_token=token)
    still_running = not release.is_set()
    release.set()  # the tool in progress was not awaited: free its abandoned worker
    thread.join()
    assert still_running
    assert provider.calls == 1  # no new model call began
    assert result.stop_reason == "cancelled"
    assert result.content == "Cancelled: user pressed stop.\n\nPartial result:\nlet me crunch"
    step = result.trace.filter(type="tool_execution")[0]
    assert step.status == "error" and step.data == {"cancelled": True}


def test_cancel_during_a_model_call_skips_its_tool_batch():
    token = CancellationToken()
    ran = []

    @tool()
    def side_effect(x: int) -> str:
        """Has side effects."""
        ran.append(x)
        return "done"

    def respond(request):
        token.cancel("deadline")  # cancelled while the model was answering
        return tool_call("side_effect", x=1)

    agent = Agent(
        tools=[side_effect],
        provider=ScriptedProvider(respond),
        config=AgentConfig(cancellation_token=token),
    )
    result = agent.run("go")
    assert ran == []
    assert result.stop_reason == "cancelled"
    tool_messages = [m for m in result.messages if m.role.value == "tool"]
    assert [m.text for m in tool_messages] == ["Not run: Cancelled: deadline."]
    assert tool_messages[0].is_error


def test_cancel_from_an_asyncio_task_during_arun_and_astream():
    async def main(streaming):
        token = CancellationToken()
        provider = ScriptedProvider([tool_call("crunch", n=1), "never"], latency=0.1)
        agent = Agent(tools=[_slow_tool(threading.Event(), _set_event())], provider=provider)

        async def canceller():
            await asyncio.sleep(0.03)
            token.cancel("task said stop")

        task = asyncio.create_task(canceller())
        if streaming:
            items = [i async for i in agent.astream("go", cancellation_token=token)]
            result = items[-1]
        else:
            result = await agent.arun("go", cancellation_token=token)
        await task
        return result, provider

    for streaming in (False, True):
        result, provider = asyncio.run(main(streaming))
        assert isinstance(result, AgentResult) and result.stop_reason == "cancelled"
        assert provider.calls == 1 and "task said stop" in result.content


def _set_event():
    event = threading.Event()
    event.set()
    return event


def test_config_token_and_run_token_both_work():
    config_token, run_token = CancellationToken(), CancellationToken()
    provider = ScriptedProvider(default="ok")
    agent = Agent(provider=provider, config=AgentConfig(cancellation_token=config_token))
    assert agent.run("a", cancellation_token=run_token).stop_reason == "final"
    run_token.cancel("run")
    assert agent.run("b", cancellation_token=run_token).stop_reason == "cancelled"
    assert agent.run("c").stop_reason == "final"  # the run token belonged to one run
    config_token.cancel("config")
    assert agent.run("d").content.startswith("Cancelled: config")


def test_cancel_interrupts_an_approval_wait():
    token = CancellationToken()

    @tool(requires_approval=True)
    def deploy(env: str) -> str:
        """Deploy."""
        raise AssertionError("must not run")

    queue = ApprovalQueue()
    provider = ScriptedProvider([tool_call("deploy", env="prod"), "never"])
    agent = Agent(
        tools=[deploy],
        provider=provider,
        config=AgentConfig(
            tool=ToolConfig(approval_handler=queue, approval_timeout=30), cancellation_token=token
        ),
    )
    threading.Timer(0.1, token.cancel, args=("shutting down",)).start()
    started = time.monotonic()
    result = agent.run("ship it")
    assert time.monotonic() - started < 5
    assert result.stop_reason == "cancelled" and provider.calls == 1
    step = result.trace.filter(type="policy_decision")[-1]
    assert step.data["source"] == "cancelled"


def test_a_bad_token_is_a_type_error():
    import pytest

    with pytest.raises(TypeError, match="cancellation_token"):
        AgentConfig(cancellation_token="stop")
    with pytest.raises(TypeError, match="CancellationToken"):
        Agent(provider=ScriptedProvider(default="x")).run("x", cancellation_token=object())
