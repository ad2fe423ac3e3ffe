import asyncio
import json

import pytest

from selectools import Agent, ProviderError, tool
from selectools.testing import RecordingProvider, ReplayProvider, ScriptedProvider, tool_call


@tool()
def get_price(product: str) -> str:
    """Price lookup."""
    return "$999"


def _recorded(tmp_path):
    live = ScriptedProvider(
        [tool_call("get_price", product="laptop"), "The laptop costs $999."], model="gpt-4o"
    )
    recorder = RecordingProvider(live)
    original = Agent(tools=[get_price], provider=recorder).run("How much is a laptop?")
    path = recorder.save(tmp_path / "runs" / "laptop.json")
    return original, path


def test_record_then_replay_gives_the_same_run(tmp_path):
    original, path = _recorded(tmp_path)
    data = json.loads(path.read_text())
    assert data["format"] == "selectools-recording" and len(data["calls"]) == 2
    replay = ReplayProvider(path)
    replayed = Agent(tools=[get_price], provider=replay).run("How much is a laptop?")
    assert replayed.content == original.content
    assert [c.tool_name for c in replayed.tool_calls] == ["get_price"]
    assert replayed.usage.total_tokens == original.usage.total_tokens
    assert replay.remaining == 0


def test_replay_streams_and_works_async(tmp_path):
    _, path = _recorded(tmp_path)

    async def go():
        agent = Agent(tools=[get_price], provider=ReplayProvider(path))
        return [item async for item in agent.astream("How much is a laptop?")]

    items = asyncio.run(go())
    assert items[-1].content == "The laptop costs $999."
    assert "".join(getattr(i, "content", "") for i in items[:-1]) == "The laptop costs $999."


def test_strict_replay_reports_divergence(tmp_path):
    _, path = _recorded(tmp_path)
    result = Agent(tools=[get_price], provider=ReplayProvider(path, strict=True)).run(
        "Something else"
    )
    assert result.stop_reason == "provider_error"
    assert "diverged from the recording" in str(result.error)


def test_running_past_the_recording_is_a_clear_error(tmp_path):
    _, path = _recorded(tmp_path)
    replay = ReplayProvider(path)
    Agent(tools=[get_price], provider=replay).run("x")
    with pytest.raises(ProviderError, match="only 2 replies"):
        replay.complete(model="m", system_prompt="", messages=[])


def test_bad_recordings(tmp_path):
    with pytest.raises(FileNotFoundError, match="no recording"):
        ReplayProvider(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        ReplayProvider(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="no 'calls' list"):
        ReplayProvider({"something": 1})
