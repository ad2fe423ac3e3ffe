"""The Binder recipe works on a fresh machine: a new virtualenv from ``binder/requirements.txt``
and ``binder/postBuild`` (which installs this working tree) runs every demo notebook.

The environment is built from scratch each time, as repo2docker does, from the package
registry pip is configured with (``PIP_INDEX_URL``/``PIP_FIND_LINKS`` point it at a mirror or a
local wheelhouse for an offline machine); pip's cache keeps a second build quick. The notebooks
run with nbclient *inside* that environment, in a copy of ``notebooks/`` (they write scratch
files), with nothing of the test's own environment on the path: no ``PYTHONPATH``, the kernel
being the new environment's ``python3``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BINDER = ROOT / "binder"
#: building the environment: downloads on a cold cache, seconds on a warm one
INSTALL_DEADLINE = 1200
#: running all notebooks on a loaded 2-core machine
RUN_DEADLINE = 900

pytestmark = [
    pytest.mark.slow,
    pytest.mark.kernel,
    pytest.mark.timeout(INSTALL_DEADLINE + RUN_DEADLINE + 120),
]

RUNNER = r"""
import sys, time
from pathlib import Path
import nbformat
from nbclient import NotebookClient

folder = Path(sys.argv[1])
failed = []
for path in sorted(folder.glob("*.ipynb")):
    started = time.perf_counter()
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(folder)}})
    try:
        client.execute()
    except Exception as exc:
        failed.append(path.name)
        print(f"FAILED {path.name}: {type(exc).__name__}: {str(exc)[-2000:]}", flush=True)
        continue
    errors = [o for c in notebook.cells for o in c.get("outputs", []) if o.output_type == "error"]
    if errors:
        failed.append(path.name)
    print(f"ran {path.name} in {time.perf_counter() - started:.1f}s, {len(errors)} errors", flush=True)
sys.exit(1 if failed else 0)
"""


def _clean_env(bin_dir: Path, home: Path) -> dict[str, str]:
    """The environment a Binder user has: the new env first on PATH, no path of ours."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in ("PYTHONPATH", "VIRTUAL_ENV", "JUPYTER_PATH", "JUPYTER_CONFIG_DIR", "IPYTHONDIR")
        and not k.startswith(("SELECTOOLS_", "OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_API"))
    }
    env["PATH"] = os.pathsep.join([str(bin_dir), env.get("PATH", "")])
    env["VIRTUAL_ENV"] = str(bin_dir.parent)
    env["JUPYTER_DATA_DIR"] = str(home / "jupyter-data")
    env["JUPYTER_RUNTIME_DIR"] = str(home / "jupyter-runtime")
    env["IPYTHONDIR"] = str(home / "ipython")
    env["MPLBACKEND"] = "Agg"
    return env


def _run(command: list[str], env: dict[str, str], cwd: Path, deadline: float, what: str) -> str:
    done = subprocess.run(
        command, env=env, cwd=cwd, capture_output=True, text=True, timeout=deadline, check=False
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{what} failed ({done.returncode}):\n{output[-6000:]}"
    return output


def test_a_fresh_binder_environment_runs_every_notebook(tmp_path, report):
    env_dir = tmp_path / "binder-env"
    started = time.perf_counter()
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    bin_dir = env_dir / ("Scripts" if sys.platform == "win32" else "bin")
    env = _clean_env(bin_dir, tmp_path)
    python = str(bin_dir / "python")
    _run(
        [python, "-m", "pip", "install", "-q", "-r", str(BINDER / "requirements.txt")],
        env,
        tmp_path,
        INSTALL_DEADLINE,
        "pip install -r binder/requirements.txt",
    )
    _run(["bash", str(BINDER / "postBuild")], env, ROOT, INSTALL_DEADLINE, "binder/postBuild")
    built = time.perf_counter() - started

    # the pins hold after postBuild (the demos extra did not move them)
    pins = dict(
        line.split("#")[0].strip().split("==")
        for line in (BINDER / "requirements.txt").read_text().splitlines()
        if "==" in line.split("#")[0]
    )
    frozen = _run([python, "-m", "pip", "freeze"], env, tmp_path, 120, "pip freeze")
    installed = {
        name.lower().replace("_", "-"): version
        for name, _, version in (line.partition("==") for line in frozen.splitlines())
    }
    moved = {
        name: (version, installed.get(name.lower().replace("_", "-")))
        for name, version in pins.items()
        if installed.get(name.lower().replace("_", "-")) != version
    }
    assert not moved, f"postBuild moved pinned packages (pinned, installed): {moved}"
    where = _run(
        [python, "-c", "import selectools, sys; print(selectools.__file__)"],
        env,
        tmp_path,
        120,
        "import selectools",
    )
    assert str(ROOT) in where, "postBuild installs the working tree itself"

    notebooks = tmp_path / "notebooks"
    shutil.copytree(
        ROOT / "notebooks", notebooks, ignore=shutil.ignore_patterns(".ipynb_checkpoints")
    )
    ran = time.perf_counter()
    output = _run([python, "-c", RUNNER, str(notebooks)], env, tmp_path, RUN_DEADLINE, "notebooks")
    count = len(list(notebooks.glob("*.ipynb")))
    assert output.count("ran ") == count and " 0 errors" in output, output
    report(
        f"binder: fresh env built in {built:.0f}s, {count} notebooks ran in "
        f"{time.perf_counter() - ran:.0f}s\n{output}"
    )
