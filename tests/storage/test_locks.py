"""A session's turn lock: held across processes, its timeout honoured, released by a killed holder."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from selectools import Agent, AgentConfig
from selectools.testing import ScriptedProvider
from tests.storage._backends import BACKENDS, open_store
from tests.storage.conftest import ROOT, child_env


@contextmanager
def _held_elsewhere(backend: str, location: str) -> Iterator[subprocess.Popen]:
    """Another process holding the lock of session ``shared`` until the block ends (kill -9)."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.storage._child", "hold", backend, location],
        cwd=ROOT, env=child_env(), stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "held"
        yield child
    finally:
        child.kill()
        child.wait()


@pytest.mark.parametrize("backend", BACKENDS["sessions"])
def test_the_lock_timeout_holds_while_another_process_has_the_session(backend, make_location):
    location = make_location("sessions", backend)
    store = open_store("sessions", backend, location)
    with _held_elsewhere(backend, location):
        started = time.monotonic()
        with pytest.raises(TimeoutError, match="'shared'"):
            store.lock("shared", timeout=0.5).acquire()
        waited = time.monotonic() - started
        print(f"{backend}: gave up after {waited:.2f}s with timeout=0.5")
        assert 0.45 <= waited < 5.0  # the timeout, with room for a loaded machine
        agent = Agent(
            provider=ScriptedProvider(default="ok"),
            config=AgentConfig(session_store=store, session_id="shared", session_lock_timeout=0.5),
        )
        with pytest.raises(TimeoutError, match="session_lock_timeout"):
            agent.run("hello")
    assert store.load("shared") is None  # the refused turn wrote nothing


@pytest.mark.parametrize("backend", ["json", "sqlite"])
def test_a_lock_file_dies_with_a_killed_holder(backend, make_location):
    location = make_location("sessions", backend)
    store = open_store("sessions", backend, location)
    with _held_elsewhere(backend, location):
        pass  # killed with SIGKILL on the way out
    started = time.monotonic()
    with store.lock("shared", timeout=5):
        assert time.monotonic() - started < 2.0
