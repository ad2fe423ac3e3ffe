"""run_python keeps its promises against code that tries to break them.

Each test runs the attack through the tool and checks the outcome from outside:
the secret is not in the output, no process is left writing after the
timeout, a fork loop hits the process limit.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from selectools.exceptions import ToolExecutionError
from selectools.toolbox.code_tools import CodeTimeoutError, make_code_tools, run_python

ROOT = Path(__file__).resolve().parents[2]

SECRET = "sk-test-0123456789-do-not-leak"

# Runs inside the sandbox: read the environment of every ancestor (by ppid and by
# walking /proc/<pid>/stat), of the PID the parent had, and of every PID /proc lists.
PROBE = textwrap.dedent(
    """
    import os
    found, tried = [], []
    def look(pid):
        tried.append(pid)
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                found.append(handle.read().decode(errors="replace"))
        except OSError as exc:
            pass
    pid = os.getpid()
    while pid > 0:
        look(pid)
        try:
            pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
        except OSError:
            break
    look(os.getppid())
    look(PARENT_PID)
    for name in os.listdir("/proc"):
        if name.isdigit():
            look(int(name))
    print("tried", len(tried), "pids;", "read", len(found), "environments")
    print("\\n".join(found))
    """
)

# A fresh interpreter started with the secret in its environment (as a user's
# kernel is, from a shell that exported the key), calling run_python.
CALLER = textwrap.dedent(
    """
    import os, sys
    from selectools.toolbox.code_tools import run_python
    probe = sys.argv[1].replace("PARENT_PID", str(os.getpid()))
    print(run_python.execute({"code": probe}))
    """
)


def test_the_parents_start_up_environment_is_unreadable() -> None:
    env = {**os.environ, "OPENAI_API_KEY": SECRET, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", CALLER, PROBE],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "tried" in out and "Exit code: 0" in out  # the probe ran
    assert SECRET not in out and "OPENAI_API_KEY" not in out
    print(out.splitlines()[2])  # how many PIDs the probe tried


SURVIVOR = textwrap.dedent(
    """
    import os, sys, time
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:  # a daemon: its own session, parent gone
            while True:
                with open(sys.argv[1] if len(sys.argv) > 1 else LOG, "a") as handle:
                    handle.write(f"{time.time()}\\n")
                time.sleep(0.1)
        os._exit(0)
    time.sleep(60)
    """
)


def test_nothing_the_code_starts_outlives_the_timeout(tmp_path: Path) -> None:
    log = tmp_path / "alive.log"
    tmp_path.chmod(0o777)
    tool = make_code_tools(timeout=3)[0]  # room for the daemon to start on a loaded machine
    with pytest.raises(ToolExecutionError) as info:
        tool.execute({"code": SURVIVOR.replace("LOG", repr(str(log)))})
    assert isinstance(info.value.error, CodeTimeoutError)
    stopped = time.time()
    time.sleep(3)
    stamps = [float(line) for line in log.read_text().split()]
    assert stamps, "the daemon never ran: the test proves nothing"
    late = [s for s in stamps if s > stopped + 0.5]
    assert late == [], f"{len(late)} writes after the timeout"


def test_a_daemon_dies_with_code_that_exits_normally(tmp_path: Path) -> None:
    log = tmp_path / "alive.log"
    code = SURVIVOR.replace("time.sleep(60)", "time.sleep(0.5)").replace("LOG", repr(str(log)))
    run_python.execute({"code": code})
    returned = time.time()
    time.sleep(1.5)
    stamps = [float(line) for line in log.read_text().split()]
    assert stamps and all(s < returned + 0.5 for s in stamps)


FORKS = textwrap.dedent(
    """
    import os, time
    made = 0
    for _ in range(150):
        try:
            pid = os.fork()
        except OSError as exc:
            print("fork refused:", exc.strerror)
            break
        if pid == 0:
            time.sleep(5)
            os._exit(0)
        made += 1
    print("forks", made)
    """
)


def test_the_number_of_processes_is_bounded() -> None:
    tool = make_code_tools(timeout=20, max_processes=16)[0]
    out = tool.execute({"code": FORKS})
    made = int(out.split("forks ")[1].split()[0])
    print(f"forks that succeeded with max_processes=16: {made}")
    assert made < 16 and "fork refused" in out
    default = run_python.execute({"code": FORKS})  # the default bound: 32
    assert int(default.split("forks ")[1].split()[0]) < 32 and "fork refused" in default


def test_the_code_has_no_privileges() -> None:
    code = "print(open('/proc/self/status').read())"
    status = run_python.execute({"code": code})
    fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
    assert int(fields["CapEff"], 16) == 0 and int(fields["CapBnd"], 16) == 0
    assert fields["NoNewPrivs"].strip() == "1"


def test_without_network_not_even_the_hosts_localhost_is_reachable() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        code = textwrap.dedent(
            f"""
            import socket
            try:
                socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
                print("connected")
            except OSError as exc:
                print("refused:", exc)
            """
        )
        assert "connected" in run_python.execute({"code": code})  # the default: network on
        offline = make_code_tools(network=False)[0].execute({"code": code})
        assert "refused:" in offline and "connected" not in offline
