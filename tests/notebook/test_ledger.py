"""The run ledger and budgets, through a real IPython shell: %selectools ledger, ledger(), --budget."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

from selectools import Agent, AgentConfig
from selectools.evals import EvalSuite, TestCase
from selectools.notebook import Ledger, ledger, notebook_approver
from selectools.testing import ScriptedProvider, reply, tool_call
from selectools.usage import UsageStats
from tests.evals.agents import make_agent

PRICED = UsageStats(prompt_tokens=100, completion_tokens=20, total_tokens=120, cost_usd=0.02)

TOOLS = '''
def lookup(key: str) -> str:
    """Look a key up."""
    return key.upper()
'''

WIPE = '''
def wipe(path: str) -> str:
    """Delete a path."""
    return "wiped " + path
'''


def cell(ip, source: str):
    """Run a cell as a notebook does (numbered, in history); fail the test on an error."""
    result = ip.run_cell(source, store_history=True)
    assert result.success, result.error_in_exec or result.error_before_exec
    return result


@pytest.fixture
def approver_rule():
    approver = notebook_approver()
    before = approver.rule, dict(approver.overrides)
    yield approver
    approver.rule, approver.overrides = before[0], before[1]


def test_agent_cells_are_rows_read_from_what_the_run_recorded(shell, approver_rule):
    shell.user_ns["demo"] = ScriptedProvider(
        [
            reply("", tool_call("lookup", key="a"), tool_call("wipe", path="/"), usage=PRICED),
            reply("done", usage=PRICED),
        ]
    )
    cell(shell, "%selectools provider=demo approval.wipe=deny")
    cell(shell, "%%tool\n" + TOOLS)
    cell(shell, "%%tool --requires-approval\n" + WIPE)
    ran = cell(shell, "%%agent -o r\nlook up a, then wipe /")
    result = shell.user_ns["r"]
    [row] = ledger().to_dict("records")
    assert row["cell"] == ran.execution_count and row["kind"] == "agent"
    assert row["name"] == "notebook" and row["outcome"] == "final"
    assert (row["tokens"], row["prompt_tokens"], row["completion_tokens"]) == (240, 200, 40)
    assert row["cost_usd"] == pytest.approx(0.04) == result.usage.total_cost_usd
    assert (row["tool_calls"], row["denials"]) == (1, 1)  # the denied call did not run
    assert row["trace_id"] == result.run_id
    assert row["latency_ms"] == pytest.approx(result.trace.total_duration_ms)


def test_python_runs_graphs_and_evals_are_picked_up_after_their_cell(shell, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shell.user_ns["bot"] = Agent(
        provider=ScriptedProvider(default="hi"), config=AgentConfig(model="gpt-4o-mini")
    )
    shell.user_ns["support"] = make_agent({"Hi": "Hello"})
    first = cell(shell, "answer = bot.run('hello')")
    second = cell(shell, "bot.run('again')")  # the cell's value, in no variable
    cell(shell, "same = answer")  # the same run again is not a new row
    third = cell(shell, "%%eval --agent support -o report\n- input: Hi\n  expect_contains: Hello\n")
    shell.user_ns["step"] = lambda state: "drafted"
    fourth = cell(shell, "%%graph flow --prompt go\nstep -> END")
    frame = ledger()
    assert list(frame["kind"]) == ["agent", "agent", "eval", "graph"]
    assert list(frame["cell"]) == [
        first.execution_count,
        second.execution_count,
        third.execution_count,
        fourth.execution_count,
    ]
    assert list(frame["name"])[:2] == ["answer", "agent"]
    assert frame["model"][0] == "gpt-4o-mini"
    report = shell.user_ns["report"]
    assert frame["outcome"][2] == "1/1 passed" and frame["tokens"][2] == report.total_tokens
    assert frame["trace_id"][3] == shell.user_ns["flow_result"].run_id


def test_ledger_magic_shows_the_rich_view_and_clears(shell):
    shell.user_ns["bot"] = Agent(provider=ScriptedProvider(default="hi"))
    cell(shell, "answer = bot.run('hello')")
    shown = shell.run_line_magic("selectools", "ledger")
    assert isinstance(shown, Ledger) and len(shown) == 1
    bundle = shown._repr_mimebundle_()
    assert "Run ledger" in bundle["text/html"] and "1 run" in bundle["text/html"]
    assert "agent answer" in bundle["text/plain"]
    run_id = shell.user_ns["answer"].run_id
    html = bundle["text/html"]
    assert f'title="{run_id}">&#8230;{run_id[-8:]}</span>' in html  # ids differ at the end
    assert list(shown.to_dataframe().columns)[:3] == ["cell", "kind", "name"]
    shell.run_line_magic("selectools", "ledger clear")
    assert len(shown) == 0 and "no runs yet" in shown._repr_mimebundle_()["text/html"]
    with pytest.raises(UsageError, match="ledger or ledger clear"):
        shell.run_line_magic("selectools", "ledger everything")


def test_ledger_needs_the_extension():
    from IPython.core.interactiveshell import InteractiveShell

    from selectools.notebook import NotebookUsageError

    shell = InteractiveShell.instance()
    assert "SelectoolsMagics" not in shell.magics_manager.registry
    with pytest.raises(NotebookUsageError, match="%load_ext selectools"):
        ledger()


def test_odd_notebook_values_never_break_a_cell(shell):
    cell(
        shell,
        "class Weird:\n"
        "    def __getattr__(self, name):\n"
        "        raise RuntimeError('no attributes here')\n"
        "w = Weird()\n"
        "big = list(range(100000))",
    )
    assert len(ledger()) == 0


# -- budgets -------------------------------------------------------------------------
def _spender(ip):
    """A model that keeps calling a tool, each turn costing $0.02."""
    ip.user_ns["demo"] = ScriptedProvider(
        default=reply("", tool_call("lookup", key="x"), usage=PRICED)
    )
    cell(ip, "%selectools provider=demo")
    cell(ip, "%%tool\n" + TOOLS)


def test_budget_stops_the_cells_run_at_that_cost(shell):
    _spender(shell)
    cell(shell, "%%agent --budget 0.05 --max-iterations 20 -o r\nspend")
    result = shell.user_ns["r"]
    assert result.stop_reason == "budget_exceeded"
    assert 0.05 <= result.usage.total_cost_usd < 0.05 + 0.02 + 1e-9
    assert shell.user_ns["demo"].calls == 3
    assert ledger()["outcome"][0] == "budget_exceeded"


def test_budget_setting_is_the_default_and_an_agents_config_is_kept(shell):
    _spender(shell)
    shell.user_ns["mine"] = Agent(
        tools=[shell.user_ns["lookup"]],
        provider=shell.user_ns["demo"],
        config=AgentConfig(max_iterations=20),
    )
    cell(shell, "%selectools budget=0.03")
    cell(shell, "%%agent mine -o r\nspend")
    assert shell.user_ns["r"].stop_reason == "budget_exceeded"
    assert shell.user_ns["r"].usage.total_cost_usd == pytest.approx(0.04)
    assert shell.user_ns["mine"].config.max_cost_usd is None  # only for that cell


def test_bad_budget_is_one_usage_error(shell, capsys):
    _spender(shell)
    result = shell.run_cell("%%agent --budget cheap\nspend", store_history=True)
    assert isinstance(result.error_in_exec, UsageError)
    assert "--budget must be a cost in USD above 0" in capsys.readouterr().err
    assert shell.user_ns["demo"].calls == 0


def test_results_of_earlier_sessions_are_not_runs_of_this_one(shell, tmp_path):
    saved = make_agent({"Hi": "Hello"})
    old = EvalSuite(saved, [TestCase(input="Hi", expect_contains="Hello")]).run()
    path = tmp_path / "old.json"
    old.to_json(path)
    shell.extension_manager.unload_extension("selectools")
    shell.extension_manager.load_extension("selectools")  # a new session
    shell.user_ns["path"] = str(path)
    cell(shell, "from selectools.evals import EvalReport\nback = EvalReport.from_json(path)")
    assert len(ledger()) == 0
