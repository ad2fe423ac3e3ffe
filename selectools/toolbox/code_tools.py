"""``run_python``: run model-written Python in a separate, limited process.

Not one of the five documented categories (opt in with :func:`make_code_tools`).
The code runs in a child interpreter (``python -I``: no user site, no
``PYTHON*`` variables) with:

* a wall-clock timeout — the whole process group is killed when it expires;
* resource limits set in the child before it starts (``resource.setrlimit``):
  address space (memory), CPU seconds, size of files written, open files, no
  core dumps;
* a scrubbed environment: only ``PATH``, ``LANG`` and ``HOME`` — API keys and
  other secrets of the parent never reach the child;
* a fresh temporary working directory (removed afterwards) and no stdin.

This limits accidents and runaway code; it is not a container. The child can
still use the network and read files the user running Python can read, so use
an OS-level sandbox (a container, a VM) for hostile code. POSIX only.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass

from ..tools import Tool, tool
from ._bind import bind
from ._errors import ToolboxError

__all__ = ["CodeTimeoutError", "PythonSandbox", "make_code_tools", "run_python"]


class CodeTimeoutError(ToolboxError):
    """The code ran past its time limit and was killed."""


@dataclass(frozen=True)
class PythonSandbox:
    """Limits of one ``run_python`` call.

    ``timeout`` (seconds of wall clock), ``memory_mb`` (address space),
    ``max_output_chars`` (of stdout and of stderr), ``max_file_mb`` (largest
    file the code may write).
    """

    timeout: float = 10.0
    memory_mb: int = 512
    max_output_chars: int = 10_000
    max_file_mb: int = 10

    def __post_init__(self) -> None:
        if self.timeout <= 0 or self.memory_mb < 32:
            raise ValueError("timeout must be > 0 and memory_mb at least 32")

    def _limit(self) -> None:  # runs in the child, before exec
        import resource

        memory = self.memory_mb * 1024 * 1024
        cpu = int(self.timeout) + 1
        for limit, value in (
            (resource.RLIMIT_AS, memory),
            (resource.RLIMIT_CPU, cpu),
            (resource.RLIMIT_FSIZE, self.max_file_mb * 1024 * 1024),
            (resource.RLIMIT_NOFILE, 64),
            (resource.RLIMIT_CORE, 0),
        ):
            resource.setrlimit(limit, (value, value))

    def run(self, code: str) -> tuple[int, str, str]:
        """``(exit code, stdout, stderr)`` of ``code``; CodeTimeoutError past the timeout."""
        if os.name != "posix":
            raise ToolboxError(
                "run_python needs a POSIX system (it limits the child with setrlimit)"
            )
        with tempfile.TemporaryDirectory(prefix="selectools-run-") as workdir:
            env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": workdir}
            process = subprocess.Popen(
                [sys.executable, "-I", "-c", code],
                cwd=workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                preexec_fn=self._limit,  # setrlimit must run in the child, before exec
                start_new_session=True,
            )
            try:
                out, err = process.communicate(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.communicate()
                raise CodeTimeoutError(
                    f"The code ran longer than {self.timeout:g} seconds and was stopped; "
                    "make it faster or do less work per call"
                ) from None
        return process.returncode, self._cap(out), self._cap(err)

    def _cap(self, data: bytes) -> str:
        text = data.decode("utf-8", errors="replace")
        if len(text) > self.max_output_chars:
            more = len(text) - self.max_output_chars
            return text[: self.max_output_chars] + f"\n[truncated: {more} more characters]"
        return text


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
    timeout: float = 10.0, memory_mb: int = 512, max_output_chars: int = 10_000
) -> list[Tool]:
    """``[run_python]`` with these limits."""
    sandbox = PythonSandbox(timeout, memory_mb, max_output_chars)
    if sandbox == DEFAULT_PYTHON:
        return [run_python]
    return [bind(run_python, _python=sandbox)]
