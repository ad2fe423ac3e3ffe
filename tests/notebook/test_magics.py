"""The magics, driven through a real IPython shell: %selectools, %%tool, %%agent, %agent."""

from __future__ import annotations

import json
import linecache
import subprocess
import sys
import traceback
from pathlib import Path

import pytest
from IPython.core.error import UsageError

from selectools import Agent, AgentResult, ConversationMemory, Tool
from selectools.testing import ScriptedProvider, reply, tool_call

from .conftest import final_outputs, sanitize

ROOT = Path(__file__).resolve().parents[2]

PRICE_CELL = '''
PRICES = {"laptop": 999, "phone": 699}

def get_price(product: str) -> str:
    """Look up the price of a product."""
    return f"${PRICES[product]}"

def _currency() -> str:
    return "USD"
'''


def run(ip, cell: str):
    """Run a cell the way a notebook does; returns IPython's ExecutionResult."""
    return ip.run_cell(cell, store_history=False)


def usage_error(ip, cell: str, capsys) -> str:
    """Run a cell that must fail with one UsageError line; return that line."""
    result = run(ip, cell)
    assert isinstance(result.error_in_exec, UsageError), result.error_in_exec
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("UsageError: ")
    return err[0]


def scripted(ip, *replies, name="demo"):
    provider = ScriptedProvider(list(replies))
    ip.user_ns[name] = provider
    ip.run_line_magic("selectools", f"provider={name}")
    return provider


# -- %load_ext / %unload_ext --------------------------------------------------------------
def test_load_ext_is_fast_and_imports_no_chart_stack():
    code = (
        "import sys, time, json\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "ip = InteractiveShell.instance()\n"
        "started = time.perf_counter()\n"
        "ip.run_line_magic('load_ext', 'selectools')\n"
        "elapsed = time.perf_counter() - started\n"
        "heavy = [m for m in ('pandas', 'plotly', 'numpy', 'selectools.agent') if m in sys.modules]\n"
        "magics = ip.magics_manager.magics\n"
        "print(json.dumps([elapsed, heavy, 'agent' in magics['cell'], 'tool' in magics['cell']]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    ).stdout
    elapsed, heavy, has_agent, has_tool = json.loads(out.splitlines()[-1])
    assert elapsed < 0.5
    assert heavy == []
    assert has_agent and has_tool


TERMINAL_SESSION = """
ip = get_ipython()
ip.run_line_magic("load_ext", "selectools")
from selectools.testing import ScriptedProvider, reply, tool_call
ip.user_ns["demo"] = ScriptedProvider(
    [reply("Checking.", tool_call("get_price", product="laptop")), "A laptop is $999."]
)
ip.run_cell('%%tool\\ndef get_price(product: str) -> str:\\n    \"\"\"Price.\"\"\"\\n    return \"$999\"')
ip.run_cell("%selectools provider=demo")
ip.run_cell("%agent -o r What's a laptop?")
ip.run_cell("r")
"""


def test_plain_ipython_terminal_gets_text(tmp_path):
    script = tmp_path / "session.py"
    script.write_text(TERMINAL_SESSION)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "IPython",
            "--no-banner",
            "--colors=nocolor",
            "-c",
            f"exec(open({str(script)!r}).read())",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    ).stdout
    assert "Tool get_price(product: str): Price." in out
    assert "display: auto (text)" in out
    assert "Checking.\n" in out and "A laptop is $999.\n" in out
    assert '[tool] get_price({"product": "laptop"}) → $999' in out
    assert "AgentResult: final · 2 iterations · 1 tool call" in out
    assert "<div" not in out


def test_unload_ext_removes_magics_and_formatters(shell):
    magics = shell.magics_manager.magics
    assert {"agent", "tool"} <= set(magics["cell"]) and "selectools" in magics["line"]
    shell.extension_manager.unload_extension("selectools")
    assert "agent" not in magics["cell"] and "tool" not in magics["cell"]
    assert "agent" not in magics["line"] and "selectools" not in magics["line"]
    html = shell.display_formatter.formatters["text/html"]
    assert "selectools.trace.TraceStep" not in html.deferred_printers
    shell.extension_manager.load_extension("selectools")
    assert "agent" in magics["cell"]


def test_extension_formats_trace_steps_and_tool_calls(shell):
    from selectools.trace import StepType, TraceStep
    from selectools.types import ToolCall

    html = shell.display_formatter.formatters["text/html"]
    step = TraceStep(
        StepType.TOOL_EXECUTION, 1.0, 1.5, tool_name="get_price", status="error", error="boom"
    )
    rendered = html(step)
    assert "get_price" in rendered and "boom" in rendered and "st-ms" in rendered
    assert "get_price" in html(ToolCall("get_price", {"product": "laptop"}))


# -- %selectools ---------------------------------------------------------------------------
def test_status_shows_offline_default_and_keys_without_values(shell, monkeypatch):
    status = shell.run_line_magic("selectools", "")
    text = repr(status)
    assert "auto → local (offline: no API key found)" in text
    assert "OPENAI_API_KEY not set" in text
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    status = shell.run_line_magic("selectools", "")
    bundle = status._repr_mimebundle_()
    assert "OPENAI_API_KEY set" in bundle["text/plain"]
    assert "sk-secret" not in bundle["text/plain"] and "sk-secret" not in bundle["text/html"]


def test_setting_defaults_and_unknown_settings(shell, capsys):
    status = shell.run_line_magic("selectools", "provider=openai model=gpt-4o-mini display=text")
    assert "provider: openai (" in repr(status)  # not available yet or needs a key: said so
    assert "model: gpt-4o-mini" in repr(status)
    assert "display: text" in repr(status)
    line = usage_error(shell, "%selectools modle=x", capsys)
    assert "unknown setting 'modle' (did you mean model?)" in line
    line = usage_error(shell, "%selectools provider=openia", capsys)
    assert "unknown provider 'openia' (did you mean 'openai'?)" in line
    line = usage_error(shell, "%selectools display=fancy model=x", capsys)
    assert "display must be one of auto, live, text" in line
    assert "model: gpt-4o-mini" in repr(shell.run_line_magic("selectools", ""))  # nothing half-set


def test_network_provider_without_key_fails_with_one_line(shell, capsys):
    shell.run_line_magic("selectools", "provider=anthropic")
    line = usage_error(shell, "%%agent\nhello", capsys)
    assert "anthropic" in line
    assert "ANTHROPIC_API_KEY" in line or "not available" in line


def test_scripted_provider_name_picks_the_notebook_provider(shell):
    provider = ScriptedProvider(["hi there"])
    shell.user_ns["mine"] = provider
    shell.run_line_magic("selectools", "provider=scripted")
    run(shell, "%%agent -o r\nhello")
    assert shell.user_ns["r"].content == "hi there"
    assert provider.calls == 1


# -- %%tool --------------------------------------------------------------------------------
def test_tool_cell_defines_tools_that_replace_the_functions(shell):
    result = run(shell, "%%tool\n" + PRICE_CELL)
    assert result.success
    get_price = shell.user_ns["get_price"]
    assert isinstance(get_price, Tool)
    assert get_price("laptop") == "$999"  # still callable like the function
    assert get_price.description == "Look up the price of a product."
    assert get_price.schema()["parameters"]["required"] == ["product"]
    assert get_price.source.startswith("def get_price(product: str) -> str:")
    assert "PRICES = " not in get_price.source  # only the function, not the whole cell
    assert not isinstance(shell.user_ns["_currency"], Tool)  # helpers stay functions
    shown = final_outputs(shell)
    assert len(shown) == 1 and "Tool get_price(product: str)" in shown[0]["data"]["text/plain"]
    assert isinstance(Agent(tools=[get_price]), Agent)


def test_a_tool_cells_traceback_names_its_own_cell(shell):
    """IPython 9 advances execution_count before the cell runs: the source is cached under In [n]."""
    ran = shell.run_cell("%%tool\n" + PRICE_CELL, store_history=True)
    assert ran.success
    shell.run_cell("1 + 1", store_history=True)  # another cell between the definition and the call
    failed = shell.run_cell('get_price.function("tablet")', store_history=True)
    assert isinstance(failed.error_in_exec, KeyError)
    frames = [frame.filename for frame in traceback.extract_tb(failed.error_in_exec.__traceback__)]
    tool_frame = frames[-1]
    assert shell.compile.format_code_name(tool_frame) == ("Cell", f"In[{ran.execution_count}]")
    assert 'return f"${PRICES[product]}"' in "".join(linecache.getlines(tool_frame))


def test_rerunning_a_tool_cell_replaces_the_tool(shell):
    run(shell, "%%tool\n" + PRICE_CELL)
    first = shell.user_ns["get_price"]
    run(shell, "%%tool\n" + PRICE_CELL.replace("Look up", "Find"))
    second = shell.user_ns["get_price"]
    assert second is not first and second.description.startswith("Find")
    provider = scripted(shell, tool_call("get_price", product="phone"), "done")
    run(shell, "%%agent\nprice?")
    assert provider.requests[0].tools == ["get_price"]


def test_tool_cell_options(shell):
    cell = '%%tool --name quote --description "Quote a price." --terminal --requires-approval\ndef f(product: str) -> str:\n    """Doc."""\n    return product\n'
    assert run(shell, cell).success
    made = shell.user_ns["f"]
    assert (made.name, made.description) == ("quote", "Quote a price.")
    assert made.terminal and made.requires_approval


def test_tool_cell_keeps_a_decorated_tool(shell):
    cell = '%%tool\nfrom selectools import tool\n@tool(description="Echo it.")\ndef echo(x: str) -> str:\n    return x\n'
    assert run(shell, cell).success
    assert shell.user_ns["echo"].description == "Echo it."
    assert shell.user_ns["echo"].source.startswith("@tool(")


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("%%tool\nx = 1\n", "the cell defines no function"),
        ("%%tool\ndef broken(:\n    pass\n", "syntax error in line 1"),
        ("%%tool --colour red\ndef f(x: str) -> str:\n    '''D.'''\n", "unknown option --colour"),
        (
            "%%tool --name a\ndef f(x: str) -> str:\n    '''D.'''\ndef g(x: str) -> str:\n    '''D.'''\n",
            "--name and --description need a cell with one function",
        ),
        (
            "%%tool --description ' '\ndef nodoc(x: str) -> str:\n    return x\n",
            "Tool description cannot be empty",
        ),
        (
            "%%tool\nSTATE = 5\ndef f(x: str) -> str:\n    '''D.'''\n    return x\nraise RuntimeError('half way')\n",
            "the cell raised RuntimeError: half way",
        ),
    ],
)
def test_bad_tool_cells_give_one_line_and_register_nothing(shell, capsys, cell, message):
    shell.user_ns["f"] = "untouched"
    line = usage_error(shell, cell, capsys)
    assert message in line
    assert shell.user_ns["f"] == "untouched"
    assert "STATE" not in shell.user_ns and "nodoc" not in shell.user_ns
    assert "Tool" not in repr(shell.run_line_magic("selectools", "")).split("notebook tools:")[1]


# -- %%agent -------------------------------------------------------------------------------
def test_agent_cell_streams_uses_notebook_tools_and_stores_the_result(shell):
    run(shell, "%%tool\n" + PRICE_CELL)
    shell.user_ns["item"] = "laptop"
    provider = scripted(
        shell, reply("Checking.", tool_call("get_price", product="laptop")), "A laptop costs $999."
    )
    shell.outputs.clear()
    assert run(shell, "%%agent -o answer\nWhat does a {item} cost?").success
    result = shell.user_ns["answer"]
    assert isinstance(result, AgentResult) and result.content == "A laptop costs $999."
    assert provider.requests[0].messages[-1].text == "What does a laptop cost?"
    assert provider.requests[0].tools == ["get_price"]
    [final] = final_outputs(shell)
    text = final["data"]["text/plain"]
    assert "Checking." in text and "A laptop costs $999." in text
    assert '[tool] get_price({"product": "laptop"}) → $999' in text
    assert "get_price" in final["data"]["text/html"]
    meta = final["metadata"]["selectools"]
    assert meta["trace_id"] == result.trace.run_id
    assert meta["tokens"] == result.usage.total_tokens and meta["provider"] == "scripted"
    assert {"model", "cost_usd", "latency_ms"} <= set(meta)
    # a run this quick ends before the first redraw: one message, its final render
    assert [o for o in shell.outputs if o["update"]] == []


DOCUMENTED_PROVIDER_CELL = '''
from selectools import Message, Role, ToolCall, UsageStats

class MyProvider:
    """Written as the PROVIDERS page shows: stream() yields text only."""

    name = "my_provider"
    supports_streaming = True
    supports_async = False
    supports_native_tools = True

    def complete(self, *, model, system_prompt, messages, tools=None, temperature=0.0,
                 max_tokens=1000, timeout=None):
        results = [m.content for m in messages if m.role == Role.TOOL]
        usage = UsageStats(prompt_tokens=1, completion_tokens=1, total_tokens=2, cost_usd=0.0,
                           model=model, provider=self.name)
        if results:
            return Message(role=Role.ASSISTANT, content=f"It costs {results[-1]}."), usage
        call = ToolCall(tool_name="get_price", parameters={"product": "laptop"}, id="c1")
        return Message(role=Role.ASSISTANT, content="Checking.", tool_calls=[call]), usage

    def stream(self, *, model, system_prompt, messages, **kwargs):
        message, _ = self.complete(model=model, system_prompt=system_prompt, messages=messages)
        yield message.content

mine = MyProvider()
'''


def test_agent_cell_runs_the_tools_of_a_provider_written_as_documented(shell):
    run(shell, "%%tool\n" + PRICE_CELL)
    assert run(shell, DOCUMENTED_PROVIDER_CELL).success
    shell.run_line_magic("selectools", "provider=mine")
    assert run(shell, "%%agent -o answer\nWhat does a laptop cost?").success
    result = shell.user_ns["answer"]
    assert [c.tool_name for c in result.tool_calls] == ["get_price"]
    assert result.content == "It costs $999." and result.iterations == 2
    text = final_outputs(shell)[-1]["data"]["text/plain"]
    assert '[tool] get_price({"product": "laptop"}) → $999' in text


def test_agent_line_form_keeps_apostrophes_and_question_marks(shell):
    provider = scripted(shell, "Fine.", "Sunny.")
    shell.user_ns["city"] = "Paris"
    run(shell, "%agent --model gpt-4o-mini -o r What's the weather in {city}?")
    assert shell.user_ns["r"].content == "Fine."
    request = provider.requests[0]
    assert request.model == "gpt-4o-mini"
    assert request.messages[-1].text == "What's the weather in Paris?"
    run(shell, "x = 1\n%agent -o r2 And tomorrow?\ny = 2")
    assert shell.user_ns["r2"].content == "Sunny." and shell.user_ns["y"] == 2
    assert provider.requests[1].messages[-1].text == "And tomorrow?"


def test_agent_cell_options_build_the_agent(shell):
    run(shell, "%%tool\n" + PRICE_CELL)
    run(shell, '%%tool\ndef other(x: str) -> str:\n    """Other."""\n    return x\n')
    shell.user_ns["tone"] = "terse"
    provider = scripted(
        shell,
        tool_call("get_price", product="laptop"),
        tool_call("get_price", product="phone"),
        "never",
    )
    run(shell, '%%agent --tools get_price --system "Be {tone}." --max-iterations 2 -o r\nprices?')
    result = shell.user_ns["r"]
    assert result.stop_reason == "max_iterations" and result.iterations == 2
    assert provider.requests[0].tools == ["get_price"]
    assert provider.requests[0].system_prompt.startswith("Be terse.")
    scripted(shell, "no tools", name="second")
    run(shell, "%%agent --tools '' -o r\nhello")
    assert shell.user_ns["r"].content == "no tools"


def test_agent_cell_with_an_existing_agent(shell):
    provider = ScriptedProvider(["From my agent."])
    shell.user_ns["mine"] = Agent(provider=provider)
    run(shell, "%%agent mine -o r\nhello")
    assert shell.user_ns["r"].content == "From my agent."
    provider.add("Again.")
    run(shell, "%%agent --agent mine -o r\nhello")
    assert shell.user_ns["r"].content == "Again."


def test_format_markdown_and_json_show_the_answer_on_its_own(shell):
    scripted(shell, "# Title\n\n*bold*", '{"price": 999}', "not json")
    run(shell, "%%agent --format markdown\nmd")
    answer = final_outputs(shell)[-1]
    assert answer["data"]["text/markdown"] == "# Title\n\n*bold*"
    assert "*bold*" not in final_outputs(shell)[-2]["data"]["text/plain"]  # not repeated above
    run(shell, "%%agent --format json\njson")
    assert final_outputs(shell)[-1]["data"]["application/json"] == {"price": 999}
    run(shell, "%%agent --format json\nbad")
    last = final_outputs(shell)[-1]["data"]
    assert "not json" in last["text/plain"] and "not valid JSON" in last["text/plain"]


def test_memory_keeps_the_conversation_across_cells(shell):
    provider = scripted(shell, "Nice to meet you.", "You are Ada.", "No memory here.")
    run(shell, "%%agent --memory\nI am Ada.")
    run(shell, "%%agent --memory\nWho am I?")
    assert [m.text for m in provider.requests[1].messages] == [
        "I am Ada.",
        "Nice to meet you.",
        "Who am I?",
    ]
    run(shell, "%%agent --memory=other\nWho am I?")
    assert [m.text for m in provider.requests[2].messages] == ["Who am I?"]


def test_response_format_parses_the_answer(shell):
    run(
        shell,
        "from pydantic import BaseModel\nclass Quote(BaseModel):\n    product: str\n    price: float\n",
    )
    scripted(shell, '{"product": "laptop", "price": 999}')
    run(shell, "%%agent --response-format Quote -o q\nQuote a laptop.")
    parsed = shell.user_ns["q"].parsed
    assert type(parsed).__name__ == "Quote" and parsed.price == 999.0
    assert "Parsed output" in final_outputs(shell)[-1]["data"]["text/html"]


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("%%agent --modle x\nhi", "unknown option --modle (did you mean --model?)"),
        ("%%agent\nhi {missing}", "{missing} names 'missing', which is not defined"),
        ("%%agent nobody\nhi", "'nobody' is not defined, not an Agent"),
        ("%%agent --agent PRICES\nhi", "'PRICES' is a dict, not an Agent"),
        ("%%agent --tools get_price,nope\nhi", "unknown tool 'nope'"),
        ("%%agent --max-iterations many\nhi", "--max-iterations needs a whole number"),
        ("%%agent --max-iterations 0\nhi", "--max-iterations must be 1 or more"),
        ("%%agent --format yaml\nhi", "--format must be one of text, markdown, json"),
        ("%%agent --provider nowhere\nhi", "unknown provider 'nowhere'"),
        ("%%agent --provider PRICES\nhi", "'PRICES' is a dict, not a provider"),
        ("%%agent --response-format Missing\nhi", "'Missing' is not defined"),
        ("%%agent --response-format item\nhi", "needs a class"),
        ("%%agent -o 1bad\nhi", "-o needs a variable name"),
        ("%%agent --model\nhi", "--model needs a value"),
        ("%%agent\n   ", "the prompt is empty"),
        ("%agent --model x", "give a prompt after the options"),
        ("%%agent a b\nhi", "unexpected extra argument 'b'"),
    ],
)
def test_bad_agent_input_gives_one_line_and_runs_nothing(shell, capsys, cell, message):
    run(shell, "%%tool\n" + PRICE_CELL)
    shell.user_ns["item"] = "laptop"
    provider = scripted(shell, "should not run")
    capsys.readouterr()
    line = usage_error(shell, cell, capsys)
    assert message in line
    assert provider.calls == 0
    assert not [
        o
        for o in shell.outputs
        if "text/html" in o["data"] and "selectools-run" in o["data"]["text/html"]
    ]


def test_existing_agent_rejects_build_options(shell, capsys):
    shell.user_ns["mine"] = Agent(provider=ScriptedProvider(["x"]))
    line = usage_error(shell, "%%agent mine --model gpt-4o --memory\nhi", capsys)
    assert "--model, --memory describe a new agent" in line


def test_display_text_prints_the_stream(shell, capsys):
    shell.run_line_magic("selectools", "display=text")
    run(shell, "%%tool\n" + PRICE_CELL)
    assert "Tool get_price(product: str)" in capsys.readouterr().out
    scripted(
        shell, reply("Looking.", tool_call("get_price", product="phone")), "A phone costs $699."
    )
    run(shell, "%%agent\nphone?")
    out = capsys.readouterr().out
    assert "Looking." in out and "A phone costs $699." in out
    assert '[tool] get_price({"product": "phone"}) → $699' in out
    assert out.rstrip().splitlines()[-1].startswith("[final · 2 iterations · 1 tool call")
    assert not shell.outputs


def test_final_render_is_deterministic(shell):
    renders = []
    for _ in range(2):
        run(shell, "%%tool\n" + PRICE_CELL)
        scripted(
            shell,
            reply("Checking.", tool_call("get_price", product="laptop")),
            "A laptop costs $999.",
        )
        shell.outputs.clear()
        run(shell, "%%agent\nWhat does a laptop cost?")
        final = final_outputs(shell)[-1]["data"]
        renders.append((final["text/plain"], sanitize(final["text/html"])))
    assert renders[0] == renders[1]
    assert "0x" not in renders[0][1] and "st-ms" not in renders[0][1]


def test_run_errors_from_the_core_are_one_line(shell, capsys):
    from selectools.exceptions import UnknownToolError

    class Exploding:
        name = "exploding"

        def complete(self, **kwargs):
            raise UnknownToolError("x", [])

        def stream(self, **kwargs):
            raise UnknownToolError("x", [])
            yield ""  # pragma: no cover - makes this a generator

    shell.user_ns["boom"] = Exploding()
    line = usage_error(shell, "%%agent --provider boom\nhi", capsys)
    assert "the run failed: UnknownToolError" in line
    view = final_outputs(shell)[-1]["data"]
    assert "stopped" in view["text/html"] and "UnknownToolError" in view["text/plain"]


def test_memory_option_uses_conversation_memory(shell):
    scripted(shell, "ok")
    run(shell, "%%agent --memory=chat\nhi")
    magics = shell.magics_manager.registry["SelectoolsMagics"]
    assert isinstance(magics.state.memories["chat"], ConversationMemory)


def test_auto_picks_a_provider_whose_key_is_set(shell, monkeypatch):
    import selectools
    from selectools.notebook.providers import build_provider

    assert "OpenAIProvider" in selectools.__all__
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    assert "provider: auto → openai" in repr(shell.run_line_magic("selectools", ""))
    provider = build_provider("auto", shell.user_ns)
    assert type(provider).__name__ == "OpenAIProvider"  # built, no request made


def test_selectools_help_names_every_registered_provider():
    from selectools.notebook.magics import SelectoolsMagics
    from selectools.notebook.providers import PROVIDERS

    doc = " ".join(SelectoolsMagics.selectools.__doc__.split())
    for name in PROVIDERS:
        assert name in doc, name
