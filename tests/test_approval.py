"""Human approval of tool calls: ApprovalRequest, handlers, the gate in every run mode."""

import asyncio
import contextvars
import gc
import threading
import time
import warnings
from unittest import mock

import pytest

from selectools import (
    Agent,
    AgentConfig,
    AgentResult,
    ApprovalQueue,
    ApprovalRequest,
    SimpleStepObserver,
    ToolConfig,
    ToolPolicy,
    auto_approve,
    auto_deny,
    tool,
)
from selectools.exceptions import ToolValidationError
from selectools.testing import ScriptedProvider, tool_call

SENT: list[dict] = []


@tool()
def send_email(to: str, subject: str) -> str:
    """Send an email."""
    SENT.append({"to": to, "subject": subject})
    return f"sent to {to}"


@tool()
def search(query: str) -> str:
    """Search."""
    return f"results for {query}"


@tool(requires_approval=True)
def wire_money(amount: int) -> str:
    """Move money."""
    return f"wired {amount}"


@tool()
def delete_file(path: str) -> str:
    """Delete a file."""
    raise AssertionError("a denied tool must never run")


@pytest.fixture(autouse=True)
def _clear_sent():
    SENT.clear()


def email_call(to="a@b.com", subject="hi"):
    return tool_call("send_email", to=to, subject=subject)


def make_agent(replies, tools=(send_email, search, wire_money, delete_file), **config):
    events = []
    config.setdefault("observers", [SimpleStepObserver(events.append)])
    provider = ScriptedProvider(replies, default="done")
    return (
        Agent(tools=list(tools), provider=provider, config=AgentConfig(**config)),
        provider,
        events,
    )


def gate(handler, **kwargs):
    return ToolConfig(require_approval=["send_email"], approval_handler=handler, **kwargs)


def tool_messages(provider, request_index=-1):
    return [m.text for m in provider.requests[request_index].messages if m.role.value == "tool"]


def decisions(result):
    return [
        (s.tool_name, s.data["decision"], s.data["source"])
        for s in result.trace.filter(type="policy_decision")
    ]


# -- ApprovalRequest ----------------------------------------------------------
def test_request_is_answered_once():
    request = ApprovalRequest("send_email", {"to": "a@b.com", "subject": "hi"}, "needs review")
    assert request.preview == "send_email(to='a@b.com', subject='hi')"
    assert not request.decided and request.wait(0.01) is False
    assert request.deny("too risky", by="bob") is True
    assert request.approve(by="alice") is False  # first answer wins
    assert request.decided and request.wait() is False
    decision = request.decision
    assert (decision.approved, decision.by, decision.reason) == (False, "bob", "too risky")
    assert "denied" in repr(request)


def test_request_args_are_a_deep_copy_and_edits_are_validated():
    args = {"to": "a@b.com", "subject": "hi", "nested": {"k": [1]}}
    request = ApprovalRequest("t", args, "r")
    request.tool_args["nested"]["k"].append(2)
    assert args["nested"]["k"] == [1]
    checked = ApprovalRequest("send_email", {"to": "a", "subject": "b"}, "r", tool=send_email)
    with pytest.raises(ToolValidationError):
        checked.approve(tool_args={"to": "a"})  # subject missing
    with pytest.raises(TypeError):
        checked.approve(tool_args=["not", "a", "dict"])
    assert not checked.decided  # a bad edit leaves the request open
    assert checked.approve(tool_args={"to": "x", "subject": "y"}, by="ann")
    assert checked.decision.tool_args == {"to": "x", "subject": "y"}


def test_callbacks_and_await_from_other_threads():
    request = ApprovalRequest("t", {}, "r")
    seen = []
    request.add_done_callback(lambda r: seen.append(r.decision.approved))

    async def waiter():
        threading.Timer(0.05, lambda: request.approve(by="thread")).start()
        return await request

    assert asyncio.run(waiter()) is True
    assert seen == [True]
    request.add_done_callback(lambda r: seen.append("late"))  # already decided: called now
    assert seen == [True, "late"]


def test_queue_hands_out_requests_and_notifies_listeners():
    queue = ApprovalQueue()
    assert queue.get(timeout=0.01) is None
    seen = []
    unsubscribe = queue.subscribe(seen.append)
    request = ApprovalRequest("t", {}, "r")

    def answer():
        got = queue.get(timeout=2)
        assert got is request and queue.pending == [request]
        got.approve(by="worker")

    worker = threading.Thread(target=answer)
    worker.start()
    assert asyncio.run(queue(request)) is True
    worker.join()
    assert seen == [request] and queue.pending == []
    unsubscribe()
    later = ApprovalRequest("t", {}, "r2")
    later.deny("no")  # answered before it is even queued: the queue returns at once
    assert asyncio.run(queue(later)) is False
    assert seen == [request]  # the unsubscribed listener heard nothing more


def test_auto_handlers():
    yes, no = ApprovalRequest("t", {}, "r"), ApprovalRequest("t", {}, "r")
    assert auto_approve(yes) is True and yes.decision.by == "auto_approve"
    assert auto_deny(no) is False and no.decision.by == "auto_deny"


# -- configuration ------------------------------------------------------------
def test_gate_without_any_handler_is_rejected_at_construction():
    with pytest.raises(ValueError, match="needs someone to approve"):
        AgentConfig(tool=ToolConfig(require_approval=["send_email"]))
    AgentConfig(tool=ToolConfig(require_approval=["x"]), confirm_action=lambda *a: True)
    AgentConfig(tool=ToolConfig(approval_handler=auto_deny))
    for bad in ({"require_approval": [1]}, {"approval_handler": "yes"}):
        with pytest.raises(TypeError):
            ToolConfig(**bad)
    with pytest.raises(ValueError, match="approval_timeout"):
        ToolConfig(approval_handler=auto_deny, approval_timeout=0)
    with pytest.raises(ValueError, match="approval_timeout"):
        AgentConfig(approval_timeout=-1)


# -- decisions in the loop ------------------------------------------------------
def test_handler_approves_and_denies_with_the_standard_message():
    answers = iter([True, False])
    agent, provider, events = make_agent(
        [email_call(), email_call(to="c@d.com")], tool=gate(lambda request: next(answers))
    )
    result = agent.run("mail twice")
    assert SENT == [{"to": "a@b.com", "subject": "hi"}]
    assert (
        tool_messages(provider)[1] == "Tool 'send_email' denied by approval handler: not approved"
    )
    assert decisions(result) == [
        ("send_email", "allow", "approval_handler"),
        ("send_email", "deny", "approval_handler"),
    ]
    names = [e.name for e in events]
    assert names.count("on_approval_request") == 2 and names.count("on_policy_decision") == 2
    decision = next(e for e in events if e.name == "on_policy_decision")
    assert decision["tool_name"] == "send_email" and decision["decision"] == "allow"
    assert (
        decision["tool_args"] == {"to": "a@b.com", "subject": "hi"}
        and decision["source"] == "approval_handler"
    )
    assert result.trace.filter(type="tool_execution")[0].tool_name == "send_email"


def test_deny_reason_from_the_request_reaches_the_model():
    def handler(request):
        request.deny("external recipients need a ticket", by="alice")
        return False

    agent, provider, _ = make_agent([email_call()], tool=gate(handler))
    result = agent.run("mail")
    assert tool_messages(provider) == [
        "Tool 'send_email' denied by approval handler: external recipients need a ticket"
    ]
    step = result.trace.filter(type="policy_decision")[0]
    assert step.data["by"] == "alice" and step.data["decision"] == "deny"
    assert "alice" in step.summary


@pytest.mark.parametrize(
    "returned",
    [1, "yes", mock.Mock(), None, ["True"], (x for x in [True])],
    ids=["int", "str", "mock", "none", "list", "generator"],
)
def test_anything_but_true_fails_closed(returned):
    agent, provider, _ = make_agent([email_call()], tool=gate(lambda request: returned))
    result = agent.run("mail")
    assert SENT == []
    assert "only True approves" in tool_messages(provider)[0]
    assert decisions(result)[-1] == ("send_email", "deny", "invalid_return")


def test_a_coroutine_returned_by_a_sync_function_fails_closed_without_warnings():
    async def really_async(request):
        return True

    agent, provider, _ = make_agent(
        [email_call()], tool=gate(lambda request: really_async(request))
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agent.run("mail")
        gc.collect()
    assert SENT == [] and "returned coroutine" in tool_messages(provider)[0]
    assert not [w for w in caught if "never awaited" in str(w.message)]


def test_handler_exception_denies_and_the_run_goes_on():
    def broken(request):
        raise RuntimeError("approval service down")

    agent, provider, _ = make_agent([email_call(), "ok then"], tool=gate(broken))
    result = agent.run("mail")
    assert result.content == "ok then" and result.error is None
    assert tool_messages(provider)[0] == (
        "Tool 'send_email' denied by approval handler: the approval handler raised "
        "RuntimeError: approval service down"
    )
    assert decisions(result)[-1][2] == "handler_error"


def test_denials_are_memoized_per_call_approvals_are_not():
    calls = []

    def handler(request):
        calls.append(dict(request.tool_args))
        return request.tool_args["to"] == "ok@b.com"

    replies = [email_call(to="x@b.com"), email_call(to="x@b.com"), email_call(to="y@b.com"),
               email_call(to="ok@b.com"), email_call(to="ok@b.com")]  # fmt: skip
    agent, provider, _ = make_agent(replies, tool=gate(handler))
    result = agent.run("mail", observers=())
    assert [c["to"] for c in calls] == ["x@b.com", "y@b.com", "ok@b.com", "ok@b.com"]
    assert len(SENT) == 2
    messages = tool_messages(provider)
    assert messages[0] == messages[1]  # the retried call got the stored denial
    assert ("send_email", "deny", "memoized") in decisions(result)
    # a new run starts with a clean slate
    agent.provider = ScriptedProvider([email_call(to="x@b.com")], default="done")
    agent.run("again")
    assert [c["to"] for c in calls][-1] == "x@b.com"


def test_edited_arguments_run_instead_of_the_models():
    def handler(request):
        request.approve(tool_args={**request.tool_args, "to": "safe@corp.com"}, by="alice")
        return True

    agent, provider, _ = make_agent([email_call(to="boss@b.com")], tool=gate(handler))
    result = agent.run("mail")
    assert SENT == [{"to": "safe@corp.com", "subject": "hi"}]
    step = result.trace.filter(type="policy_decision")[0]
    assert step.data["edited_args"] == {"to": "safe@corp.com", "subject": "hi"}
    # the model's own request stays as it was in the conversation
    assert result.tool_calls[0].parameters["to"] == "boss@b.com"
    assert tool_messages(provider) == ["sent to safe@corp.com"]


def test_mutating_request_args_changes_nothing():
    def handler(request):
        request.tool_args["to"] = "evil@x.com"
        return True

    agent, _, _ = make_agent([email_call()], tool=gate(handler))
    agent.run("mail")
    assert SENT == [{"to": "a@b.com", "subject": "hi"}]


def test_true_with_a_denied_request_is_still_a_denial():
    def handler(request):
        request.deny("changed my mind", by="bob")
        return True

    agent, provider, _ = make_agent([email_call()], tool=gate(handler))
    agent.run("mail")
    assert SENT == [] and tool_messages(provider)[0].endswith("changed my mind")


# -- who is asked ---------------------------------------------------------------
def test_handler_takes_precedence_over_confirm_action():
    confirm = mock.Mock(return_value=True)
    agent, _, _ = make_agent([email_call()], tool=gate(auto_deny), confirm_action=confirm)
    agent.run("mail")
    confirm.assert_not_called()
    assert SENT == []


def test_policy_review_uses_confirm_action_sync_and_async():
    seen = []

    def approve(tool_name, tool_args, reason):
        seen.append((tool_name, tool_args, reason))
        return True

    async def approve_async(tool_name, tool_args, reason):
        await asyncio.sleep(0)
        return tool_args["to"].endswith("@b.com")

    policy = ToolPolicy(allow=["search"], review=["send_*"], deny=["delete_*"])
    agent, _, _ = make_agent([email_call()], tool_policy=policy, confirm_action=approve)
    result = agent.run("mail")
    assert seen == [
        (
            "send_email",
            {"to": "a@b.com", "subject": "hi"},
            "'send_email' matches review rule 'send_*'",
        )
    ]
    assert decisions(result) == [
        ("send_email", "review", "policy"),
        ("send_email", "allow", "confirm_action"),
    ]
    agent, _, _ = make_agent(
        [email_call(), email_call(to="z@x.com")], tool_policy=policy, confirm_action=approve_async
    )
    agent.run("mail")  # the async confirm_action runs on a private loop
    assert [s["to"] for s in SENT] == ["a@b.com", "a@b.com"]


def test_deny_rules_win_and_the_handler_is_never_asked():
    handler = mock.Mock(return_value=True)
    policy = ToolPolicy(allow=["*"], deny=["delete_*"])
    agent, provider, _ = make_agent(
        [tool_call("delete_file", path="/etc")],
        tool_policy=policy,
        tool=ToolConfig(require_approval="*", approval_handler=handler),
    )
    result = agent.run("clean up")
    handler.assert_not_called()
    assert tool_messages(provider) == [
        "Tool 'delete_file' denied by tool policy: 'delete_file' matches deny rule 'delete_*'"
    ]
    assert decisions(result) == [("delete_file", "deny", "policy")]


def test_gates_compose_with_or():
    asked = []

    def handler(request):
        asked.append(request.tool_name)
        return True

    replies = [[tool_call("search", query="q"), email_call(), tool_call("wire_money", amount=5)]]
    agent, _, _ = make_agent(replies, tool=gate(handler))
    agent.run("all three")
    assert asked == ["send_email", "wire_money"]  # list gate OR requires_approval=True
    asked.clear()
    agent, _, _ = make_agent(
        replies, tool=ToolConfig(require_approval="*", approval_handler=handler)
    )
    agent.run("all three")
    assert asked == ["search", "send_email", "wire_money"]
    asked.clear()
    # an allow rule does not lift the tool's own requires_approval flag
    agent, _, _ = make_agent(
        replies, tool_policy=ToolPolicy(allow=["*"]), tool=ToolConfig(approval_handler=handler)
    )
    agent.run("all three")
    assert asked == ["wire_money"]


def test_ungated_calls_need_no_handler_and_emit_nothing():
    agent, _, events = make_agent([tool_call("search", query="q")])
    result = agent.run("look")
    assert not result.trace.filter(type="policy_decision")
    assert not [e for e in events if e.name in ("on_policy_decision", "on_approval_request")]


# -- never hangs ------------------------------------------------------------------
def test_review_with_nobody_configured_is_denied_at_once():
    agent, provider, _ = make_agent([tool_call("wire_money", amount=10**6)])
    started = time.monotonic()
    result = agent.run("pay")
    assert time.monotonic() - started < 1
    message = tool_messages(provider)[0]
    assert (
        message.startswith("Tool 'wire_money' needs approval") and "no approval handler" in message
    )
    assert decisions(result) == [("wire_money", "deny", "no_handler")]


def _blocked_forever(request):
    threading.Event().wait()  # a human who never answers (the thread is a daemon)


async def _awaits_forever(request):
    await asyncio.Event().wait()


@pytest.mark.parametrize("mode", ["run", "arun", "astream", "stream"])
@pytest.mark.parametrize(
    "handler", [_blocked_forever, _awaits_forever, ApprovalQueue()], ids=["sync", "async", "queue"]
)
def test_an_unanswered_request_is_denied_after_the_timeout(mode, handler):
    agent, provider, _ = make_agent(
        [email_call(), "gave up"], tool=gate(handler, approval_timeout=0.2)
    )
    started = time.monotonic()
    if mode == "run":
        result = agent.run("mail")
    elif mode == "stream":
        result = list(agent.stream("mail"))[-1]
    elif mode == "arun":
        result = asyncio.run(agent.arun("mail"))
    else:

        async def consume():
            return [item async for item in agent.astream("mail")][-1]

        result = asyncio.run(consume())
    elapsed = time.monotonic() - started
    assert isinstance(result, AgentResult) and result.content == "gave up"
    assert 0.2 <= elapsed < 2
    assert tool_messages(provider)[0] == (
        "Tool 'send_email' denied by approval handler: no decision within 0.2s (approval_timeout)"
    )
    assert decisions(result) == [("send_email", "deny", "timeout")]
    assert SENT == []


def test_agent_timeout_applies_to_confirm_action_and_late_answers_are_void():
    holder = {}

    def slow(request):
        holder["request"] = request
        time.sleep(0.3)
        return True

    agent, _, _ = make_agent([email_call()], tool=gate(slow), approval_timeout=0.1)
    agent.run("mail")
    assert SENT == []
    request = holder["request"]
    assert request.decided and request.decision.by == "timeout"
    assert request.approve(by="too-late") is False


# -- answered from elsewhere -------------------------------------------------------
def test_answered_from_another_thread_during_run():
    queue = ApprovalQueue()

    def approver():
        request = queue.get(timeout=5)
        time.sleep(0.05)
        request.approve(tool_args={"to": "edited@b.com", "subject": "hi"}, by="ops")

    thread = threading.Thread(target=approver)
    thread.start()
    agent, _, _ = make_agent([email_call()], tool=gate(queue, approval_timeout=5))
    result = agent.run("mail")
    thread.join()
    assert SENT == [{"to": "edited@b.com", "subject": "hi"}]
    assert result.trace.filter(type="policy_decision")[0].data["by"] == "ops"


def test_answered_from_another_asyncio_task_during_arun():
    queue = ApprovalQueue()

    async def main():
        agent, _, _ = make_agent(
            [email_call(), email_call(to="no@b.com")], tool=gate(queue, approval_timeout=5)
        )

        async def approver():
            first = await queue.aget(timeout=5)
            first.approve(by="task")
            second = await queue.aget(timeout=5)
            second.deny("not this one", by="task")

        task = asyncio.create_task(approver())
        result = await agent.arun("mail")
        await task
        return result

    result = asyncio.run(main())
    assert SENT == [{"to": "a@b.com", "subject": "hi"}]
    assert [d[1] for d in decisions(result)] == ["allow", "deny"]


def test_async_handler_awaiting_the_request_answered_by_a_listener_task():
    async def main():
        loop = asyncio.get_running_loop()

        async def handler(request):
            loop.call_later(0.05, request.approve)
            return await request

        agent, _, _ = make_agent([email_call()], tool=gate(handler))
        return await agent.arun("mail")

    asyncio.run(main())
    assert len(SENT) == 1


class AsyncCallable:
    async def __call__(self, request):
        await asyncio.sleep(0)
        return True


def test_async_handlers_work_from_run_inside_a_running_loop():
    async def notebook_cell():
        agent, _, _ = make_agent([email_call()], tool=gate(AsyncCallable()))
        return agent.run("mail")  # sync run() while an event loop is running

    asyncio.run(notebook_cell())
    assert len(SENT) == 1


def test_sync_handlers_see_the_callers_context_variables():
    user = contextvars.ContextVar("user", default="nobody")
    seen = []

    def handler(request):
        seen.append((user.get(), threading.current_thread() is threading.main_thread()))
        return True

    user.set("alice")
    agent, _, _ = make_agent([email_call()], tool=gate(handler))
    agent.run("mail")
    assert seen == [("alice", False)]


def test_request_carries_run_details_for_a_ui():
    captured = []

    def handler(request):
        captured.append(request)
        return True

    policy = ToolPolicy(review=["send_*"])
    agent, _, _ = make_agent(
        [email_call()],
        tool_policy=policy,
        tool=ToolConfig(approval_handler=handler, approval_timeout=7),
        name="mailer",
    )
    result = agent.run("mail")
    request = captured[0]
    assert request.run_id == result.run_id and request.call_id == result.tool_calls[0].id
    assert request.agent_name == "mailer" and request.iteration == 1 and request.timeout == 7
    assert request.policy.rule == "review:send_*" and request.reason == request.policy.reason
    assert request.tokens_used > 0
    assert request.decision.approved and request.decision.by == "handler"
