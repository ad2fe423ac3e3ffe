"""``run_python``: run model-written Python in a separate, limited process.

Not one of the five documented categories (opt in with :func:`make_code_tools`).
The code runs in a child interpreter (``python -I``: no user site, no
``PYTHON*`` variables), started through a small launcher (``_run_launcher.py``)
that gives it:

* its own PID and mount namespaces with a fresh ``/proc`` (the code is PID 2;
  a small init, PID 1, reaps and reports its exit): the code sees only
  its own processes, so it cannot read ``/proc/<ppid>/environ`` (the
  environment the parent started with, API keys included), another process's
  memory, or ptrace anything outside. A scrubbed environment (``PATH``,
  ``LANG``, ``HOME``) is all it gets;
* no privileges: every capability dropped for good before the exec, even when
  the parent runs as root (so it cannot unmount that ``/proc`` either);
* a wall-clock timeout: the launcher is killed, the code (PID 1 of its
  namespace) dies with it, and the kernel kills every process left in the
  namespace — ``setsid``, double forks and daemons included;
* a bounded number of processes (``max_processes``): a pids cgroup when
  running as root on a system that offers one (``RLIMIT_NPROC`` does not apply
  to root), otherwise ``RLIMIT_NPROC``, counted inside the code's own user
  namespace. Not guaranteed: root where no pids cgroup can be created (a
  cgroup v2 host that does not delegate ``pids``) — there only the timeout
  bounds a fork loop;
* ``setrlimit`` limits on address space (memory, per process), CPU seconds,
  size of files written, open files and core dumps;
* a fresh temporary working directory (removed afterwards) and no stdin.

Why this design and not the parent marking itself non-dumpable
(``PR_SET_DUMPABLE``): that would stop debuggers and profilers (gdb, py-spy)
from attaching to the user's own kernel, turn off its core dumps, do nothing
against a child running as root (``CAP_SYS_PTRACE`` ignores it) and still leave
every other process of the user (the Jupyter server, the shell) readable. The
namespaces hide all of them and leave the user's process as it was.

When the namespaces cannot be created (not root and unprivileged user
namespaces disabled) the tool refuses to run the code and says why, rather
than run it without the isolation it promises.

What it is not: a container. The code runs as the same user: it can read and
write every file that user can (a ``.env`` file, a Jupyter kernel's
connection file) and, unless ``network=False``, use the network — localhost
included, where the user's own kernel listens. For hostile code use an
OS-level sandbox (a container, a VM). Linux only.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..tools import Tool, tool
from . import _run_launcher
from ._bind import bind
from ._errors import ToolboxError

__all__ = ["CodeTimeoutError", "PythonSandbox", "make_code_tools", "run_python"]

_LAUNCHER = Path(_run_launcher.__file__)


class CodeTimeoutError(ToolboxError):
    """The code ran past its time limit and was killed."""


@dataclass(frozen=True)
class PythonSandbox:
    """Limits of one ``run_python`` call.

    ``timeout`` (seconds of wall clock), ``memory_mb`` (address space per
    process), ``max_output_chars`` (of stdout and of stderr), ``max_file_mb``
    (largest file the code may write), ``max_processes`` (processes and
    threads the code may have at once, itself included), ``network`` (False:
    the code gets a network namespace of its own, with nothing reachable —
    not even the host's localhost, where a Jupyter kernel listens).
    """

    timeout: float = 10.0
    memory_mb: int = 512
    max_output_chars: int = 10_000
    max_file_mb: int = 10
    max_processes: int = 32
    network: bool = True

    def __post_init__(self) -> None:
        if self.timeout <= 0 or self.memory_mb < 32 or self.max_processes < 1:
            raise ValueError("timeout must be > 0, memory_mb at least 32, max_processes at least 1")

    def _limits(self) -> dict[str, int]:
        return {
            "RLIMIT_AS": self.memory_mb * 1024 * 1024,
            "RLIMIT_CPU": int(self.timeout) + 1,
            "RLIMIT_FSIZE": self.max_file_mb * 1024 * 1024,
            "RLIMIT_NOFILE": 64,
            "RLIMIT_CORE": 0,
            "RLIMIT_NPROC": self.max_processes + 1,  # + the namespace's init
        }

    def run(self, code: str) -> tuple[int, str, str]:
        """``(exit code, stdout, stderr)`` of ``code``; CodeTimeoutError past the timeout."""
        if not sys.platform.startswith("linux"):
            raise ToolboxError(
                "run_python needs Linux (it isolates the code in its own PID and mount namespaces)"
            )
        with (
            tempfile.TemporaryDirectory(prefix="selectools-run-") as workdir,
            _pids_cgroup(self.max_processes + 1) as cgroup,
        ):
            env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": workdir}
            config = {
                "python": sys.executable,
                "code": code,
                "cwd": workdir,
                "env": env,
                "limits": self._limits(),
                "cgroup": cgroup,
                "network": self.network,
            }
            launcher = subprocess.Popen(
                [sys.executable, "-I", "-S", str(_LAUNCHER), json.dumps(config)],
                cwd=workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
            try:
                out, err = launcher.communicate(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                launcher.kill()  # the code dies with it (PR_SET_PDEATHSIG), and its namespace
                launcher.communicate()
                raise CodeTimeoutError(
                    f"The code ran longer than {self.timeout:g} seconds and was stopped; "
                    "make it faster or do less work per call"
                ) from None
        marker = _run_launcher.MARKER.encode()
        if launcher.returncode == _run_launcher.UNAVAILABLE and err.startswith(marker):
            reason = err[len(marker) :].decode(errors="replace").strip()
            raise ToolboxError(
                f"run_python cannot isolate the code on this system ({reason}), so it did not "
                "run it: it needs to create PID and mount namespaces, as root with "
                "CAP_SYS_ADMIN or through an unprivileged user namespace "
                "(sysctl user.max_user_namespaces > 0; some containers forbid both)"
            )
        return launcher.returncode, self._cap(out), self._cap(err)

    def _cap(self, data: bytes) -> str:
        text = data.decode("utf-8", errors="replace")
        if len(text) > self.max_output_chars:
            more = len(text) - self.max_output_chars
            return text[: self.max_output_chars] + f"\n[truncated: {more} more characters]"
        return text


def _own_cgroup_dir() -> Path | None:
    """Where this process's pids cgroup lives (v1 ``pids`` hierarchy or cgroup v2), if known."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "pids" in controllers.split(","):
            return Path("/sys/fs/cgroup/pids" + path)
    for line in lines:
        if line.startswith("0::"):
            base = Path("/sys/fs/cgroup" + line[3:])
            controls = base / "cgroup.subtree_control"
            if controls.is_file() and "pids" in controls.read_text().split():
                return base
    return None


@contextlib.contextmanager
def _pids_cgroup(max_processes: int) -> Iterator[str | None]:
    """A fresh pids cgroup capped at ``max_processes`` (root only; ``None`` when none can be made).

    Root is exempt from ``RLIMIT_NPROC``, so a cgroup is the only bound that holds for it.
    """
    parent = _own_cgroup_dir() if os.geteuid() == 0 else None
    group: Path | None = None
    if parent is not None:
        candidate = parent / f"selectools-run-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            candidate.mkdir()
            (candidate / "pids.max").write_text(str(max_processes))
            group = candidate
        except OSError:
            with contextlib.suppress(OSError):
                candidate.rmdir()
    try:
        yield str(group) if group is not None else None
    finally:
        if group is not None:
            for _ in range(100):  # the namespace's processes take a moment to be reaped
                try:
                    group.rmdir()
                    break
                except OSError:
                    time.sleep(0.01)


DEFAULT_PYTHON = PythonSandbox()


@tool
def run_python(code: str, *, _python: PythonSandbox | None = None) -> str:
    """Run a Python script in a separate process and return its exit code, stdout and stderr.

    Args:
        code: The Python source to run; print() what you want to see.
    """
    sandbox = _python if _python is not None else DEFAULT_PYTHON
    status, out, err = sandbox.run(code)
    parts = [f"Exit code: {status}" + (" (killed by a resource limit)" if status < 0 else "")]
    if out:
        parts.append("--- stdout ---\n" + out.rstrip("\n"))
    if err:
        parts.append("--- stderr ---\n" + err.rstrip("\n"))
    return "\n".join(parts)


def make_code_tools(
    timeout: float = 10.0,
    memory_mb: int = 512,
    max_output_chars: int = 10_000,
    *,
    max_processes: int = 32,
    network: bool = True,
) -> list[Tool]:
    """``[run_python]`` with these limits (see :class:`PythonSandbox`)."""
    sandbox = PythonSandbox(
        timeout, memory_mb, max_output_chars, max_processes=max_processes, network=network
    )
    if sandbox == DEFAULT_PYTHON:
        return [run_python]
    return [bind(run_python, _python=sandbox)]
