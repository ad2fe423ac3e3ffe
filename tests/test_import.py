"""``import selectools`` stays light: no provider SDK, no notebook stack, no asyncio.

The first useful import (``from selectools import Agent, tool``) has a budget
(``benchmarks/bench_overhead.py``: at most 60 ms in-process). These tests lock
it in by the modules loaded, not by a time: the heavy stdlib modules and the
feature modules load when a feature is used, never on import or on a plain run.
"""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = [
    "IPython",
    "ipywidgets",
    "anywidget",
    "pandas",
    "plotly",
    "openai",
    "anthropic",
    "httpx",
    "pydantic",
]


def _modules_after(code: str) -> set[str]:
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    output = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    ).stdout
    return set(json.loads(output.splitlines()[-1]))


def test_import_selectools_loads_nothing_heavy():
    loaded = _modules_after("import selectools")
    assert not [m for m in HEAVY if m in loaded]
    assert "asyncio" not in loaded
    assert not any(name.startswith("selectools.agent") for name in loaded)


def test_building_and_running_an_agent_loads_no_sdk_or_notebook_module():
    loaded = _modules_after(
        "from selectools import Agent, tool\n"
        "@tool()\n"
        "def f(x: str) -> str:\n"
        "    '''Echo.'''\n"
        "    return x\n"
        "Agent(tools=[f]).run('hi')"
    )
    assert not [m for m in HEAVY if m in loaded]


# stdlib modules that cost milliseconds each (asyncio alone ~20 ms with ssl,
# socket, subprocess) and that neither the import nor a sync run needs
HEAVY_STDLIB = [
    "asyncio",
    "concurrent.futures",
    "ssl",
    "socket",
    "subprocess",
    "selectors",
    "uuid",
    "platform",
    "csv",
    "logging",
    "hashlib",
    "difflib",
    "textwrap",
    "urllib.parse",
    "ipaddress",
    "mimetypes",
    "pathlib",
    "base64",
    "queue",
]
# features a plain ``Agent(...).run()`` never uses: loaded once configured
FEATURE_MODULES = [
    "selectools.agent._batch",
    "selectools.agent._approval_gate",
    "selectools.approval",
    "selectools.policy",
    "selectools.cache",
    "selectools.memory",
    "selectools.analytics",
    "selectools.structured",
    "selectools._jsonschema",
    "selectools.sessions",
]

SYNC_RUNS = '''
from selectools import Agent, Message, Role, ToolCall, tool
from selectools.providers.stubs import LocalProvider

@tool()
def search(query: str) -> str:
    """Search for information.

    Args:
        query: what to look for
    """
    return "Results for: " + query

class OneToolCall:
    """A provider written to the documented protocol: one tool call, then text."""

    name = "protocol"

    def __init__(self):
        self.calls = 0

    def complete(self, *, model, system_prompt, messages, tools=None,
                 temperature=0.0, max_tokens=1000, timeout=None):
        self.calls += 1
        if self.calls == 1:
            call = ToolCall(tool_name="search", parameters={"query": "py"}, id="c1")
            return Message(role=Role.ASSISTANT, content="", tool_calls=[call]), None
        return Message(role=Role.ASSISTANT, content="done"), None

assert Agent(tools=[search], provider=LocalProvider()).run("hi").content
result = Agent(tools=[search], provider=OneToolCall()).run("find")
assert result.content == "done"
assert [s.tool_name for s in result.trace.steps if s.type == "tool_execution"] == ["search"]
'''


def test_first_useful_import_loads_no_heavy_stdlib_or_feature_module():
    loaded = _modules_after("from selectools import Agent, tool")
    assert [m for m in HEAVY_STDLIB if m in loaded] == []
    assert [m for m in FEATURE_MODULES if m in loaded] == []
    assert not [m for m in HEAVY if m in loaded]


def test_sync_runs_load_no_asyncio_or_feature_module():
    """A plain run and a tool-call turn are sync all the way: no event loop, no thread pool."""
    loaded = _modules_after(SYNC_RUNS)
    sync_only = ["asyncio", "concurrent.futures", "ssl", "socket", "subprocess", "uuid", "csv"]
    assert [m for m in sync_only if m in loaded] == []
    assert [m for m in FEATURE_MODULES if m in loaded] == []


def test_a_configured_feature_loads_its_module_when_used():
    """The lazy loading is real loading: using the feature brings its module in."""
    loaded = _modules_after(
        "from selectools import Agent, AgentConfig\n"
        "agent = Agent(config=AgentConfig(enable_analytics=True))\n"
        "agent.batch(['a', 'b'])\n"
        "agent.run('x', response_format={'type': 'object'})\n"
    )
    for name in ("selectools.analytics", "selectools.agent._batch", "selectools.structured"):
        assert name in loaded, name


def test_public_names_resolve():
    import selectools

    for name in selectools.__all__:
        assert getattr(selectools, name) is not None, name


def test_rendering_a_result_and_a_trace_loads_no_notebook_module():
    """The rich reprs are core code (selectools._view): no IPython glue, pandas or plotly."""
    loaded = _modules_after(
        "from selectools import Agent\n"
        "result = Agent().run('hi')\n"
        "result._repr_mimebundle_()\n"
        "result.trace._repr_mimebundle_()\n"
        "result.usage._repr_mimebundle_()"
    )
    assert {"selectools._view.core", "selectools._view.trace"} <= loaded
    assert not [m for m in loaded if m.startswith("selectools.notebook")]
    assert not [m for m in HEAVY if m in loaded]


def test_showing_a_message_loads_only_its_own_view():
    """The view table names types, so a Message's view loads neither Agent nor other views."""
    loaded = _modules_after(
        "from selectools import Message, Role\n"
        "Message(role=Role.USER, content='hi')._repr_mimebundle_()"
    )
    assert "selectools._view.core" in loaded
    assert not [m for m in loaded if m.startswith("selectools.agent")]
    assert not [
        m
        for m in loaded
        if m.startswith("selectools._view.")
        and m.endswith(("agent", "graph_view", "evals", "pipeline"))
    ]
