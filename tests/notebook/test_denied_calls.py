"""A refused tool call is shown, and counted, as what it was: a row saying who denied it and why.

Views of a run (the ``%%agent`` transcript, its saved plain text, the rich
``AgentResult``) used to leave a denied call as an empty turn and count it as a
tool call; here a headless notebook (nobody to ask) and a tool policy deny calls.
"""

from __future__ import annotations

from IPython.core.displaypub import CapturingDisplayPublisher

from selectools import Agent, AgentConfig, ToolPolicy, tool
from selectools._display import render
from selectools.agent.config_groups import ToolConfig
from selectools.notebook.approvals import NotebookApprover
from selectools.notebook.live import run_live
from selectools.testing import ScriptedProvider, reply, tool_call

from .conftest import final_outputs


class FakeShell:
    def __init__(self) -> None:
        self.display_pub = CapturingDisplayPublisher()


@tool(requires_approval=True)
def remove(path: str) -> str:
    """Delete a file."""
    return f"removed {path}"


@tool()
def look(path: str) -> str:
    """List a folder."""
    return f"saw {path}"


def _script() -> ScriptedProvider:
    return ScriptedProvider(
        [
            reply("", tool_call("look", path="a"), tool_call("remove", path="build/")),
            reply("", tool_call("look", path="b")),
            reply("I could not remove build/."),
        ]
    )


def test_a_call_denied_headless_is_a_row_with_who_and_why_and_is_counted_apart():
    config = AgentConfig(tool=ToolConfig(approval_handler=NotebookApprover()))
    shell = FakeShell()
    result = run_live(
        Agent(tools=[remove, look], provider=_script(), config=config), "clean", shell=shell
    )
    final = shell.display_pub.outputs[-1]["data"]
    lines = final["text/plain"].splitlines()
    denied = [line for line in lines if "remove(" in line]
    assert len(denied) == 1, lines
    assert denied[0].startswith('  [tool] remove({"path": "build/"}) ⊘ denied by headless: ')
    assert "no notebook frontend is attached" in denied[0]
    # the footer counts the two calls that ran and the denied one apart
    assert lines[-1].startswith("[final · 3 iterations · 2 tool calls · 1 denied · "), lines
    html = final["text/html"]
    assert ">denied</span>" in html and "not run: denied by headless" in html
    assert "2 tool calls · 1 denied" in render(result, "text")


def test_a_policy_denial_shows_in_the_result_view_in_the_order_it_was_decided():
    config = AgentConfig(tool_policy=ToolPolicy(allow=["look"], deny=["remove"]))
    result = Agent(tools=[remove, look], provider=_script(), config=config).run("clean")
    html = render(result, "html")
    assert "2 tool calls &#183; 1 denied" in html
    first_denial = html.index("denied by tool policy: &#x27;remove&#x27; matches deny rule")
    # the gate decides before the batch runs; the next turn's call comes after both
    assert first_denial < html.index("look({&quot;path&quot;: &quot;a&quot;})")
    assert html.index("look({&quot;path&quot;: &quot;a&quot;})") < html.index(
        "look({&quot;path&quot;: &quot;b&quot;})"
    )


def test_a_run_with_no_denials_says_nothing_about_them():
    result = Agent(
        tools=[look], provider=ScriptedProvider([tool_call("look", path="a"), "ok"])
    ).run("x")
    text = render(result, "text")
    assert "1 tool call · " in text and "denied" not in text


def test_a_guardrail_block_is_reported_once_as_a_block_not_a_usage_error(shell):
    shell.run_cell(
        "from selectools.testing import ScriptedProvider\n"
        "from selectools.guardrails import TopicGuardrail\n"
        "bot = ScriptedProvider(['never sent'])\n"
        "no_politics = TopicGuardrail(deny=['politics'])"
    )
    shell.run_line_magic("selectools", "provider=bot display=live")
    outcome = shell.run_cell("%%agent --guardrails no_politics\nTell me about politics")
    assert outcome.error_in_exec is None, outcome.error_in_exec  # no UsageError: nobody misused it
    [final] = final_outputs(shell)
    text = final["data"]["text/plain"]
    assert text.count("Denied topics detected: politics") == 1, text
    assert "[guardrail] input 'topic' blocked" in text and "GuardrailError" not in text
    html = final["data"]["text/html"]
    assert ">blocked</span>" in html and html.count("Denied topics detected") == 1
    assert shell.user_ns["bot"].calls == 0
