"""Every store reopened in a fresh process, killed with SIGKILL mid-write, shared by two writers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KINDS = [
    "entity",
    "triples",
    "knowledge-file",
    "knowledge-sqlite",
    "knowledge-redis",
    "knowledge-supabase",
]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def _cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "tests.memory._writer", *args]


def _target(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if kind == "knowledge-redis":
        return f"{request.getfixturevalue('redis_server')}|dur:{request.node.name}:"
    if kind == "knowledge-supabase":
        fake = request.getfixturevalue("fake_supabase")
        for rows in fake.tables.values():  # one fake per session: start from empty tables
            rows.clear()
        return f"{fake.url}|{fake.key}"
    return str(tmp_path / {"entity": "entities.json", "triples": "kg.db"}.get(kind, "mem"))


def _read(kind: str, target: str) -> dict[str, list[str]]:
    done = subprocess.run(
        _cmd("read", kind, target),
        env=_env(),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("kind", KINDS)
def test_reopened_in_a_fresh_process(kind, tmp_path, request):
    target = _target(kind, tmp_path, request)
    done = subprocess.run(
        _cmd("write", kind, target, "a", "5"),
        env=_env(),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    stored = _read(kind, target)
    assert sorted(stored["records"]) == [f"a-{i}" for i in range(5)]
    if kind.startswith("knowledge-"):
        assert sorted(stored["facts"]) == ["a-0", "a-2", "a-4"]


@pytest.mark.parametrize("kind", KINDS)
def test_kill_9_during_writes_leaves_the_store_readable(kind, tmp_path, request):
    target = _target(kind, tmp_path, request)
    child = subprocess.Popen(
        _cmd("write", kind, target, "k", "0"),
        env=_env(),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    finished = 0
    for line in child.stdout:
        finished = int(line)
        if finished >= 40:
            break
    child.send_signal(signal.SIGKILL)  # somewhere in the middle of the next write
    child.wait(timeout=30)
    stored = _read(kind, target)
    names = set(stored["records"])
    # every finished write survived, and what is there is whole: k-0 ... k-(n-1), no holes
    assert len(names) >= finished
    assert names == {f"k-{i}" for i in range(len(names))}
    assert len(stored["records"]) == len(names)


@pytest.mark.parametrize("kind", KINDS)
def test_two_processes_writing_one_store_lose_nothing(kind, tmp_path, request):
    target = _target(kind, tmp_path, request)
    writers = [
        subprocess.Popen(
            _cmd("write", kind, target, tag, "30"),
            env=_env(),
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("x", "y")
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=300)
        assert writer.returncode == 0, err
    stored = _read(kind, target)
    expected = {f"{tag}-{i}" for tag in ("x", "y") for i in range(30)}
    assert set(stored["records"]) == expected
    assert len(stored["records"]) == 60
    if kind.startswith("knowledge-"):
        assert set(stored["facts"]) == {f"{t}-{i}" for t in ("x", "y") for i in range(0, 30, 2)}


@pytest.mark.parametrize(
    ("kind", "point", "call", "survivors"),
    [
        # entity saves rewrite the file: killed before the 3rd rename, the 2nd save is what is left
        ("entity", "replace", 3, 2),
        # knowledge: the 3rd log line (record 2) is torn half-way
        ("knowledge-file", "write", 3, 2),
        # renames: the folder's version marker, MEMORY.md for record 0, then for record 2
        # (even records are persistent): killed there, its log line is in, MEMORY.md is the old one
        ("knowledge-file", "replace", 3, 3),
    ],
)
def test_killed_at_the_worst_moment(kind, point, call, survivors, tmp_path, request):
    target = _target(kind, tmp_path, request)
    done = subprocess.run(
        _cmd("write-die", kind, target, "d", "10", point, str(call)),
        env=_env(),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == -signal.SIGKILL
    stored = _read(kind, target)
    assert sorted(stored["records"]) == [f"d-{i}" for i in range(survivors)]
    if kind == "knowledge-file":
        # MEMORY.md is the old file or the new one, never half of one
        assert stored["facts"] == ["d-0"]
        # and the next writer goes on cleanly after the torn line
        more = subprocess.run(
            _cmd("write", kind, target, "e", "2"),
            env=_env(),
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert more.returncode == 0, more.stderr
        assert sorted(_read(kind, target)["records"])[-2:] == ["e-0", "e-1"]
