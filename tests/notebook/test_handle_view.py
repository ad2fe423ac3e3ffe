"""Decided approval cards end as static records, the card box of runs outliving their cell, and
a shown ``agent.start()`` handle: its recording, its live widget and Stop over a real kernel."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from selectools import Agent, tool
from selectools.approval import ApprovalRequest
from selectools.notebook.approval_card import ApprovalCard, CardBox
from selectools.testing import ScriptedProvider, reply

from .conftest import kernel_client

ROOT = Path(__file__).resolve().parents[2]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


class Shown:
    """Stands in for IPython's DisplayHandle: records what each update showed."""

    def __init__(self) -> None:
        self.updates: list[Any] = []

    def update(self, obj: Any, *, raw: bool = False, **_: Any) -> None:
        self.updates.append(obj if raw else "live")


def _request(path: str) -> ApprovalRequest:
    @tool
    def remove(path: str) -> str:
        """Delete a file."""
        return path

    return ApprovalRequest("remove", {"path": path}, "needs review", tool=remove, run_id="r1")


def test_start_records_the_events_and_keeps_the_stream_for_the_text_in_progress():
    words = [f"w{i} " for i in range(50)]
    agent = Agent(provider=ScriptedProvider([reply("".join(words), chunks=words)]))
    handle = agent.start("talk")
    result = handle.result(timeout=30)
    recording = handle.recording
    assert recording is not None and recording.stream is not None
    assert recording.stream.model_calls == 1 and result.content == "".join(words)
    names = [event.name for event in recording.recorded]
    assert names[0] == "on_run_start" and names[-1] == "on_run_end"
    assert "on_stream_chunk" not in names  # no chunk is kept
    assert recording.recorded[-1].data["result"] is result
    assert (handle.model, handle.provider) == (agent.model, "scripted")


def test_a_decided_card_is_replaced_by_its_static_record():
    card = ApprovalCard(_request("/a"))
    data, _ = card._repr_mimebundle_()
    assert WIDGET_VIEW in data and 'data-status="pending"' in data["text/html"]
    card.handle = Shown()
    assert card.answer(True)
    [shown] = card.handle.updates
    assert set(shown) == {"text/html", "text/plain"}  # no widget view left
    assert 'data-status="approved"' in shown["text/html"]
    assert shown["text/plain"].startswith("ApprovalCard(approved remove(path='/a') — by person")


def test_card_box_is_live_while_a_card_is_pending_and_static_records_otherwise():
    box = CardBox()
    box.handle = Shown()
    first = ApprovalCard(_request("/a"))
    box.add(first)
    assert box.handle.updates == []  # shown live already
    first.answer(True)
    assert [u["text/plain"].count("approved") for u in box.handle.updates] == [1]
    ruled = _request("/b")
    ruled.approve(by="rule: approval=allow")
    box.add(ApprovalCard(ruled))  # decided before it was shown: the records grow
    assert "by rule: approval=allow" in box.handle.updates[-1]["text/plain"]
    pending = ApprovalCard(_request("/c"))
    box.add(pending)
    assert box.handle.updates[-1] == "live"
    box.settle()  # a pending card keeps the box live
    assert box.handle.updates[-1] == "live"
    pending.answer(False, reason="no")
    last = box.handle.updates[-1]
    assert last["text/html"].count("selectools-approval-static") == 3
    count = len(box.handle.updates)
    box.settle()
    assert len(box.handle.updates) == count  # nothing changed, nothing sent
    data, _ = box._repr_mimebundle_()
    assert WIDGET_VIEW in data and data["text/html"] == last["text/html"]
    assert repr(box) == "CardBox(3 cards)"


def test_an_empty_card_box_settles_to_nothing():
    box = CardBox()
    box.handle = Shown()
    box.settle()
    assert box.handle.updates == [{"text/html": "", "text/plain": ""}]


# -- a real kernel: the shown handle is a live widget; Stop (as the browser sends it) cancels
@pytest.mark.slow
def test_a_shown_handle_is_a_live_widget_whose_stop_cancels_the_run():
    with kernel_client() as client:
        setup = (
            "%load_ext selectools\n"
            "from selectools import Agent\n"
            "from selectools.testing import ScriptedProvider, reply\n"
            "words = [f'w{i} ' for i in range(3000)]\n"
            "agent = Agent(provider=ScriptedProvider([reply(''.join(words), chunks=words, "
            "chunk_latency=0.01)]))\n"
        )
        client.execute_interactive(setup, timeout=60)
        msg_id = client.execute("handle = agent.start('talk')\nhandle")
        comm_id = display_id = None
        shown: dict[str, Any] = {}
        final: dict[str, Any] = {}
        stopped = False
        deadline = time.monotonic() + 60
        while not final and time.monotonic() < deadline:
            msg = client.get_iopub_msg(timeout=30)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            state = content.get("data", {}).get("state", {}) if kind == "comm_open" else {}
            if kind == "comm_open" and state.get("status") == "running" and "html" in state:
                comm_id = content["comm_id"]
            elif kind == "display_data" and WIDGET_VIEW in content["data"] and not shown:
                shown = content
                display_id = content["transient"]["display_id"]
            elif kind == "comm_msg" and comm_id == content["comm_id"] and display_id:
                html = content["data"].get("state", {}).get("html", "")
                if "w20 " in html and not stopped:
                    stopped = True  # the stream shows: press Stop
                    data = {"method": "custom", "content": {"action": "stop"}}
                    client.session.send(
                        client.shell_channel.socket,
                        client.session.msg("comm_msg", {"comm_id": comm_id, "data": data}),
                    )
            elif kind == "update_display_data" and content["transient"]["display_id"] == display_id:
                final = content
        assert comm_id is not None and shown, "the handle was not shown as a widget"
        assert shown["data"]["text/plain"].startswith("LiveRunWidget(")
        assert stopped and final, "the view never ended"
        assert WIDGET_VIEW not in final["data"]  # the final render needs no kernel
        assert "cancelled" in final["data"]["text/html"] and "w20 " in final["data"]["text/html"]
        assert final["metadata"]["selectools"]["stop_reason"] == "cancelled"
        printed: list[str] = []
        reply_ = client.execute_interactive(
            "print(handle.status, [s.type.value for s in handle.result().trace.steps])",
            timeout=30,
            output_hook=lambda m: printed.append(m["content"].get("text", "")),
        )
        assert reply_["content"]["status"] == "ok"
        assert "".join(printed).strip() == "cancelled ['llm_call', 'cancelled']"
