"""The approval card in a real JupyterLab 4 (and Notebook 7) with headless Chromium: blocking ``%%agent``.

Every tool call of ``remove`` needs approval; the tool appends its argument to
``calls.txt`` in the server's folder, which is what the assertions read (the
Python side), never the page alone.
"""

from __future__ import annotations

import re

import pytest

from ._lab import (
    APPROVER_AGENT,
    CALLS,
    DECIDED,
    PENDING,
    REMOVE_TOOL,
    calls,
    open_notebook,
    output_texts,
    reopen_without_kernel,
    run_all,
    save,
    wait,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SETUP = [
    "%load_ext selectools",
    REMOVE_TOOL,
    CALLS + "\n"
    'p_approve, p_deny, p_edit, p_always = calls("/a"), calls("/b"), calls("/c"), calls("/d1", "/d2")',
]
CELLS = [
    *SETUP,
    "%%agent --provider p_approve\nremove /a",
    "%%agent --provider p_deny\nremove /b",
    "%%agent --provider p_edit\nremove /c",
    "%%agent --provider p_always\nremove /d1 and /d2",
]


def test_blocking_cells_approve_deny_edit_and_always_allow(lab, browser, shots):
    (lab.work / "calls.txt").unlink(missing_ok=True)
    lab.write_notebook("approve.ipynb", CELLS)
    page = open_notebook(lab, browser, "lab/tree/approve.ipynb?reset")
    run_all(page)

    # 1. approve: the tool runs
    card = page.locator(PENDING).filter(has_text="path='/a'").first
    card.wait_for(timeout=60_000)
    assert "remove" in card.inner_text() and '"/a"' in card.locator(".sa-args").input_value()
    page.screenshot(path=str(shots / "approval-card-jupyterlab.png"))
    card.locator(".sa-approve").click()
    wait(lambda: calls(lab.work) == ["/a"], "the approved call to run")

    # 2. deny with a reason (Esc on the card): the tool does not run
    card = page.locator(PENDING).filter(has_text="path='/b'").first
    card.wait_for(timeout=60_000)
    assert '"/b"' in card.locator(".sa-args").input_value()
    card.locator(".sa-reason").fill("not that one")
    card.locator(".sa-deny").click()
    denied = page.locator(f'{DECIDED}[data-status="denied"]')
    wait(lambda: denied.count() == 1, "the denied record")
    record = denied.inner_text()
    assert (
        record.startswith("denied remove(path='/b') — by person at ") and "not that one" in record
    )
    # the transcript shows the refused call as a row of its own, counted apart from calls run
    deny_cell = page.locator(".jp-Notebook .jp-Cell").filter(has_text="--provider p_deny")
    wait(lambda: "1 denied" in deny_cell.inner_text(), "the denied call's row", page=page)
    shown = deny_cell.locator(".jp-OutputArea").inner_text()
    assert "denied by person: not that one" in shown and "0 tool calls · 1 denied" in shown, shown

    # 3. edit: invalid arguments are refused in the card, valid edits reach the tool
    card = page.locator(PENDING).filter(has_text="path='/c'").first
    card.wait_for(timeout=60_000)
    args = card.locator(".sa-args")
    args.fill('{"path": 5}')
    card.locator(".sa-approve").click()
    error = card.locator(".sa-error")
    wait(lambda: "'path' must be string" in error.inner_text(), "the schema error in the card")
    args.fill('{"path": "/c-edited"')
    card.locator(".sa-approve").click()
    wait(lambda: "invalid JSON" in error.inner_text(), "the JSON error in the card")
    args.fill('{"path": "/c-edited"}')
    card.focus()
    page.keyboard.press("Enter")  # Enter approves, with the edited arguments
    wait(lambda: calls(lab.work) == ["/a", "/c-edited"], "the edited call to run")
    # the record is the audit trail: the arguments that ran, next to the model's
    edited = page.locator(DECIDED).filter(has_text="path='/c'")
    wait(lambda: edited.count() == 1, "the edited call's record")
    assert edited.inner_text().startswith(
        "approved remove(path='/c') → remove(path='/c-edited') (edited) — by person at "
    ), edited.inner_text()

    # 4. always allow (this run): the second call of the run needs no card
    card = page.locator(PENDING).filter(has_text="path='/d1'").first
    card.wait_for(timeout=60_000)
    assert '"/d1"' in card.locator(".sa-args").input_value()
    card.locator(".sa-allow-run").click()
    wait(lambda: calls(lab.work) == ["/a", "/c-edited", "/d1", "/d2"], "both calls to run")
    lab.wait_for_idle_kernel()
    wait(lambda: page.locator(PENDING).count() == 0, "no card left pending")
    decided = page.locator(DECIDED)  # each decided card's output became its static record
    wait(lambda: decided.count() == 5, "five decided cards")
    records = decided.all_inner_texts()
    assert any("by rule: always allow (run)" in r and "/d2" in r for r in records), records
    # the card answered with "Always allow (run)" says what it allowed
    assert any(
        r.startswith("approved remove(path='/d1') — by person at ")
        and r.endswith("; remove is now always allowed in this run")
        for r in records
    ), records
    page.screenshot(path=str(shots / "decided-cards-jupyterlab.png"), full_page=True)

    # the saved notebook keeps each decided card's static HTML and the cells' metadata
    saved = save(page, lab.work / "approve.ipynb", lambda text: "by person" in text)
    outputs = [o for cell in saved.cells for o in cell.get("outputs", [])]
    cards = [
        o["data"]
        for o in outputs
        if "selectools-approval-static" in o.get("data", {}).get("text/html", "")
    ]
    assert len(cards) == 5 and sum('data-status="approved"' in c["text/html"] for c in cards) == 4
    # a decided card is its record alone: no widget view a kernel-less viewer cannot load
    assert not any("application/vnd.jupyter.widget-view+json" in c for c in cards)
    approvals = [  # the final render of each %%agent cell lists its decisions
        next(o for o in c.outputs if "selectools" in o.get("metadata", {}))["metadata"]
        for c in saved.cells
        if c.source.startswith("%%agent")
    ]
    approvals = [m["selectools"]["approvals"] for m in approvals]
    assert [[d["decision"] for d in a] for a in approvals] == [
        ["allow"],
        ["deny"],
        ["allow"],
        ["allow", "allow"],
    ]
    page.close()

    # reopened in JupyterLab with No Kernel: the records are what it shows
    page = reopen_without_kernel(lab, browser, "approve.ipynb")
    text = output_texts(page)
    assert re.search(r"denied remove\(path='/b'\) — by person at .* UTC: not that one", text)
    for line in (
        "remove(path='/a') — by person",
        "by rule: always allow (run)",
        "approved remove(path='/c') → remove(path='/c-edited') (edited) — by person",
        "; remove is now always allowed in this run",
        "denied by person: not that one",
        "0 tool calls · 1 denied",
    ):
        assert line in text, (line, text)
    assert "Loading widget" not in text and "Error displaying widget" not in text, text
    page.locator(DECIDED).first.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "blocking-reopened-no-kernel.png"))
    page.close()


def test_blocking_approval_in_notebook7(notebook7, browser, shots):
    notebook7.write_notebook("nb7.ipynb", [*SETUP, "%%agent --provider p_approve\nremove /a"])
    page = open_notebook(notebook7, browser, "notebooks/nb7.ipynb")
    run_all(page)
    card = page.locator(PENDING).first
    card.wait_for(timeout=60_000)
    page.screenshot(path=str(shots / "approval-card-notebook7.png"))
    card.locator(".sa-approve").click()
    wait(lambda: calls(notebook7.work) == ["/a"], "the approved call to run in Notebook 7")
    page.close()


ASYNC_AND_BACKGROUND = [
    *SETUP,
    APPROVER_AGENT + 'result_e = await agent(calls("/e")).arun("remove /e")\n'
    'result_f = await agent(calls("/f")).arun("remove /f")',
    "p_g, p_h = calls('/g'), calls('/h')",
    "%%agent --background -o bg_g --provider p_g\nremove /g",
    "%%agent --background -o bg_h --provider p_h\nremove /h",
    'handle = agent(calls("/i")).start("remove /i")\nhandle',
]


def test_await_and_background_runs(lab, browser, shots):
    (lab.work / "calls.txt").unlink(missing_ok=True)
    lab.write_notebook("modes.ipynb", ASYNC_AND_BACKGROUND)
    page = open_notebook(lab, browser, "lab/tree/modes.ipynb?reset")
    run_all(page)

    def answer(path: str, approve: bool) -> None:
        card = page.locator(PENDING).filter(has_text=path).first
        try:
            card.wait_for(timeout=60_000)
        except Exception:
            texts = page.locator(".selectools-approval, .jp-OutputArea-output").all_inner_texts()
            raise AssertionError(f"no pending card for {path}: {texts}") from None
        card.locator(".sa-approve" if approve else ".sa-deny").click()

    # await: the cell awaits; approve /e runs it, deny /f does not
    answer("/e", True)
    try:
        wait(lambda: calls(lab.work) == ["/e"], "the awaited approved call")
    except AssertionError:
        raise AssertionError(page.locator(".selectools-approval").all_inner_texts()) from None
    answer("/f", False)
    # background: the cells end at once; their cards are answered afterwards
    lab.wait_for_idle_kernel()
    page.screenshot(path=str(shots / "background-cards-jupyterlab.png"), full_page=True)
    answer("/h", False)
    answer("/g", True)
    answer("/i", True)
    wait(lambda: sorted(calls(lab.work)) == ["/e", "/g", "/i"], "the background calls")
    page.close()


STOP = [
    "%load_ext selectools",
    "%selectools display=widget",
    "from selectools.testing import ScriptedProvider, reply\n"
    'words = [f"w{i} " for i in range(6000)]\n'
    'slow = ScriptedProvider([reply("".join(words), chunks=words, chunk_latency=0.01)])',
    "%%agent --provider slow -o stopped\nTalk for a while.",
    'open("stop.txt", "w").write(f"{stopped.stop_reason} {len(stopped.trace.steps)}")',
]


def test_stop_button_cancels_a_streaming_run(lab, browser, shots):
    lab.write_notebook("stop.ipynb", STOP)
    page = open_notebook(lab, browser, "lab/tree/stop.ipynb?reset")
    run_all(page)
    widget = page.locator('.selectools-live-widget[data-status="running"]')
    widget.wait_for(timeout=60_000)
    wait(lambda: "w20 " in widget.inner_text(), "the stream to show")
    page.screenshot(path=str(shots / "live-widget-jupyterlab.png"))
    widget.locator(".slw-stop").click()
    wait(lambda: (lab.work / "stop.txt").exists(), "the run to end", timeout=60)
    reason, steps = (lab.work / "stop.txt").read_text().split()
    assert reason == "cancelled" and int(steps) >= 2  # the cut model call and the stop
    # the widget's output became the final render: cancelled, the stream cut short
    wait(lambda: page.locator(".selectools-live-widget").count() == 0, "the final render")
    text = page.inner_text(".jp-Notebook")
    assert "cancelled" in text and "w20 " in text and "w5999" not in text
    page.screenshot(path=str(shots / "live-widget-stopped-jupyterlab.png"))
    page.close()


STOP_TOOL = [
    "%load_ext selectools",
    "%selectools display=widget",
    '%%tool\ndef hold(key: str) -> str:\n    """Waits until the test releases it."""\n'
    "    import os, time\n"
    '    open("tool_started.txt", "w").write(key)\n'
    '    while not os.path.exists("release.txt"):\n        time.sleep(0.05)\n'
    '    open("tool_done.txt", "w").write(key)\n'
    '    return "held " + key',
    "from selectools.testing import ScriptedProvider, reply, tool_call\n"
    'p_hold = ScriptedProvider([reply("", tool_call("hold", key="k")), reply("done")])',
    "%%agent --provider p_hold -o held\nHold.",
    "step = next(s for s in held.trace.steps if s.type.value == 'tool_execution')\n"
    'open("hold.txt", "w").write(f"{held.stop_reason} {step.status} {step.data.get(\'cancelled\')}")',
]


def test_stop_button_ends_a_run_while_a_tool_runs(lab, browser, shots):
    for name in ("tool_started.txt", "tool_done.txt", "release.txt", "hold.txt"):
        (lab.work / name).unlink(missing_ok=True)
    lab.write_notebook("stop_tool.ipynb", STOP_TOOL)
    page = open_notebook(lab, browser, "lab/tree/stop_tool.ipynb?reset")
    run_all(page)
    widget = page.locator('.selectools-live-widget[data-status="running"]')
    widget.wait_for(timeout=60_000)
    wait(lambda: (lab.work / "tool_started.txt").exists(), "the tool to start")
    widget.locator(".slw-stop").click()
    try:
        wait(lambda: (lab.work / "hold.txt").exists(), "the run to end", timeout=60)
        # the run ended while the tool was still blocked: it was not awaited
        assert not (lab.work / "tool_done.txt").exists()
        assert (lab.work / "hold.txt").read_text().split() == ["cancelled", "error", "True"]
        wait(lambda: page.locator(".selectools-live-widget").count() == 0, "the final render")
        assert "cancelled" in page.inner_text(".jp-Notebook")
        page.screenshot(path=str(shots / "live-widget-stopped-tool-jupyterlab.png"))
    finally:
        (lab.work / "release.txt").write_text("go")  # let the abandoned worker finish
    wait(lambda: (lab.work / "tool_done.txt").exists(), "the abandoned tool to finish")
    page.close()
