"""Reference interpreters for same-run benchmarks: one virtualenv per reference, made once.

Each lives under ``$SELECTOOLS_BENCH_CACHE`` (default ``~/.cache/selectools-bench``)
and is reused while its probe still prints a version (the expected one, if given).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def clean_env() -> dict[str, str]:
    """This process's environment without the variables that would point Python at this checkout."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


def reference_python(
    name: str, requirement: str, probe: str, *, expect: str | None = None
) -> tuple[Path, str]:
    """(interpreter, version) of the virtualenv ``name`` holding ``requirement``.

    ``probe`` is Python code printing the reference's version; with ``expect`` the
    virtualenv is rebuilt unless it prints exactly that.
    """
    cache = Path(os.environ.get("SELECTOOLS_BENCH_CACHE", Path.home() / ".cache/selectools-bench"))
    venv = cache / f"{name}-py{sys.version_info[0]}{sys.version_info[1]}"
    python = venv / "bin" / "python"

    def version() -> str | None:
        found = subprocess.run(
            [str(python), "-c", probe], capture_output=True, text=True, cwd=cache, env=clean_env()
        )
        printed = found.stdout.strip()
        return printed if found.returncode == 0 and expect in (None, printed) else None

    if python.exists() and (found := version()) is not None:
        return python, found
    print(f"creating {venv} with {requirement} ...", file=sys.stderr)
    cache.mkdir(parents=True, exist_ok=True)
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--clear", str(venv)], check=True)
    pip = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", requirement],
        capture_output=True,
        text=True,
        env=clean_env(),
    )
    if pip.returncode:
        raise SystemExit(f"pip install {requirement} failed:\n{pip.stderr}")
    found = version()
    if found is None:
        raise SystemExit(f"{venv}: {requirement} installed, but its probe failed ({probe!r})")
    return python, found
