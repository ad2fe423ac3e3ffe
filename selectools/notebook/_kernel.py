"""Every place the notebook layer reaches into IPython or ipykernel internals, in one module.

Kernels differ in ways the public APIs do not cover, so a few quirks are handled here
and nowhere else (the rest of :mod:`selectools.notebook` calls these functions):

* **shell lookup**: :func:`current_shell` finds the running IPython without importing
  it; :func:`kernel_shell` is that shell only when it runs in a kernel (it has comms).
* **the headless rule**: :func:`watched` tells a person's frontend (JupyterLab,
  Notebook 7, VS Code) from a runner nobody watches (nbclient, nbval, papermill), by
  the ``allow_stdin`` flag of the kernel's current request.
* **subshell routing**: :func:`route_to_subshell` has ipykernel ≥ 7 handle a widget's
  messages on a subshell thread, so a button works while the cell's thread blocks
  (it sets the comm's private ``_reply_subshell_for``; there is no public hook).
* **ui-poll**: :func:`ui_poll` is jupyter-ui-poll's ``ui_events`` on kernels without
  subshells (6.x), where the waiting thread must pump the kernel's events itself.
"""

from __future__ import annotations

import sys
from concurrent.futures import Future
from typing import Any

__all__ = ["current_shell", "kernel_shell", "route_to_subshell", "ui_poll", "watched"]


def current_shell() -> Any:
    """The running IPython shell, if any (IPython is not imported just to find out)."""
    ipython = sys.modules.get("IPython")
    return ipython.get_ipython() if ipython is not None else None


def kernel_shell() -> Any:
    """The IPython shell if it runs in a kernel (it has comms), else None."""
    shell = current_shell()
    return shell if getattr(shell, "kernel", None) is not None else None


def watched(shell: Any) -> bool:
    """False when the kernel's current request comes from a runner nobody watches.

    nbclient (``jupyter nbconvert --execute``, papermill) and nbval execute cells
    with ``allow_stdin`` false; JupyterLab, Notebook 7, VS Code and interactive
    ``jupyter_client`` consoles send true. Without a kernel (a terminal, tests)
    the answer is True.
    """
    kernel = getattr(shell, "kernel", None)
    get_parent = getattr(kernel, "get_parent", None)
    if get_parent is None:
        return True
    content = (get_parent() or {}).get("content") or {}
    return bool(content.get("allow_stdin", True))


#: the one subshell this kernel's widgets use (created on first need, kept for the process)
_SUBSHELL: list[str] = []


def route_to_subshell(widget: Any) -> bool:
    """Have the kernel handle ``widget``'s messages on a subshell thread (ipykernel ≥ 7).

    The main thread may be blocked in the cell's synchronous code; a subshell has
    its own thread and loop. Returns False outside a kernel or on kernels without
    subshells.
    """
    shell = kernel_shell()
    if shell is None:
        return False
    kernel = shell.kernel
    channel = getattr(kernel, "shell_channel_thread", None)
    comm = getattr(widget, "comm", None)
    if channel is None or comm is None or not hasattr(comm, "_reply_subshell_for"):
        return False
    if not getattr(kernel, "_supports_kernel_subshells", False):
        return False
    if not _SUBSHELL:
        made: Future[str] = Future()

        def create() -> None:
            try:
                made.set_result(channel.manager._create_subshell())
            except BaseException as exc:  # reported through the future
                made.set_exception(exc)

        channel.io_loop.add_callback(create)
        try:
            _SUBSHELL.append(made.result(timeout=10))
        except Exception:
            return False
    subshell = _SUBSHELL[0]
    comm._reply_subshell_for = lambda _data, _default: subshell
    return True


def ui_poll() -> Any:
    """jupyter-ui-poll's ``ui_events`` on kernels that need it (no subshells), else None."""
    shell = kernel_shell()
    if shell is None or getattr(shell.kernel, "_supports_kernel_subshells", False):
        return None
    try:
        from jupyter_ui_poll import ui_events
    except ImportError:
        return None
    return ui_events
