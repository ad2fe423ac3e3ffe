"""Helpers the approval tests share: waiting, running all cells, saving, reopening with no kernel."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import nbformat
from nbformat.sign import NotebookNotary

PENDING = '.selectools-approval[data-status="pending"]'
#: a decided card's output: its static record (the widget view is gone)
DECIDED = ".selectools-approval-static"

#: the %%tool every approval test uses: each call appends its argument to calls.txt
REMOVE_TOOL = (
    '%%tool --requires-approval\ndef remove(path: str) -> str:\n    """Delete a file (pretend)."""\n'
    '    with open("calls.txt", "a") as f:\n        f.write(path + "\\n")\n'
    '    return "removed " + path'
)
CALLS = (
    "from selectools.testing import ScriptedProvider, reply, tool_call\n"
    "def calls(*paths):\n"
    '    return ScriptedProvider([*(reply("", tool_call("remove", path=p)) for p in paths),'
    ' reply("done")])'
)

#: a cell defining ``agent(provider)``: an agent with the ``remove`` tool and the notebook's approver
APPROVER_AGENT = (
    "from selectools import Agent, AgentConfig\n"
    "from selectools.agent.config_groups import ToolConfig\n"
    "from selectools.notebook.approvals import notebook_approver\n"
    "def agent(provider):\n"
    "    config = AgentConfig(tool=ToolConfig(approval_handler=notebook_approver()))\n"
    "    return Agent(tools=[remove], provider=provider, config=config)\n"
)


def calls(work: Path) -> list[str]:
    """The paths the tool was called with, in order (what the kernel's side did)."""
    path = work / "calls.txt"
    return path.read_text().split() if path.exists() else []


def wait(predicate: Any, what: str, timeout: float = 60, *, page: Any = None) -> None:
    """Wait for ``predicate``; on a timeout say what the page showed (when given)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    shown = f"; the outputs showed:\n{output_texts(page)}" if page is not None else ""
    raise AssertionError(f"timed out waiting for {what}{shown}")


def run_all(page: Any) -> None:
    """Run > Run All Cells, then wait until the first cell has been sent to the kernel."""
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_text("Run All Cells", exact=True).click()
    prompt = page.locator(".jp-Notebook .jp-Cell .jp-InputPrompt").first
    wait(lambda: prompt.inner_text().strip() not in ("", "[ ]:"), "the cells to start running")


def open_notebook(server: Any, browser: Any, path: str) -> Any:
    """Open ``path`` (a lab/tree or notebooks URL) and wait until its own kernel is idle."""
    name = path.partition("?")[0].rsplit("/", 1)[-1]
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    page.goto(server.url(path))
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)

    def ready() -> bool:
        sessions = server.api("api/sessions")
        return any(
            s["path"].rsplit("/", 1)[-1] == name
            and (s.get("kernel") or {}).get("execution_state") == "idle"
            for s in sessions
        )

    wait(ready, f"the kernel of {name}")
    return page


def save(page: Any, path: Path, done: Any) -> Any:
    """Save through JupyterLab's File menu; returns the saved notebook once ``done(text)``."""
    before = path.stat().st_mtime_ns
    page.get_by_role("menuitem", name="File", exact=True).click()
    page.get_by_role("menuitem", name=re.compile("^Save Notebook")).first.click()
    wait(lambda: path.stat().st_mtime_ns != before and done(path.read_text()), "the save")
    return nbformat.read(path, as_version=4)


def reopen_without_kernel(server: Any, browser: Any, name: str, path: str = "") -> Any:
    """Shut the kernels down and open the saved ``name`` with **No Kernel**.

    ``path`` is its URL (default JupyterLab's ``lab/tree/NAME``; Notebook 7's is
    ``notebooks/NAME``).

    The notebook's kernelspec is swapped for one the server lacks (with no
    language to fall back on), so JupyterLab asks which kernel to start; the test
    picks "No Kernel". The notebook was signed when JupyterLab saved it, so it
    is trusted (widget views would be preferred over the static HTML next to
    them); it is re-signed with the server's key after the swap so it stays so.
    Returns the page, after checking that no kernel runs.
    """
    server.stop_kernels()
    saved = server.work / name
    notebook = nbformat.read(saved, as_version=4)
    notary = NotebookNotary(data_dir=str(server.work.parent / "data"))
    assert notary.check_signature(notebook), "JupyterLab saved the notebook as trusted"
    notebook.metadata["kernelspec"] = {"name": "selectools-absent", "display_name": "absent"}
    notebook.metadata.pop("language_info", None)
    notary.sign(notebook)
    nbformat.write(notebook, saved)
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    page.goto(server.url(path or f"lab/tree/{name}?reset"))
    dialog = page.locator(".jp-Dialog").filter(has_text="Select Kernel")
    dialog.wait_for(timeout=60_000)
    dialog.locator("select").select_option(label="No Kernel")
    dialog.get_by_role("button", name="Select").click()
    dialog.wait_for(state="detached", timeout=30_000)
    page.wait_for_selector(".jp-Notebook .jp-Cell .jp-OutputArea-output", timeout=60_000)
    assert all(s.get("kernel") is None for s in server.api("api/sessions")), "a kernel started"
    return page


def output_texts(page: Any) -> str:
    return "\n".join(page.locator(".jp-Notebook .jp-OutputArea-output").all_inner_texts())


def read_json(path: Path) -> Any:
    return json.loads(path.read_text())
