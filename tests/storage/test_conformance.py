"""One conformance suite for the stores that hold what a user wrote, over every backend.

For sessions, checkpoints, knowledge, the audit log, eval baselines and
snapshots, the knowledge-graph triples and traces, each backend must: round-trip records, show them to a fresh process, survive
``kill -9`` at random moments mid-write (every record afterwards is either its
old or its new whole value, and nothing a writer had finished is lost), and
keep every record of two processes writing at once. Damaged records and
newer formats are in ``test_damage.py``. Adding a backend: add it to
``_backends.py`` and this suite runs over it.
"""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
import time

import pytest

from tests.storage._backends import BACKENDS, open_store
from tests.storage._records import KEYS, RECORDS
from tests.storage.conftest import ROOT, child_env

PROTOCOLS = (
    "sessions",
    "checkpoints",
    "knowledge",
    "audit",
    "baselines",
    "snapshots",
    "triples",
    "traces",
)
CASES = [(p, b) for p in PROTOCOLS for b in BACKENDS[p]]
IDS = [f"{p}-{b}" for p, b in CASES]

#: kills per backend (the brief: at least 30 for every file and SQLite backend)
KILLS = 30
#: stores that replace a record on write (the others append a new one)
REPLACING = {"sessions", "baselines", "snapshots"}


def _close(store: object) -> None:
    close = getattr(store, "close", None)
    if close is not None:
        close()


@pytest.mark.parametrize(("protocol", "backend"), CASES, ids=IDS)
def test_round_trip_and_reopen_in_a_fresh_process(protocol, backend, make_location):
    location = make_location(protocol, backend)
    records = RECORDS[protocol]
    store = open_store(protocol, backend, location)
    for version, key in enumerate(KEYS, 1):
        records.write(store, key, version)
    records.write(store, "k0", 7)
    expected = {"k0": 7, "k1": 2, "k2": 3}
    assert records.read_all(store, location) == expected
    _close(store)
    shown = subprocess.run(
        [sys.executable, "-m", "tests.storage._child", "dump", protocol, backend, location],
        cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert json.loads(shown.stdout) == expected


def _writer(protocol: str, backend: str, location: str, first: int, last: int, fd: int) -> None:
    """In a forked child: write versions first..last (rotating keys), report each on ``fd``."""
    store = open_store(protocol, backend, location)
    records = RECORDS[protocol]
    for version in range(first, last + 1):
        records.write(store, KEYS[version % len(KEYS)], version)
        os.write(fd, f"{version}\n".encode())


def _fork_writer(protocol: str, backend: str, location: str, first: int, last: int):
    """Start a child process (fork) that writes; returns (pid, read end of its report pipe)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 0
        try:
            os.close(read_end)
            _writer(protocol, backend, location, first, last, write_end)
        except BaseException:
            import traceback

            traceback.print_exc()
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    return pid, read_end


def _read_reports(read_end: int) -> list[int]:
    """Every whole version line the (dead) child reported."""
    chunks = []
    while True:
        chunk = os.read(read_end, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_end)
    text = b"".join(chunks).decode()
    return [int(line) for line in text.split("\n")[:-1]]


@pytest.mark.parametrize(("protocol", "backend"), CASES, ids=IDS)
def test_kill_9_mid_write_leaves_old_or_new_whole_values(protocol, backend, make_location, report):
    location = make_location(protocol, backend)
    records = RECORDS[protocol]
    rng = random.Random(f"{protocol}-{backend}")
    done: dict[str, int] = {}  # the newest version of each key a writer had finished
    kills = writes = 0
    started = time.monotonic()
    for cycle in range(1, KILLS + 1):
        first = cycle * 1_000_000
        pid, read_end = _fork_writer(protocol, backend, location, first, first + 999_999)
        try:
            ready, _, _ = select.select([read_end], [], [], 60)
            assert ready, "the writer did not finish its first write within 60 s"
            time.sleep(rng.uniform(0, 0.02))
        finally:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        kills += 1
        reported = _read_reports(read_end)
        writes += len(reported)
        for version in reported:
            done[KEYS[version % len(KEYS)]] = version
        in_flight = (reported[-1] if reported else first - 1) + 1
        store = open_store(protocol, backend, location)  # must open after any kill
        found = records.read_all(store, location)  # raises on a torn record
        _close(store)
        for key, version in done.items():
            # the finished write is there; at most the interrupted one came on top of it
            assert found.get(key, 0) >= version, (key, version, found)
        for key, version in found.items():
            assert version <= in_flight, (key, version, in_flight)
    report(
        f"\nkill -9 {protocol}/{backend}: {kills} kills, {writes} finished writes, every record whole, "
        f"{time.monotonic() - started:.1f}s"
    )
    assert kills >= KILLS


@pytest.mark.parametrize(("protocol", "backend"), CASES, ids=IDS)
def test_two_processes_writing_at_once_lose_nothing(protocol, backend, make_location):
    location = make_location(protocol, backend)
    open_store(protocol, backend, location)  # created once, as an application would
    per_writer = 15
    writers = [
        _fork_writer(protocol, backend, location, first, first + per_writer - 1)
        for first in (1, 1_000_001)
    ]
    reported = []
    for pid, read_end in writers:
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        reported.append(_read_reports(read_end))
    assert [len(r) for r in reported] == [per_writer, per_writer]
    store = open_store(protocol, backend, location)
    found = RECORDS[protocol].read_all(store, location)
    last = {
        key: [max(v for v in r if KEYS[v % len(KEYS)] == key) for r in reported] for key in KEYS
    }
    for key in KEYS:
        if protocol in REPLACING:
            assert found[key] in last[key]  # whichever writer came last, whole
        else:
            assert found[key] == max(last[key])
    counter = getattr(RECORDS[protocol], "count", None)
    if counter is not None:
        assert counter(store, location) == 2 * per_writer
    _close(store)
