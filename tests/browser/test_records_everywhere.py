"""What a run leaves in the notebook reads the same in JupyterLab and Notebook 7, light and dark.

One small notebook per front end and theme: a call denied by the notebook's rule
(``approval=deny``, the transcript's denied row), a blocking approval card answered
with edited arguments, one answered "Always allow (run)", and ``%selectools ledger``.
Run All, answer the cards, check the visible text; save, reopen with **No Kernel**
and check the same text again. Notebook 7 runs approvals only in the blocking mode
(the documented limit), which is the mode used here in all four.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ._lab import (
    CALLS,
    DECIDED,
    PENDING,
    REMOVE_TOOL,
    calls,
    open_notebook,
    output_texts,
    reopen_without_kernel,
    run_all,
    wait,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CELLS = [
    "%load_ext selectools",
    REMOVE_TOOL,
    CALLS + '\np_deny, p_edit, p_always = calls("/b"), calls("/c"), calls("/d1", "/d2")',
    "%selectools approval=deny",
    "%%agent --provider p_deny\nremove /b",
    "%selectools approval=ask",
    "%%agent --provider p_edit\nremove /c",
    "%%agent --provider p_always\nremove /d1 and /d2",
    "%selectools ledger",
]

#: what the page shows, live and reopened without a kernel
SHOWN = [
    r"remove\(\{\"path\": \"/b\"\}\) ⊘ denied by rule: approval=deny",
    r"0 tool calls · 1 denied",
    r"denied remove\(path='/b'\) — by rule: approval=deny at ",
    r"approved remove\(path='/c'\) → remove\(path='/c-edited'\) \(edited\) — by person at ",
    r"approved remove\(path='/d1'\) — by person at .*; remove is now always allowed in this run",
    r"approved remove\(path='/d2'\) — by rule: always allow \(run\)",
    r"Run ledger\s*·\s*3 runs",
]

FRONTENDS = {  # fixture: (URL of a notebook, the notebooks' URL prefix)
    "lab": "lab/tree/{}?reset",
    "lab_dark": "lab/tree/{}?reset",
    "notebook7": "notebooks/{}",
    "notebook7_dark": "notebooks/{}",
}


def _save(page: Any, path: Path) -> None:
    """Ctrl+S (the same key in both front ends); wait until the file holds the records."""
    before = path.stat().st_mtime_ns
    page.locator(".jp-Notebook .jp-Cell .jp-InputPrompt").first.click()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")
    wait(
        lambda: path.stat().st_mtime_ns != before and "always allowed" in path.read_text(),
        "the save",
    )


def _assert_shown(page: Any, frontend: str) -> None:
    light = "false" if frontend.endswith("_dark") else "true"
    assert page.locator("body").get_attribute("data-jp-theme-light") == light, frontend
    text = output_texts(page)
    for line in SHOWN:
        assert re.search(line, text), (line, text)
    assert "Error" not in text and "Loading widget" not in text, text


@pytest.mark.parametrize("frontend", list(FRONTENDS))
def test_denied_row_records_and_ledger_live_and_reopened(frontend, request, browser, shots):
    server = request.getfixturevalue(frontend)
    name = f"records-{frontend}.ipynb"
    (server.work / "calls.txt").unlink(missing_ok=True)
    server.write_notebook(name, CELLS)
    page = open_notebook(server, browser, FRONTENDS[frontend].format(name))
    run_all(page)

    card = page.locator(PENDING).filter(has_text="path='/c'").first
    card.wait_for(timeout=60_000)
    card.locator(".sa-args").fill('{"path": "/c-edited"}')
    card.locator(".sa-approve").click()
    wait(lambda: calls(server.work) == ["/c-edited"], "the edited call", page=page)
    card = page.locator(PENDING).filter(has_text="path='/d1'").first
    card.wait_for(timeout=60_000)
    card.locator(".sa-allow-run").click()
    wait(lambda: calls(server.work)[1:] == ["/d1", "/d2"], "both allowed calls", page=page)
    server.wait_for_idle_kernel()
    wait(lambda: page.locator(DECIDED).count() == 4, "four decisions' records", page=page)
    wait(lambda: "3 runs" in output_texts(page), "the ledger", page=page)
    assert calls(server.work) == ["/c-edited", "/d1", "/d2"]  # the denied /b never ran
    _assert_shown(page, frontend)
    page.screenshot(path=str(shots / f"records-{frontend}.png"), full_page=True)
    _save(page, server.work / name)
    page.close()

    page = reopen_without_kernel(server, browser, name, FRONTENDS[frontend].format(name))
    _assert_shown(page, frontend)
    page.screenshot(path=str(shots / f"records-{frontend}-reopened.png"), full_page=True)
    page.close()
