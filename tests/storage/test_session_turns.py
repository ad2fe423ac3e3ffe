"""Two processes taking turns on one session id: every turn is kept, in every session store."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tests.storage._backends import BACKENDS, open_store
from tests.storage.conftest import ROOT, child_env

TURNS = 12


@pytest.mark.parametrize("mode", ["reuse", "fresh"])
@pytest.mark.parametrize("backend", BACKENDS["sessions"])
def test_two_processes_x_12_turns_on_one_session_keep_all_24(backend, mode, make_location, report):
    location = make_location("sessions", backend)
    started = time.monotonic()
    command = [sys.executable, "-m", "tests.storage._child", "turns", backend, location]
    children = [
        subprocess.Popen(
            [*command, tag, str(TURNS), mode],
            cwd=ROOT,
            env=child_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("A", "B")
    ]
    try:
        for child in children:
            _out, err = child.communicate(timeout=180)
            assert child.returncode == 0, err[-2000:]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    data = open_store("sessions", backend, location).load("shared")
    assert data is not None
    messages = data["messages"]
    prompts = [m["content"] for m in messages if m["role"] == "user"]
    report(
        f"\ntwo processes on one session, {backend}/{mode}: kept {len(prompts)} of {2 * TURNS} turns "
        f"in {time.monotonic() - started:.1f}s"
    )
    expected = {f"{tag}-{turn}" for tag in "AB" for turn in range(TURNS)}
    assert sorted(prompts) == sorted(expected)
    # turns are whole and in order: each prompt is followed by its answer
    assert [m["role"] for m in messages] == ["user", "assistant"] * (2 * TURNS)
    for tag in "AB":  # each process's own turns keep their order
        mine = [p for p in prompts if p.startswith(tag)]
        assert mine == [f"{tag}-{turn}" for turn in range(TURNS)]


def test_a_run_inside_a_run_of_the_same_agent_shares_its_turn(tmp_path):
    """A tool that runs the agent again must not wait for the lock its own run holds."""
    from selectools import Agent, AgentConfig, tool
    from selectools.sessions import JsonFileSessionStore
    from selectools.testing import ScriptedProvider, tool_call

    holder = {}

    @tool()
    def ask_again(question: str) -> str:
        """Ask the same agent a sub-question."""
        return holder["agent"].run(question).content

    agent = Agent(
        tools=[ask_again],
        provider=ScriptedProvider(
            [tool_call("ask_again", question="inner"), "inner answer", "outer answer"]
        ),
        config=AgentConfig(
            session_store=JsonFileSessionStore(tmp_path), session_id="s", session_lock_timeout=3
        ),
    )
    holder["agent"] = agent
    started = time.monotonic()
    result = agent.run("outer")
    assert result.error is None and result.content == "outer answer"
    assert time.monotonic() - started < 3
    with JsonFileSessionStore(tmp_path).lock("s", timeout=0.5):
        pass  # released when the outer run ended
