"""``python -m selectools.evals`` in a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

AGENT = """
from selectools import Agent, AgentConfig
from selectools.testing import ScriptedProvider

ANSWERS = {"Check balance": "Your balance is $10.", "Hi": "Hello!"}


def build():
    return Agent(
        provider=ScriptedProvider(lambda r: ANSWERS.get(r.last_message.content, "?")),
        config=AgentConfig(model="gpt-4o-mini"),
    )
"""


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(cwd)])}
    return subprocess.run(
        [sys.executable, "-m", "selectools.evals", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def write_cases(path: Path, contains_hi: str) -> None:
    path.write_text(
        json.dumps(
            [
                {"input": "Check balance", "expect_contains": "balance", "name": "balance"},
                {"input": "Hi", "expect_contains": contains_hi, "name": "greeting"},
            ]
        )
    )


def test_run_with_local_provider_writes_junit_html_json(tmp_path):
    write_cases(tmp_path / "cases.json", "hello")
    done = cli(
        "run", "cases.json", "--provider", "local", "--junit", "out.xml", "--html", "r.html",
        "--json", "r.json", "--concurrency", "2", "--verbose", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Accuracy: 50.0%" in done.stdout  # the local provider echoes: "Check balance" passes
    assert "FAIL  greeting" in done.stdout
    assert ET.parse(tmp_path / "out.xml").getroot().find("testsuite").get("tests") == "2"
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")
    assert json.loads((tmp_path / "r.json").read_text())["metrics"]["pass_count"] == 1
    assert "[" in done.stderr and "2/2 (100%)" in done.stderr  # the progress bar


def test_compare_saves_then_exits_nonzero_on_regression(tmp_path):
    (tmp_path / "my_agent.py").write_text(AGENT)
    write_cases(tmp_path / "cases.json", "hello")
    first = cli(
        "compare",
        "cases.json",
        "--agent",
        "my_agent:build",
        "--baseline",
        "bl",
        "--save",
        cwd=tmp_path,
    )
    assert first.returncode == 0, first.stderr
    assert "No baseline yet" in first.stdout and "saved baseline" in first.stdout
    assert (tmp_path / "bl" / "cases.json").exists()

    again = cli(
        "compare", "cases.json", "--agent", "my_agent.py:build", "--baseline", "bl", cwd=tmp_path
    )
    assert again.returncode == 0 and "no regression" in again.stdout

    write_cases(tmp_path / "cases.json", "goodbye")
    worse = cli(
        "compare",
        "cases.json",
        "--agent",
        "my_agent:build",
        "--baseline",
        "bl",
        "--save",
        cwd=tmp_path,
    )
    assert worse.returncode == 1
    assert (
        "REGRESSION" in worse.stdout and "✗ greeting" in worse.stdout and "-50.00%" in worse.stdout
    )
    assert "saved baseline" not in worse.stdout  # a regressed run never replaces the baseline


def test_malformed_and_missing_datasets_exit_2_with_file_and_line(tmp_path):
    (tmp_path / "bad.json").write_text('[\n  {"input": "a"},\n  {"expect_tool": "x"}\n]')
    done = cli("run", "bad.json", cwd=tmp_path)
    assert done.returncode == 2
    assert (
        done.stderr.strip()
        == "error: bad.json:3: expected an 'input' string (the prompt) in every case"
    )
    missing = cli("run", "nope.yaml", cwd=tmp_path)
    assert missing.returncode == 2 and "nope.yaml: no such dataset file" in missing.stderr


def test_fail_under_and_unknown_provider(tmp_path):
    write_cases(tmp_path / "cases.json", "hello")
    low = cli("run", "cases.json", "--fail-under", "0.9", "-q", cwd=tmp_path)
    assert low.returncode == 1 and "is under 90.0%" in low.stdout and low.stderr == ""
    bad = cli("run", "cases.json", "--provider", "nosuch", cwd=tmp_path)
    assert bad.returncode == 2 and "unknown provider" in bad.stderr
