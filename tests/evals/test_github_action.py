"""The GitHub Action in .github/actions/eval: its shell step runs here, in bash, against the
real CLI, with a dataset and a baseline; the step outputs and the PR comment are checked."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.evals.test_cli import ROOT, cli

ACTION = ROOT / ".github" / "actions" / "eval" / "action.yml"

AGENT = """
from selectools import Agent, AgentConfig
from selectools.testing import ScriptedProvider

ANSWERS = {"Check balance": "Your balance is $10.", "Hi": "Hello!", "Bye": "Goodbye"}


def build():
    return Agent(
        provider=ScriptedProvider(lambda r: ANSWERS.get(r.last_message.content, "?")),
        config=AgentConfig(model="gpt-4o-mini"),
    )
"""

HOSTILE = "x | <img src=x onerror=alert(1)> @octocat `tick`\nregression=false"


def write_cases(path: Path, greeting_expects: str) -> None:
    path.write_text(
        json.dumps(
            [
                {"input": "Check balance", "expect_contains": "balance", "name": "balance"},
                {"input": "Hi", "expect_contains": greeting_expects, "name": "greeting"},
                {"input": "Bye", "expect_contains": "ciao", "name": HOSTILE},
            ]
        )
    )


def read_outputs(path: Path) -> dict[str, str]:
    """Parse a $GITHUB_OUTPUT file the way the runner does (name=value, name<<DELIM ... DELIM)."""
    outputs: dict[str, str] = {}
    lines = path.read_text().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            while lines[i] != delimiter:
                body.append(lines[i])
                i += 1
            i += 1
            outputs[name] = "\n".join(body)
        else:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


def test_cli_writes_step_outputs_and_the_comment_against_a_baseline(tmp_path):
    (tmp_path / "my_agent.py").write_text(AGENT)
    write_cases(tmp_path / "cases.json", "hello")
    first = cli(
        "compare", "cases.json", "--agent", "my_agent:build", "--baseline", "bl", "--save",
        "--github-output", "out1", "--comment", "c1.md", cwd=tmp_path,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    outputs = read_outputs(tmp_path / "out1")
    assert outputs["accuracy"] == "0.6667"
    assert (outputs["pass-count"], outputs["fail-count"], outputs["error-count"]) == ("2", "1", "0")
    assert outputs["total-cases"] == "3" and outputs["regression"] == "false"
    assert "**Baseline:** none yet." in outputs["comment-body"]

    write_cases(tmp_path / "cases.json", "howdy")  # the greeting now fails: a regression
    second = cli(
        "compare", "cases.json", "--agent", "my_agent:build", "--baseline", "bl",
        "--github-output", "out2", "--comment", "c2.md", cwd=tmp_path,
    )  # fmt: skip
    assert second.returncode == 1, second.stdout
    outputs = read_outputs(tmp_path / "out2")
    assert set(outputs) == {
        "accuracy",
        "pass-count",
        "fail-count",
        "error-count",
        "total-cases",
        "regression",
        "snapshot-changes",
        "comment-body",
    }  # fmt: skip  (the hostile case name added nothing)
    assert outputs["regression"] == "true" and outputs["accuracy"] == "0.3333"
    comment = (tmp_path / "c2.md").read_text()
    assert outputs["comment-body"] == comment.rstrip("\n")
    assert comment.startswith("<!-- selectools-eval-report -->\n## 🔴 Eval `cases`: 33.3% accuracy")
    assert "| 33.3% | 1 | 2 | 0 | 0 |" in comment
    assert "**Baseline:** 66.7% → 33.3% (-33.33%), **regression**: `greeting`." in comment
    assert "### Failures (2)" in comment
    # untrusted text only inside code spans: no raw HTML, no mention, no extra table column
    hostile_row = next(line for line in comment.split("\n") if "octocat" in line)
    assert hostile_row.startswith(
        "| ``x \\| <img src=x onerror=alert(1)> @octocat `tick` regression=false`` | fail |"
    )


def action_step(step_id: str) -> dict:
    action = yaml.safe_load(ACTION.read_text())
    assert action["runs"]["using"] == "composite"
    return next(s for s in action["runs"]["steps"] if s.get("id") == step_id)


def evaluate(value: str, inputs: dict[str, str], runner_temp: Path) -> str:
    """The two expression forms the eval step uses; anything else fails the test."""

    def one(match: re.Match[str]) -> str:
        expr = match.group(1).strip()
        if expr == "runner.temp":
            return str(runner_temp)
        assert expr.startswith("inputs."), f"unexpected expression {expr}"
        return inputs[expr.removeprefix("inputs.")]

    return re.sub(r"\$\{\{(.*?)\}\}", one, value)


def run_action(tmp_path: Path, **given: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    action = yaml.safe_load(ACTION.read_text())
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    inputs.update(given)
    step = action_step("eval")
    assert "${{" not in step["run"]  # inputs reach the script through env only
    temp = tmp_path / "runner-temp"
    temp.mkdir(exist_ok=True)
    output_file = tmp_path / "github-output"
    output_file.write_text("")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)]),
        "GITHUB_OUTPUT": str(output_file),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        **{k: evaluate(str(v), inputs, temp) for k, v in step["env"].items()},
    }
    done = subprocess.run(
        [shutil.which("bash") or "bash", "-e", "-c", step["run"]],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    return done, read_outputs(output_file)


@pytest.mark.skipif(sys.platform == "win32", reason="the action's steps are bash")
def test_the_action_step_runs_the_cli_and_reports_a_regression(tmp_path):
    (tmp_path / "my_agent.py").write_text(AGENT)
    write_cases(tmp_path / "cases.json", "hello")
    common = {"cases": "cases.json", "agent": "my_agent:build", "baseline-dir": "baselines"}
    first, outputs = run_action(tmp_path, **common, **{"save-baseline": "true"})
    assert first.returncode == 0, first.stderr
    assert outputs["exit-code"] == "0" and outputs["regression"] == "false"
    assert (tmp_path / "baselines" / "cases.json").exists()
    assert (tmp_path / "eval-report.html").read_text().startswith("<!DOCTYPE html>")
    assert (tmp_path / "summary.md").read_text().startswith("<!-- selectools-eval-report -->")

    write_cases(tmp_path / "cases.json", "howdy")
    second, outputs = run_action(tmp_path, **common, **{"save-baseline": "true"})
    assert second.returncode == 0, second.stderr  # the step records the code; a later step fails
    assert outputs["exit-code"] == "1" and outputs["regression"] == "true"
    assert outputs["accuracy"] == "0.3333" and outputs["fail-count"] == "2"
    assert "REGRESSION" in second.stdout
    baseline = json.loads((tmp_path / "baselines" / "cases.json").read_text())
    assert baseline["metrics"]["pass_count"] == 2  # a regressed run is not saved


def test_the_action_fails_the_job_on_a_regression_unless_told_not_to():
    action = yaml.safe_load(ACTION.read_text())
    last = action["runs"]["steps"][-1]
    assert "exit 1" in last["run"]
    assert "steps.eval.outputs.exit-code != '0'" in last["if"]
    assert "inputs.fail-on-regression == 'true'" in last["if"]
    outputs = action["outputs"]
    for name in ("accuracy", "pass-count", "fail-count", "regression", "comment-body"):
        assert outputs[name]["value"] == f"${{{{ steps.eval.outputs.{name} }}}}"


def test_a_bad_dataset_exits_2_and_still_records_the_code(tmp_path):
    (tmp_path / "cases.json").write_text("[{")
    done, outputs = run_action(tmp_path, cases="cases.json")
    assert done.returncode == 0
    assert outputs == {"exit-code": "2"}
    assert "cases.json" in done.stderr
