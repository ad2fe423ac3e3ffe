"""The launcher ``run_python`` starts: it puts the model's code in its own namespaces, then execs it.

Run as a script (``python -I -S _run_launcher.py CONFIG``), never imported: it
needs only the standard library so it starts fast and sees nothing of the
parent. It runs with the scrubbed environment the parent gave it, then:

1. ``unshare`` a PID and a mount namespace (plus a user namespace when not
   root or root without ``CAP_SYS_ADMIN``: it is what lets them create the
   other two);
2. forks: the child is PID 1 (init) of the new namespace. When init exits or
   is killed, the kernel kills every process left in the namespace, ``setsid``
   or not, so nothing the code starts outlives it. Init dies with the launcher
   (``PR_SET_PDEATHSIG``), which is what the parent kills on a timeout, and
   exits as soon as the code (PID 2, forked by init) exits;
3. init mounts a fresh ``/proc``: it lists only the namespace's own
   processes, so ``/proc/<ppid>/environ`` and every other process's
   environment or memory are out of reach (ptrace too: their PIDs do not exist here);
4. init joins the pids cgroup the parent prepared (root only), sets the
   resource limits, drops every capability for good (empty bounding set,
   ``SECBIT_NOROOT`` locked, ``no_new_privs``) so nothing in the namespace can
   unmount that ``/proc`` or bypass file permissions, then forks the code:
   ``python -I -c CODE``. The code's wait status comes back through a pipe.

With ``network`` off the code also gets an empty network namespace (no
interfaces but a loopback of its own): nothing on the host, localhost
included, is reachable.

If a namespace cannot be created it exits with :data:`UNAVAILABLE` and a reason
on stderr: the parent refuses to run the code rather than run it unconfined.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import sys

TYPE_CHECKING = False  # type checkers read the block below; the launcher never imports typing
if TYPE_CHECKING:
    from typing import Any

UNAVAILABLE = 125
MARKER = "selectools-run-python-launcher: "

_CLONE_NEWNS = 0x00020000
_CLONE_NEWNET = 0x40000000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 2, 4, 8, 1 << 14, 1 << 18
_PR_SET_PDEATHSIG, _PR_CAPBSET_DROP, _PR_SET_SECUREBITS = 1, 24, 28
_PR_SET_NO_NEW_PRIVS, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 38, 47, 4
# NOROOT, NO_SETUID_FIXUP, KEEP_CAPS (off), NO_CAP_AMBIENT_RAISE: each with its LOCKED bit
_SECUREBITS = 0b1110_1111

_libc = ctypes.CDLL(None, use_errno=True)


def _fail(reason: str) -> None:
    sys.stderr.write(MARKER + reason + "\n")
    sys.stderr.flush()
    os._exit(UNAVAILABLE)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        _fail(f"{what} failed: {os.strerror(errno)}")


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _enter_namespaces(network: bool) -> None:
    uid, gid = os.geteuid(), os.getegid()
    flags = _CLONE_NEWPID | _CLONE_NEWNS | (0 if network else _CLONE_NEWNET)
    # Root with CAP_SYS_ADMIN needs no user namespace; root without it (a container)
    # and everyone else create one, which is what lets them create the other two.
    if uid != 0 or _libc.unshare(flags) != 0:
        _check(_libc.unshare(flags | _CLONE_NEWUSER), "unshare (user, PID and mount namespaces)")
        # map ourselves to root of the new user namespace: it may then mount /proc
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"0 {uid} 1")
        _write("/proc/self/gid_map", f"0 {gid} 1")


def _drop_privileges() -> None:
    with open("/proc/sys/kernel/cap_last_cap") as handle:
        last = int(handle.read())
    for cap in range(last + 1):
        _check(_libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0), "dropping capabilities")
    _libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    _check(_libc.prctl(_PR_SET_SECUREBITS, _SECUREBITS, 0, 0, 0), "setting securebits")
    _check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "setting no_new_privs")


def _become_init(config: dict[str, Any], status_fd: int) -> None:
    """PID 1 of the new namespace: fresh /proc, limits, no privileges; runs the code as PID 2.

    The code is not PID 1 itself so that signals work for it as anywhere else
    (PID 1 ignores the ones it has no handler for). This init reaps orphans,
    and when the code exits it reports the code's wait status and exits: the
    kernel then kills whatever the code left behind.
    """
    parent = os.getppid()
    _check(_libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "setting the death signal")
    if os.getppid() != parent:  # the launcher died before the death signal was armed
        os._exit(UNAVAILABLE)
    _check(_libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None), "making mounts private")
    _check(
        _libc.mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None),
        "mounting a fresh /proc",
    )
    if config["cgroup"]:
        _write(os.path.join(config["cgroup"], "cgroup.procs"), "0")
    for name, value in config["limits"].items():
        resource.setrlimit(getattr(resource, name), (value, value))
    _drop_privileges()
    os.chdir(config["cwd"])
    code = os.fork()
    if code == 0:
        os.close(status_fd)
        python = config["python"]
        os.execve(python, [python, "-I", "-c", config["code"]], config["env"])
    os.close(0)
    while True:
        pid, status = os.wait()
        if pid == code:
            os.write(status_fd, str(status).encode())
            os._exit(0)


def main() -> None:
    config = json.loads(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # passing a signal on must not dump core
    _enter_namespaces(config["network"])
    status_r, status_w = os.pipe()
    init = os.fork()
    if init == 0:
        os.close(status_r)
        try:
            _become_init(config, status_w)
        except BaseException as exc:  # whatever it was, the code must not run
            _fail(f"preparing the sandbox failed: {exc}")
    os.close(status_w)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)  # only SIGKILL from the parent ends the launcher
    _, status = os.waitpid(init, 0)
    reported = os.read(status_r, 64)
    code = os.waitstatus_to_exitcode(int(reported) if reported else status)
    if code < 0:  # pass the signal on, so the parent sees the same cause
        if -code not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        os._exit(128 - code)  # a signal whose default is not to terminate
    os._exit(code)


if __name__ == "__main__":
    main()
