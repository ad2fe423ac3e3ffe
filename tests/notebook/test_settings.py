"""The magics' defaults are traits: %config, ipython_config.py and %selectools k=v set the same values."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from IPython.core.error import UsageError

from selectools.notebook import notebook_approver
from selectools.testing import ScriptedProvider

ROOT = Path(__file__).resolve().parents[2]


def magics(ip):
    return ip.magics_manager.registry["SelectoolsMagics"]


@pytest.fixture
def approver_rule():
    """Tests here change the notebook approver's rule; put it back."""
    approver = notebook_approver()
    before = approver.rule
    yield approver
    approver.set_rule(before)


def test_config_magic_sets_the_model_agent_runs_use(shell):
    provider = ScriptedProvider(["done"])
    shell.user_ns["demo"] = provider
    shell.run_cell("%config SelectoolsMagics.model = 'gpt-4o-mini'")
    shell.run_cell("%config SelectoolsMagics.provider = 'demo'")
    result = shell.run_cell("%%agent\nhello")
    assert result.success, result.error_in_exec
    assert provider.requests[0].model == "gpt-4o-mini"


def test_the_short_form_sets_the_same_traits(shell, capsys):
    shell.run_line_magic("selectools", "model=claude-x display=text budget=0.25 context_limit=900")
    traits = magics(shell)
    assert (traits.model, traits.display, traits.budget, traits.context_limit) == (
        "claude-x",
        "text",
        0.25,
        900,
    )
    shell.run_cell("%config SelectoolsMagics.model")
    assert "claude-x" in capsys.readouterr().out
    shown = repr(shell.run_line_magic("selectools", ""))
    assert "model: claude-x" in shown and "budget: $0.25 per %%agent run" in shown
    shell.run_line_magic("selectools", "model=default budget=none")
    assert (traits.model, traits.budget) == ("", None)


def test_config_lists_the_settings_with_their_help(shell, capsys):
    shell.run_cell("%config")
    assert "SelectoolsMagics" in capsys.readouterr().out
    shell.run_cell("%config SelectoolsMagics")
    out = capsys.readouterr().out
    for trait in ("provider", "model", "display", "approval", "budget", "context_limit"):
        assert f"SelectoolsMagics.{trait}=" in out


def test_approval_trait_is_the_approvers_rule(shell, approver_rule):
    shell.run_cell("%config SelectoolsMagics.approval = 'deny'")
    assert approver_rule.rule == "deny"
    shell.run_line_magic("selectools", "approval=allow")
    assert approver_rule.rule == "allow" and magics(shell).approval == "allow"


def test_bad_values_are_refused_and_change_nothing(shell, capsys):
    for line, needle in (
        ("display=fancy", "display must be one of"),
        ("budget=-1", "budget must be a cost in USD above 0"),
        ("budget=nan", "budget must be a cost in USD above 0"),
        ("context_limit=10", "context_limit must be a whole number"),
        ("model=ok approval=maybe", "approval must be one of"),
    ):
        with pytest.raises(UsageError, match=needle):
            shell.run_line_magic("selectools", line)
    assert magics(shell).model == ""  # the good half of a bad line is not applied
    shell.run_cell("%config SelectoolsMagics.display = 'fancy'")
    assert magics(shell).display == "auto"


def test_shell_config_applies_when_the_extension_loads(shell):
    shell.extension_manager.unload_extension("selectools")
    shell.config.SelectoolsMagics.model = "from-config"
    shell.config.SelectoolsMagics.budget = 0.5
    shell.extension_manager.load_extension("selectools")
    assert (magics(shell).model, magics(shell).budget) == ("from-config", 0.5)
    assert magics(shell) in shell.configurables


def test_unload_leaves_no_configurable_behind(shell):
    ours = magics(shell)
    shell.extension_manager.unload_extension("selectools")
    try:
        assert ours not in shell.configurables
    finally:
        shell.extension_manager.load_extension("selectools")


def test_ipython_config_file_sets_the_defaults(tmp_path):
    """A real ``ipython_config.py`` in a profile, read by a real IPython process."""
    profile = tmp_path / "profile"
    profile.mkdir()
    (profile / "ipython_config.py").write_text(
        textwrap.dedent(
            """
            c = get_config()
            c.InteractiveShellApp.extensions = ["selectools"]
            c.SelectoolsMagics.provider = "local"
            c.SelectoolsMagics.model = "model-from-profile"
            c.SelectoolsMagics.context_limit = 777
            """
        )
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    env["IPYTHONDIR"] = str(tmp_path / "ipythondir")
    code = (
        "m = get_ipython().magics_manager.registry['SelectoolsMagics']; "
        "print('TRAITS', m.provider, m.model, m.context_limit)"
    )
    done = subprocess.run(
        [sys.executable, "-m", "IPython", f"--profile-dir={profile}", "--no-banner", "-c", code],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=tmp_path,
    )
    assert "TRAITS local model-from-profile 777" in done.stdout, done.stdout + done.stderr
