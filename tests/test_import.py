"""``import selectools`` stays light: no provider SDK, no notebook stack, no asyncio."""

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
    assert "selectools._view.render" in loaded
    assert not [m for m in loaded if m.startswith("selectools.notebook")]
    assert not [m for m in HEAVY if m in loaded]
