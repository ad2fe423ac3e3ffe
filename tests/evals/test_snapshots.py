"""Snapshot mode: the first run records each case's output, a changed output fails with a diff,
``update_snapshots=True`` accepts the change; the file is written atomically, also by two
processes at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from selectools.evals import CaseVerdict, EvalError, EvalSuite, SnapshotStore, TestCase
from tests.evals.agents import make_agent

ROOT = Path(__file__).resolve().parents[2]
CASES = [
    TestCase(input="a", name="greeting"),
    TestCase(input="b", name="farewell", expect_contains="bye"),
    TestCase(input="c"),
    TestCase(input="c"),  # same input twice: two snapshots, not one
]


def suite(table, snapshots, **options):
    return EvalSuite(make_agent(table), CASES, name="chat", snapshots=snapshots, **options)


TABLE = {"a": "Hello there.\nHow can I help?", "b": "Goodbye!", "c": "see you"}


def test_first_run_records_outputs_and_passes(tmp_path):
    report = suite(TABLE, tmp_path / "snaps").run()
    assert [r.verdict for r in report.results] == [CaseVerdict.PASS] * 4
    assert report.snapshots is not None
    assert report.snapshots.new == ["greeting", "farewell", "c", "c#2"]
    assert report.snapshots.changed == [] and report.snapshots.ok
    stored = json.loads((tmp_path / "snaps" / "chat.snap.json").read_text())["cases"]
    assert stored["greeting"]["output"] == "Hello there.\nHow can I help?"
    assert stored["c#2"]["output"] == "see you"


def test_a_changed_output_fails_with_a_diff_and_the_snapshot_is_kept(tmp_path):
    suite(TABLE, tmp_path).run()
    before = (tmp_path / "chat.snap.json").read_text()
    changed = {**TABLE, "a": "Hello there.\nWhat do you want?"}
    report = suite(changed, tmp_path).run()
    greeting = report.results[0]
    assert greeting.verdict is CaseVerdict.FAIL
    (failure,) = greeting.failures
    assert failure.evaluator == "snapshot"
    assert "update_snapshots=True" in failure.message
    assert "-How can I help?" in failure.message
    assert "+What do you want?" in failure.message
    assert " Hello there." in failure.message  # unchanged context line
    assert failure.expected == "Hello there.\nHow can I help?"
    assert failure.actual == "Hello there.\nWhat do you want?"
    assert report.snapshots.changed == ["greeting"] and not report.snapshots.ok
    assert report.accuracy == pytest.approx(3 / 4)
    assert (tmp_path / "chat.snap.json").read_text() == before  # not overwritten
    assert "snapshot" in report.summary()


def test_a_changed_tool_call_fails_too(tmp_path):
    from selectools.testing import tool_call

    table = {"a": "hi", "b": "bye", "c": "x"}
    suite(table, tmp_path).run()
    calls = {**table, "c": lambda: tool_call("search", query="docs")}
    report = suite(calls, tmp_path).run()
    assert report.snapshots.changed == ["c", "c#2"]
    assert "+tools: search" in report.results[2].failures[0].message


def test_update_snapshots_accepts_the_change_and_drops_removed_cases(tmp_path):
    suite(TABLE, tmp_path).run()
    changed = {**TABLE, "a": "Hi!"}
    report = EvalSuite(
        make_agent(changed), CASES[:3], name="chat", snapshots=tmp_path, update_snapshots=True
    ).run()
    assert report.results[0].verdict is CaseVerdict.PASS
    assert report.snapshots.updated == ["greeting"]
    assert report.snapshots.removed == ["c#2"]
    stored = json.loads((tmp_path / "chat.snap.json").read_text())["cases"]
    assert stored["greeting"]["output"] == "Hi!" and "c#2" not in stored
    again = suite(changed, tmp_path).run()  # the accepted output is now the snapshot
    assert again.results[0].verdict is CaseVerdict.PASS


def test_errored_and_skipped_cases_keep_their_snapshots(tmp_path):
    suite(TABLE, tmp_path).run()

    def boom():
        raise RuntimeError("provider down")

    cases = [TestCase(input="a", name="greeting", skip=True), *CASES[1:]]
    report = EvalSuite(
        make_agent({**TABLE, "b": boom}), cases, name="chat", snapshots=tmp_path
    ).run()
    assert report.results[0].verdict is CaseVerdict.SKIP
    assert report.results[1].verdict is CaseVerdict.ERROR
    assert report.snapshots.ok and report.snapshots.removed == []
    stored = json.loads((tmp_path / "chat.snap.json").read_text())["cases"]
    assert set(stored) == {"greeting", "farewell", "c", "c#2"}


def test_store_compare_and_save_read_like_the_baseline_store(tmp_path):
    store = SnapshotStore(tmp_path)
    report = EvalSuite(make_agent(TABLE), CASES, name="chat").run()
    assert store.compare(report).new == ["greeting", "farewell", "c", "c#2"]
    assert store.save(report) == tmp_path / "chat.snap.json"
    assert store.compare(report).ok and store.compare(report).unchanged == 4
    other = EvalSuite(make_agent({**TABLE, "b": "Bye now"}), CASES, name="chat").run()
    result = store.compare(other)
    assert result.changed == ["farewell"]
    assert "farewell" in result.summary() and "-Goodbye!" in result.diffs["farewell"]


def test_an_interrupted_write_keeps_the_old_snapshots(tmp_path, monkeypatch):
    suite(TABLE, tmp_path).run()
    before = (tmp_path / "chat.snap.json").read_text()

    def crash(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        suite({**TABLE, "a": "new"}, tmp_path, update_snapshots=True).run()
    monkeypatch.undo()
    assert (tmp_path / "chat.snap.json").read_text() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_damaged_snapshot_file_is_a_clear_error_and_is_left_alone(tmp_path):
    (tmp_path / "chat.snap.json").write_text("{not json")
    for update in (False, True):  # accepting changes never overwrites a file it cannot read
        with pytest.raises(EvalError, match=r"chat\.snap\.json: not a readable .* delete it"):
            suite(TABLE, tmp_path, update_snapshots=update).run()
    assert (tmp_path / "chat.snap.json").read_text() == "{not json"


WRITER = """
import sys
from selectools.evals import CaseResult, CaseVerdict, EvalReport, SnapshotStore, TestCase
store, n = SnapshotStore(sys.argv[1]), sys.argv[2]
for i in range(150):  # each run records one new case: a lost update loses a snapshot
    case = TestCase(input=f"p{n}-{i}", name=f"p{n}-{i}")
    store.check(EvalReport([CaseResult(case, CaseVerdict.PASS, output=n)], name="shared"))
"""


def test_two_processes_recording_at_once_lose_nothing(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), str(n)], env=env, cwd=ROOT)
        for n in range(2)
    ]
    for proc in procs:
        assert proc.wait(timeout=120) == 0
    stored = json.loads((tmp_path / "shared.snap.json").read_text())["cases"]
    assert len(stored) == 300  # every case of both processes, none lost to the other's write


def test_cli_snapshot_mode_exits_1_on_a_changed_output_and_update_accepts_it(tmp_path):
    from tests.evals.test_cli import cli

    agent = "from tests.evals.agents import make_agent\nagent = make_agent({'Hi': %r})\n"
    (tmp_path / "cases.json").write_text(json.dumps([{"input": "Hi", "name": "greeting"}]))
    (tmp_path / "a1.py").write_text(agent % "Hello!")
    (tmp_path / "a2.py").write_text(agent % "Howdy!")
    base = ("run", "cases.json", "--snapshots", "snaps", "-q")
    assert cli(*base, "--agent", "a1.py:agent", cwd=tmp_path).returncode == 0
    changed = cli(*base, "--agent", "a2.py:agent", cwd=tmp_path)
    assert changed.returncode == 1
    assert "-Hello!" in changed.stdout and "+Howdy!" in changed.stdout
    accepted = cli(*base, "--agent", "a2.py:agent", "--update-snapshots", cwd=tmp_path)
    assert accepted.returncode == 0, accepted.stdout
    assert "1 updated" in accepted.stdout
    assert cli(*base, "--agent", "a2.py:agent", cwd=tmp_path).returncode == 0
    assert cli("run", "cases.json", "--update-snapshots", cwd=tmp_path).returncode == 2
