"""Approval cards and the Stop button in the two non-blocking modes, in a real JupyterLab 4.

``await agent.arun(...)`` in a cell (mode 2) and background runs (mode 3:
``%%agent --background`` and ``agent.start(...)``), each in its own notebook and
kernel. For each mode: invalid edited arguments are refused in the card and a
valid edit reaches the tool, "always allow" (this run, this notebook) skips the
next card, Stop cancels a streaming run (``stop_reason`` "cancelled", its trace
intact), and the saved notebook reopened with **No Kernel** still shows every
decided card's record and the stopped runs' final render. The blocking mode
(and approve/deny in these two) is in ``test_approval_blocking.py``.

Assertions read the Python side: ``calls.txt`` (the tool's calls) and the JSON
files the notebooks write about their results.
"""

from __future__ import annotations

import re
from typing import Any

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
    read_json,
    reopen_without_kernel,
    run_all,
    save,
    wait,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AGENT = (
    "import json\n" + APPROVER_AGENT + "def slow():\n"
    '    words = [f"w{i} " for i in range(6000)]\n'
    '    return ScriptedProvider([reply("".join(words), chunks=words, chunk_latency=0.01)])\n'
    "def record(name, result):\n"
    "    steps = [s.type.value for s in result.trace.steps]\n"
    '    data = {"stop_reason": result.stop_reason, "steps": steps, "content": result.content}\n'
    '    open(name, "w").write(json.dumps(data))'
)
SETUP = ["%load_ext selectools", REMOVE_TOOL, CALLS, AGENT]


def _card(page: Any, text: str) -> Any:
    card = page.locator(PENDING).filter(has_text=text).first
    try:
        card.wait_for(timeout=60_000)
    except Exception:
        raise AssertionError(f"no pending card for {text}: {output_texts(page)}") from None
    return card


def _edit(page: Any, text: str, edited: str) -> None:
    """Invalid arguments are refused in the card (error inline); then ``edited`` is approved."""
    card = _card(page, text)
    args = card.locator(".sa-args")
    args.fill('{"path": 5}')
    card.locator(".sa-approve").click()
    error = card.locator(".sa-error")
    wait(lambda: "'path' must be string" in error.inner_text(), "the schema error in the card")
    args.fill('{"path": "' + edited)
    card.locator(".sa-approve").click()
    wait(lambda: "invalid JSON" in error.inner_text(), "the JSON error in the card")
    args.fill('{"path": "' + edited + '"}')
    card.locator(".sa-approve").click()


def _stop(page: Any, widget: Any, shot: Any) -> None:
    """Click Stop on a live widget once its stream shows."""
    widget.wait_for(timeout=60_000)
    wait(lambda: "w20 " in widget.inner_text(), "the stream to show")
    widget.evaluate("node => node.scrollIntoView({block: 'center'})")
    page.screenshot(path=str(shot))
    widget.locator(".slw-stop").click()


def _shoot(page: Any, cell: str, path: Any) -> None:
    """A screenshot with the cell containing ``cell`` at the top (the notebook scrolls inside)."""
    target = page.locator(".jp-Notebook .jp-Cell").filter(has_text=cell).first
    target.evaluate("node => node.scrollIntoView({block: 'start'})")
    page.screenshot(path=str(path))


def _stopped(result: dict[str, Any]) -> None:
    """A run cancelled mid-stream: its trace holds the cut model call and the stop."""
    assert result["stop_reason"] == "cancelled", result
    assert result["steps"] == ["llm_call", "cancelled"], result
    assert result["content"] == "Cancelled: stopped from the notebook.", result


AWAIT = [
    *SETUP,
    'r_edit = await agent(calls("/e")).arun("remove /e")',
    'r_run = await agent(calls("/r1", "/r2")).arun("remove /r1 and /r2")',
    'r_nb1 = await agent(calls("/n1")).arun("remove /n1")',
    'r_nb2 = await agent(calls("/n2")).arun("remove /n2")',
    # Stop while the cell awaits: the shown handle is the live widget with a Stop button
    'handle = agent(slow()).start("Talk for a while.")\n'
    "display(handle)\n"
    "stopped = await handle\n"
    'record("stop_await.json", stopped)',
]


def test_await_mode_edit_always_allow_stop_and_reopen(lab, browser, shots):
    for name in ("calls.txt", "stop_await.json"):
        (lab.work / name).unlink(missing_ok=True)
    lab.write_notebook("await.ipynb", AWAIT)
    page = open_notebook(lab, browser, "lab/tree/await.ipynb?reset")
    run_all(page)

    # edit: the bad arguments never reach the tool, the edited ones do
    _edit(page, "path='/e'", "/e-edited")
    wait(lambda: calls(lab.work) == ["/e-edited"], "the edited call", page=page)
    # always allow for this run: the run's second call has no card
    card = _card(page, "path='/r1'")
    page.screenshot(path=str(shots / "await-card-jupyterlab.png"))
    card.locator(".sa-allow-run").click()
    wait(lambda: calls(lab.work)[1:] == ["/r1", "/r2"], "both calls of the run", page=page)
    # always allow in this notebook: the next run's call has no card either
    _card(page, "path='/n1'").locator(".sa-allow-notebook").click()
    wait(lambda: calls(lab.work)[3:] == ["/n1", "/n2"], "the notebook-wide allowed calls")
    wait(lambda: page.locator(PENDING).count() == 0, "no card left pending")

    # Stop cancels the streaming run the cell awaits
    live = page.locator('.selectools-live-widget[data-status="running"]')
    _stop(page, live, shots / "await-live-widget-jupyterlab.png")
    wait(lambda: (lab.work / "stop_await.json").exists(), "the awaited run to end")
    _stopped(read_json(lab.work / "stop_await.json"))
    lab.wait_for_idle_kernel()
    wait(lambda: page.locator(".selectools-live-widget").count() == 0, "the final render")
    final = page.locator(".jp-Notebook .jp-Cell").filter(has_text="stopped = await handle")
    shown = final.locator(".jp-OutputArea").inner_text()
    assert "cancelled" in shown and "w20 " in shown and "w5999" not in shown, shown
    records = page.locator(DECIDED).all_inner_texts()
    assert len(records) == 5, records
    _shoot(page, "r_edit = await", shots / "await-decided-jupyterlab.png")
    save(page, lab.work / "await.ipynb", lambda text: "always allow (notebook)" in text)
    page.close()

    page = reopen_without_kernel(lab, browser, "await.ipynb")
    text = output_texts(page)
    for line in (
        r"approved remove\(path='/e'\) → remove\(path='/e-edited'\) \(edited\) — by person",
        r"approved remove\(path='/r1'\) — by person at .*; remove is now always allowed in this run",
        r"approved remove\(path='/r2'\) — by rule: always allow \(run\)",
        r"approved remove\(path='/n1'\) — by person at .*; remove is now always allowed in this "
        r"notebook",
        r"approved remove\(path='/n2'\) — by rule: always allow \(notebook\)",
        r"cancelled",
    ):
        assert re.search(line, text), (line, text)
    assert "Loading widget" not in text and "Error displaying widget" not in text, text
    _shoot(page, "r_run = await", shots / "await-reopened-no-kernel.png")
    page.close()


BACKGROUND = [
    *SETUP,
    "%selectools display=widget",
    'p_edit, p_run, p_slow = calls("/c"), calls("/d1", "/d2"), slow()',
    "%%agent --background -o bg_edit --provider p_edit\nremove /c",
    "%%agent --background -o bg_run --provider p_run\nremove /d1 and /d2",
    'h_nb1 = agent(calls("/n1")).start("remove /n1")\nh_nb1',
    'await h_nb1\nh_nb2 = agent(calls("/n2")).start("remove /n2")\nh_nb2',
    "%%agent --background -o bg_stop --provider p_slow\nTalk for a while.",
    'bg_stop.add_done_callback(lambda h: record("stop_bg.json", h.result()))',
    'h_stop = agent(slow()).start("Talk for a while.")\n'
    'h_stop.add_done_callback(lambda h: record("stop_start.json", h.result()))\n'
    "h_stop",
]


def test_background_mode_edit_always_allow_stop_and_reopen(lab, browser, shots):
    for name in ("calls.txt", "stop_bg.json", "stop_start.json"):
        (lab.work / name).unlink(missing_ok=True)
    lab.write_notebook("background.ipynb", BACKGROUND)
    page = open_notebook(lab, browser, "lab/tree/background.ipynb?reset")
    run_all(page)

    # %%agent --background: the cards are answered after their cells ended
    _edit(page, "path='/c'", "/c-edited")
    wait(lambda: calls(lab.work) == ["/c-edited"], "the edited background call")
    card = _card(page, "path='/d1'")
    page.screenshot(path=str(shots / "background-card-jupyterlab.png"))
    card.locator(".sa-allow-run").click()
    wait(lambda: calls(lab.work)[1:] == ["/d1", "/d2"], "both calls of the background run")
    # agent.start(): always allow in this notebook; the next started run needs no card
    _card(page, "path='/n1'").locator(".sa-allow-notebook").click()
    wait(lambda: calls(lab.work)[3:] == ["/n1", "/n2"], "the notebook-wide allowed calls")
    wait(lambda: page.locator(PENDING).count() == 0, "no card left pending")

    # Stop: the live widget of %%agent --background, then the shown agent.start() handle
    live = page.locator('.selectools-live-widget[data-status="running"]')
    wait(lambda: live.count() == 2, "both streaming runs' widgets")
    cells = page.locator(".jp-Notebook .jp-Cell")
    magic_cell = cells.filter(has_text="-o bg_stop").locator(".selectools-live-widget")
    _stop(page, magic_cell, shots / "background-live-widgets-jupyterlab.png")
    wait(lambda: (lab.work / "stop_bg.json").exists(), "the background %%agent run to end")
    _stopped(read_json(lab.work / "stop_bg.json"))
    start_cell = cells.filter(has_text="h_stop = agent").locator(".selectools-live-widget")
    _stop(page, start_cell, shots / "start-handle-live-widget-jupyterlab.png")
    wait(lambda: (lab.work / "stop_start.json").exists(), "the agent.start() run to end")
    _stopped(read_json(lab.work / "stop_start.json"))
    wait(lambda: page.locator(".selectools-live-widget").count() == 0, "the final renders")
    for cell in ("-o bg_stop", "h_stop = agent"):
        shown = cells.filter(has_text=cell).locator(".jp-OutputArea").inner_text()
        assert "cancelled" in shown and "w20 " in shown and "w5999" not in shown, shown
    records = page.locator(DECIDED).all_inner_texts()
    assert len(records) == 5, records  # /c, /d1, /d2, /n1, /n2
    _shoot(page, "-o bg_edit", shots / "background-decided-jupyterlab.png")
    save(page, lab.work / "background.ipynb", lambda text: "always allow (notebook)" in text)
    page.close()

    page = reopen_without_kernel(lab, browser, "background.ipynb")
    text = output_texts(page)
    for line in (
        r"approved remove\(path='/c'\) → remove\(path='/c-edited'\) \(edited\) — by person",
        r"approved remove\(path='/d1'\) — by person at .*; remove is now always allowed in this run",
        r"approved remove\(path='/d2'\) — by rule: always allow \(run\)",
        r"approved remove\(path='/n1'\) — by person at .*; remove is now always allowed in this "
        r"notebook",
        r"approved remove\(path='/n2'\) — by rule: always allow \(notebook\)",
    ):
        assert re.search(line, text), (line, text)
    assert text.count("cancelled") >= 2, text
    assert "Loading widget" not in text and "Error displaying widget" not in text, text
    _shoot(page, "-o bg_edit", shots / "background-reopened-no-kernel.png")
    page.close()
