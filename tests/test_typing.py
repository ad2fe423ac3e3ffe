"""The package ships typed: a user's mypy sees observer methods and event names.

mypy runs in a subprocess, the way a user runs it, on files written to a temp
folder: ``--strict``, no ``--ignore-missing-imports``. ``MYPYPATH`` points at
this checkout so the test checks this code (not an installed copy), and
``--follow-imports=silent`` keeps selectools' own findings out, as for any
installed library.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import selectools
from scripts import gen_events
from selectools.observer import EVENTS, AgentObserver, AsyncAgentObserver

ROOT = Path(selectools.__file__).resolve().parent.parent

GOOD = """
from __future__ import annotations

from typing_extensions import override

from collections.abc import Mapping
from typing import Any

from selectools import (
    Agent,
    AgentConfig,
    AgentObserver,
    AgentResult,
    AsyncAgentObserver,
    ConversationMemory,
    LocalProvider,
    Message,
    tool,
)
from selectools.observer import EventEmitter


class Timing(AgentObserver):
    @override
    def on_tool_end(
        self, run_id: str, call_id: str, tool_name: str, result: str, duration_ms: float
    ) -> None:
        super().on_tool_end(run_id, call_id, tool_name, result, duration_ms)


class Later(AsyncAgentObserver):
    @override
    async def a_on_run_start(self, run_id: str, messages: list[Message], system_prompt: str) -> None:
        await super().a_on_run_start(run_id, messages, system_prompt)


EventEmitter("run", [Timing()]).emit("on_tool_end", "c1", "search", "ok", 1.0)


class Lookup:  # a tool kind of the user's own: no Tool subclass, only the ToolLike members

    name = "lookup"
    description = "Look a word up."
    terminal = False
    requires_approval = False

    def schema(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": {}}

    def validate(self, params: Mapping[str, Any] | None) -> None:
        return None

    def execute(self, params: Mapping[str, Any] | None, chunk_callback: Any = None) -> str:
        return "found"

    async def aexecute(self, params: Mapping[str, Any] | None, chunk_callback: Any = None) -> str:
        return "found"


@tool()
def add(a: int, b: int) -> int:
    '''Add two numbers.'''
    return a + b


agent = Agent(
    tools=[add, Lookup()],
    provider=LocalProvider(),
    memory=ConversationMemory(max_messages=10),
    config=AgentConfig(observers=[Timing(), Later()]),
)
result: AgentResult = agent.run("hi")
"""

BAD = """
from __future__ import annotations

from typing_extensions import override

from selectools import Agent, AgentConfig, AgentObserver
from selectools.observer import EventEmitter


class Misspelt(AgentObserver):
    def on_tool_end(
        self, run_id: str, call_id: str, tool_name: str, result: str, duration_ms: float
    ) -> None:
        super().on_tool_ned(run_id, call_id, tool_name, result, duration_ms)  # line 14

    @override
    def on_tool_ned(self, run_id: str) -> None:  # line 17
        pass

    def on_run_end(self, run_id: str, result: int) -> None:  # line 20: wrong type
        pass


EventEmitter("run", []).emit("on_tool_ned")  # line 24
Agent(provider=42)  # line 25: not a provider
Agent(memory=[])  # line 26: not a memory
AgentConfig(observers=[object()])  # line 27: not an observer
"""


@pytest.fixture(scope="module")
def mypy_output(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    pytest.importorskip("mypy")
    folder = tmp_path_factory.mktemp("user_project")
    (folder / "good.py").write_text(textwrap.dedent(GOOD))
    (folder / "bad.py").write_text(textwrap.dedent(BAD))
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--follow-imports=silent",
            "--no-error-summary",
            "--cache-dir",
            str(folder / ".mypy_cache"),
            "good.py",
            "bad.py",
        ],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    by_file: dict[str, list[str]] = {"good.py": [], "bad.py": []}
    for line in proc.stdout.splitlines():
        name = line.split(":", 1)[0]
        by_file.setdefault(name, []).append(line)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return by_file


def test_users_mypy_accepts_a_correct_observer_override_calling_super(mypy_output):
    assert mypy_output["good.py"] == []


def test_users_mypy_rejects_misspelt_observers_event_names_and_wrong_agent_seams(mypy_output):
    errors = "\n".join(mypy_output["bad.py"])
    assert re.search(r'bad.py:14: error: "on_tool_ned" undefined in superclass', errors), errors
    assert re.search(r"bad.py:17: error: Method \"on_tool_ned\" is marked as an override", errors)
    assert re.search(r'bad.py:20: error: Argument 2 of "on_run_end" is incompatible', errors)
    assert re.search(r'bad.py:24: error: Argument 1 to "emit" of "EventEmitter"', errors), errors
    assert re.search(r'bad.py:25: error: Argument "provider" to "Agent"', errors), errors
    assert re.search(r'bad.py:26: error: Argument "memory" to "Agent"', errors), errors
    assert re.search(r"bad.py:27: error: List item 0 has incompatible type", errors), errors
    assert set(mypy_output) == {"good.py", "bad.py"}, "no findings outside the user's files"


def test_package_declares_itself_typed():
    assert (ROOT / "selectools" / "py.typed").is_file()


def test_generated_event_module_matches_its_table():
    """Edit ``SPECS`` in scripts/gen_events.py, then run ``python scripts/gen_events.py``."""
    assert gen_events.TARGET.read_text() == gen_events.render()
    assert {
        name: (scope, tuple(p for p, _ in params))
        for name, (scope, params) in gen_events.SPECS.items()
    } == EVENTS


def test_every_event_is_a_typed_method_on_both_bases():
    import inspect

    for name, (scope, params) in EVENTS.items():
        sync = inspect.signature(getattr(AgentObserver, name))
        asynchronous = inspect.signature(getattr(AsyncAgentObserver, "a_" + name))
        first = "batch_id" if scope == "batch" else "run_id"
        assert list(sync.parameters) == ["self", first, *params]
        assert list(asynchronous.parameters) == list(sync.parameters)
        assert all(
            p.annotation is not inspect.Parameter.empty
            for p in sync.parameters.values()
            if p.name != "self"
        )
        assert inspect.iscoroutinefunction(getattr(AsyncAgentObserver, "a_" + name))
