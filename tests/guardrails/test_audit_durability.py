"""AuditLogger under kill -9 and under concurrent writers (threads and processes).

Writers are real subprocesses writing records of up to 256 KiB (a large write
widens the window a kill can land in); each is killed with SIGKILL at a random
moment. After every kill: every complete line parses, at most one line per file
is torn, it is the last one, and the reader reports it.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from selectools.audit import AuditLogger

ROOT = Path(__file__).resolve().parents[2]
KILLS = 50

WRITER = """
import sys, random
from selectools.audit import AuditLogger
audit = AuditLogger(sys.argv[1], daily_rotation=False)
rng = random.Random(int(sys.argv[2]))
n = 0
print("ready", flush=True)
while True:
    audit.write("tool_end", sys.argv[2], n=n, pad="x" * rng.choice([10, 1000, 65536, 262144]))
    n += 1
"""


def _spawn(directory: Path, seed: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(directory), str(seed)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def _check_file(path: Path) -> tuple[int, int]:
    """(complete records, torn lines) of one file, asserting the invariants."""
    lines = path.read_bytes().split(b"\n")
    tail = lines.pop()  # after the last newline: a torn final line, or b""
    torn = 1 if tail else 0
    for line in lines:
        record = json.loads(line)  # every complete line parses
        assert record["event"] == "tool_end"
    return len(lines), torn


def test_kill_9_during_writes_leaves_at_most_one_torn_line(tmp_path: Path) -> None:
    rng = random.Random(1234)
    torn_total = 0
    records_total = 0
    for kill in range(KILLS):
        directory = tmp_path / f"k{kill}"
        writer = _spawn(directory, kill)
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, 0.05))
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
        assert writer.returncode == -signal.SIGKILL
        writer.stdout.close()
        files = list(directory.glob("*.jsonl"))
        assert len(files) <= 1
        if not files:
            continue
        complete, torn = _check_file(files[0])
        log = AuditLogger.read(directory)
        assert len(log) == complete
        assert len(log.torn_lines) == torn
        if torn:
            assert log.torn_lines[0].line_number == complete + 1
        assert [r["n"] for r in log] == list(range(complete))
        torn_total += torn
        records_total += complete
    print(
        f"\naudit kill -9: {KILLS} kills, {records_total} complete records, {torn_total} torn lines"
    )


def test_writers_restarted_after_kills_share_one_file(tmp_path: Path) -> None:
    """Kill writers repeatedly on the same file: a new writer ends any torn line first."""
    rng = random.Random(99)
    kills = 10
    for kill in range(kills):
        writer = _spawn(tmp_path, 1000 + kill)
        assert writer.stdout is not None
        writer.stdout.readline()
        time.sleep(rng.uniform(0.0, 0.03))
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
        writer.stdout.close()
    log = AuditLogger.read(tmp_path)
    assert len(log.torn_lines) <= kills
    for seed in {r["run_id"] for r in log}:
        numbers = [r["n"] for r in log if r["run_id"] == seed]
        assert numbers == list(range(len(numbers)))  # no complete record lost or merged


CONCURRENT = """
import sys
from selectools.audit import AuditLogger
audit = AuditLogger(sys.argv[1], daily_rotation=False)
for n in range(int(sys.argv[3])):
    audit.write("tool_end", sys.argv[2], n=n, pad=sys.argv[2][0] * (n * 997 % 40000))
"""


def test_concurrent_threads_and_processes_never_interleave(tmp_path: Path) -> None:
    per_writer = 150
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", CONCURRENT, str(tmp_path), f"p{i}", str(per_writer)],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        for i in range(3)
    ]
    shared = AuditLogger(tmp_path, daily_rotation=False)

    def thread_writer(name: str) -> None:
        for n in range(per_writer):
            shared.write("tool_end", name, n=n, pad=name[0] * (n * 991 % 40000))

    threads = [threading.Thread(target=thread_writer, args=(f"t{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for process in processes:
        assert process.wait(timeout=120) == 0
    log = AuditLogger.read(tmp_path)
    assert log.torn_lines == []
    writers = {f"p{i}" for i in range(3)} | {f"t{i}" for i in range(4)}
    assert len(log) == per_writer * len(writers)
    for writer in writers:
        records = [r for r in log if r["run_id"] == writer]
        assert [r["n"] for r in records] == list(range(per_writer))
        assert all(set(r["pad"]) <= {writer[0]} for r in records)
