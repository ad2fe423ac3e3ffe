"""Every file store works where ``fcntl`` does not exist (Windows): no store imports it itself."""

from __future__ import annotations

import subprocess
import sys

from tests.storage.conftest import ROOT, child_env

SCRIPT = """
import sys
sys.modules["fcntl"] = None  # as on Windows: importing it fails
from pathlib import Path
root = Path(sys.argv[1])

from selectools.sessions import JsonFileSessionStore
sessions = JsonFileSessionStore(root / "sessions")
with sessions.lock("s", timeout=5):
    sessions.save("s", {"n": 1})
assert sessions.load("s")["n"] == 1

from selectools.knowledge import FileKnowledgeStore, KnowledgeEntry
knowledge = FileKnowledgeStore(root / "knowledge")
knowledge.add(KnowledgeEntry(content="tea at five", persistent=True))
assert [e.content for e in knowledge.entries()] == ["tea at five"]

from selectools.entity_memory import Entity, EntityMemory
entities = EntityMemory()
entities.update([Entity(name="Ada", entity_type="person")])
entities.save(root / "entities.json")

from selectools.audit import AuditLogger, read_audit
audit = AuditLogger(root / "audit", daily_rotation=False)
audit.write("x", "r1")
assert len(read_audit(root / "audit").records) == 1

from selectools.evals import BaselineStore
BaselineStore(root / "baselines")

from selectools.observe import JSONLTraceStore
from selectools.trace import AgentTrace
JSONLTraceStore(root / "t.jsonl").save(AgentTrace(run_id="r1"))
print("ok")
"""


def test_file_stores_work_without_fcntl(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)],
        cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"
