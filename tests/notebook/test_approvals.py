"""The notebook approval bridge without a browser: rules, cards answered from threads and
tasks, edited-argument validation, always-allow scopes, several pending calls, headless runs,
and a blocking run answered over a real kernel's comm channel (what the browser sends)."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from selectools import Agent, AgentConfig, tool
from selectools.agent.config_groups import ToolConfig
from selectools.approval import ApprovalRequest
from selectools.notebook.approval_card import ApprovalCard
from selectools.notebook.approvals import NotebookApprover
from selectools.notebook.live import output_metadata
from selectools.testing import ScriptedProvider, reply, tool_call

from .conftest import checkout_on_path, kernel_client

ROOT = Path(__file__).resolve().parents[2]


def _agent(approver: NotebookApprover, ran: list[str], *calls: dict[str, str]) -> Agent:
    @tool(requires_approval=True)
    def remove(path: str) -> str:
        """Delete a file."""
        ran.append(path)
        return f"removed {path}"

    script = [reply("", *(tool_call("remove", **c) for c in calls)), reply("done")]
    config = AgentConfig(tool=ToolConfig(approval_handler=approver), approval_timeout=5)
    return Agent(tools=[remove], provider=ScriptedProvider(script), config=config)


def _decisions(result):
    return output_metadata(result, "m", "p")["selectools"]["approvals"]


def test_headless_ask_denies_at_once_with_a_clear_message_and_records_it():
    ran: list[str] = []
    result = _agent(NotebookApprover(), ran, {"path": "/a"}).run("go")
    assert ran == []
    [decision] = _decisions(result)
    assert decision["decision"] == "deny" and decision["by"] == "headless"
    assert "%selectools approval=allow" in decision["reason"]
    tool_message = next(m for m in result.messages if m.role.value == "tool")
    assert "no notebook frontend is attached" in tool_message.content


def test_rules_and_per_tool_overrides():
    ran: list[str] = []
    approver = NotebookApprover("deny")
    _agent(approver, ran, {"path": "/a"}).run("go")
    assert ran == []
    approver.set_rule("allow", "remove")
    result = _agent(approver, ran, {"path": "/b"}).run("go")
    assert ran == ["/b"]
    assert _decisions(result)[0]["by"] == "rule: approval=allow"
    with pytest.raises(ValueError, match="ask, allow, deny"):
        approver.set_rule("maybe")


def _request(**args) -> ApprovalRequest:
    @tool
    def remove(path: str, count: int = 1) -> str:
        """Delete a file."""
        return path

    return ApprovalRequest("remove", args, "needs review", tool=remove, run_id="r1")


def test_card_answers_from_another_thread_and_collapses_to_a_record():
    request = _request(path="/a")
    card = ApprovalCard(request)
    assert repr(card).startswith("ApprovalCard(approval pending: remove(path='/a')")
    worker = threading.Thread(target=card._on_message, args=(card, {"action": "approve"}, []))
    worker.start()
    assert request.wait(5) is True
    worker.join()
    assert card.status == "approved"
    assert card.record.startswith("approved remove(path='/a') — by person at ")
    html = card._repr_mimebundle_()[0]["text/html"]
    assert 'data-status="approved"' in html and "by person" in html


def test_card_answer_from_a_task_with_a_deny_reason():
    request = _request(path="/a")
    card = ApprovalCard(request)

    async def main() -> bool:
        asyncio.get_running_loop().call_later(
            0.01, card._on_message, card, {"action": "deny", "reason": "not today"}, []
        )
        return await request

    assert asyncio.run(main()) is False
    assert request.decision.reason == "not today" and card.status == "denied"


def test_edited_arguments_are_validated_before_they_are_accepted():
    request = _request(path="/a")
    card = ApprovalCard(request)
    card._on_message(card, {"action": "approve", "args": {"path": 3}}, [])
    assert not request.decided and card.error.startswith("not accepted:")
    card._on_message(card, {"action": "approve", "args": {"path": "/b", "count": 2}}, [])
    assert request.decision.tool_args == {"path": "/b", "count": 2}
    assert card.error == ""
    # the record is the audit trail: it shows the arguments that ran, next to the model's
    assert card.record.startswith(
        "approved remove(path='/a') → remove(path='/b', count=2) (edited) — by person at "
    )


def test_always_allow_scopes():
    approver = NotebookApprover()
    first = _request(path="/a")
    card = ApprovalCard(first, approver)
    card.answer(True, scope="run")
    assert card.record.endswith("; remove is now always allowed in this run")
    same_run = _request(path="/b")
    assert approver._allowed_by(same_run) == "rule: always allow (run)"
    other_run = ApprovalRequest("remove", {"path": "/c"}, "x", run_id="r2")
    assert approver._allowed_by(other_run) is None
    card = ApprovalCard(other_run, approver)
    card.answer(True, scope="notebook")
    assert card.record.endswith("; remove is now always allowed in this notebook")
    assert "always allowed" not in ApprovalCard(_request(path="/d"), approver).record
    assert approver._allowed_by(ApprovalRequest("remove", {}, "x", run_id="r3")) == (
        "rule: always allow (notebook)"
    )


def test_always_allow_holds_before_the_run_can_reach_its_next_call(monkeypatch):
    """The run resumes the moment a call is approved: the rule must already be in place."""
    approver = NotebookApprover()
    first = _request(path="/a")
    seen_when_approved = []
    approve = first.approve

    def approve_then_look(*args, **kwargs):
        accepted = approve(*args, **kwargs)
        seen_when_approved.append(approver._allowed_by(_request(path="/b")))  # the next call
        return accepted

    monkeypatch.setattr(first, "approve", approve_then_look)
    assert ApprovalCard(first, approver).answer(True, scope="run")
    assert seen_when_approved == ["rule: always allow (run)"]
    # refused edited arguments leave no rule behind
    card = ApprovalCard(_request(path="/c"), approver)
    assert not card.answer(True, args={"path": 5}, scope="notebook")
    assert "not accepted" in card.error
    assert approver._allowed_by(ApprovalRequest("remove", {}, "x", run_id="r10")) is None


def test_several_pending_calls_each_get_a_card_and_their_own_answer(monkeypatch):
    approver = NotebookApprover()
    approver.frontend_seen = True
    shown: list[ApprovalCard] = []

    def show(request, *, pending):
        card = ApprovalCard(request, approver)
        shown.append(card)
        if pending:  # a person answers each card in turn: approve /a, deny /b
            path = request.tool_args["path"]
            threading.Timer(0.05, card.answer, args=(path == "/a",)).start()
        return card

    monkeypatch.setattr(approver, "_show", show)
    ran: list[str] = []
    result = _agent(approver, ran, {"path": "/a"}, {"path": "/b"}).run("go")
    assert ran == ["/a"]
    assert sorted(c.status for c in shown) == ["approved", "denied"]
    assert [d["decision"] for d in _decisions(result)] == ["allow", "deny"]


def test_a_pending_card_is_denied_by_the_timeout(monkeypatch):
    approver = NotebookApprover()
    approver.frontend_seen = True
    cards: list[ApprovalCard] = []
    monkeypatch.setattr(
        approver, "_show", lambda r, pending: cards.append(ApprovalCard(r, approver)) or cards[-1]
    )
    ran: list[str] = []
    agent = _agent(approver, ran, {"path": "/a"})
    agent.config = AgentConfig(tool=agent.config.tool, approval_timeout=0.3)
    result = asyncio.run(agent.arun("go"))
    assert ran == [] and cards[0].status == "denied"
    assert "by timeout" in cards[0].record
    assert _decisions(result)[0]["source"] == "timeout"


# -- a real kernel: the blocking run waits; comm messages (as the browser sends them) answer it
@pytest.mark.slow
def test_blocking_run_in_a_kernel_is_answered_over_the_comm_channel():
    with kernel_client() as client:
        setup = (
            "from selectools import Agent, AgentConfig, tool\n"
            "from selectools.agent.config_groups import ToolConfig\n"
            "from selectools.testing import ScriptedProvider, reply, tool_call\n"
            "from selectools.notebook.approvals import notebook_approver\n"
            "ran = []\n"
            "@tool(requires_approval=True)\n"
            "def remove(path: str) -> str:\n"
            "    '''Delete a file.'''\n"
            "    ran.append(path); return 'ok'\n"
            "agent = Agent(tools=[remove], provider=ScriptedProvider([reply('', tool_call("
            "'remove', path='/a')), reply('done')]), config=AgentConfig(tool=ToolConfig("
            "approval_handler=notebook_approver()), approval_timeout=30))\n"
        )
        client.execute_interactive(setup, timeout=60)
        msg_id = client.execute("result = agent.run('go'); print('RAN', ran)")
        comm_id, printed, answered = None, "", False
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            msg = client.get_iopub_msg(timeout=30)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            state = content.get("data", {}).get("state", {}) if kind == "comm_open" else {}
            if kind == "comm_open" and state.get("tool") == "remove":
                comm_id = content["comm_id"]
            elif kind == "display_data" and comm_id is not None and not answered:
                answered = True  # a browser answers once it has rendered the card's view
                for action in (
                    {"action": "rendered"},
                    {"action": "approve", "args": {"path": "/edited"}},
                ):
                    data = {"method": "custom", "content": action}
                    client.session.send(
                        client.shell_channel.socket,
                        client.session.msg("comm_msg", {"comm_id": comm_id, "data": data}),
                    )
            elif kind == "stream":
                printed += content["text"]
            elif kind == "status" and content["execution_state"] == "idle":
                break
        assert comm_id is not None, "no approval card was opened"
        assert printed.strip() == "RAN ['/edited']"


NBCLIENT_CELL = "from selectools import Agent, AgentConfig, tool\nfrom selectools.agent.config_groups import ToolConfig\nfrom selectools.testing import ScriptedProvider, reply, tool_call\nfrom selectools.notebook.approvals import notebook_approver\napprover = notebook_approver()\napprover.grace = 600  # were the runner not recognised, this cell would time out\n@tool(requires_approval=True)\ndef remove(path: str) -> str:\n    \"\"\"Delete a file.\"\"\"\n    return 'removed'\nagent = Agent(tools=[remove], provider=ScriptedProvider([reply('', tool_call('remove', path='/a')), reply('done')]), config=AgentConfig(tool=ToolConfig(approval_handler=approver), approval_timeout=600))\nresult = agent.run('go')\nprint([(s.data['decision'], s.data['by']) for s in result.trace.steps if 'by' in s.data])"


@pytest.mark.slow
def test_a_cell_run_by_nbclient_is_denied_at_once_without_waiting_for_a_frontend():
    """nbclient and nbval execute with allow_stdin false: nobody will render a card."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(NBCLIENT_CELL)])
    with checkout_on_path():
        NotebookClient(notebook, timeout=60, kernel_name="python3").execute()
    outputs = notebook.cells[0].outputs
    printed = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert printed == "[('deny', 'headless')]\n"
    records = [o.data["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("denied remove" in html and "by headless" in html for html in records)


def test_selectools_approval_settings_and_the_agent_magic(shell, monkeypatch):
    from IPython.core.error import UsageError

    from selectools.notebook import approvals

    monkeypatch.setattr(approvals, "_APPROVER", None)  # a fresh notebook approver
    shell.run_line_magic("selectools", "approval=deny approval.remove=allow")
    approver = approvals.notebook_approver()
    assert repr(approver) == "NotebookApprover(approval=deny, remove=allow)"
    with pytest.raises(UsageError, match="approval must be one of ask, allow, deny, got 'maybe'"):
        shell.run_line_magic("selectools", "approval=maybe")
    # %%agent gives an agent without a handler the notebook's: remove is allowed, wipe denied
    ran: list[str] = []
    shell.user_ns["ran"] = ran
    shell.run_cell(
        "from selectools import tool\n"
        "from selectools.testing import ScriptedProvider, reply, tool_call\n"
        "@tool(requires_approval=True)\n"
        "def remove(path: str) -> str:\n    '''Delete.'''\n    ran.append(path); return 'ok'\n"
        "@tool(requires_approval=True)\n"
        "def wipe(path: str) -> str:\n    '''Wipe.'''\n    ran.append('wipe ' + path); return 'ok'\n"
        "p = ScriptedProvider([reply('', tool_call('remove', path='/a'), "
        "tool_call('wipe', path='/b')), reply('done')])"
    ).raise_error()
    shell.run_cell_magic("agent", "--provider p --tools remove,wipe -o res", "go")
    assert ran == ["/a"]
    approvals_meta = [
        o["metadata"]["selectools"]["approvals"]
        for o in shell.outputs
        if "selectools" in o.get("metadata", {})
    ][-1]
    assert [(d["tool"], d["decision"], d["by"]) for d in approvals_meta] == [
        ("remove", "allow", "rule: approval=allow"),
        ("wipe", "deny", "rule: approval=deny"),
    ]
    # the row reads "denied by rule: approval=deny: <reason>": the reason must not name the rule again
    (denied,) = [d for d in approvals_meta if d["decision"] == "deny"]
    assert not denied.get("reason", "").startswith("approval=deny"), denied
