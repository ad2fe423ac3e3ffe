"""Rich display of the core types: deterministic text/html, short text/plain, collapsible details."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from selectools import Agent, AgentConfig, Message, Role, tool
from selectools._display import mimebundle
from selectools.testing import ScriptedProvider, reply, tool_call
from selectools.trace import AgentTrace, StepType, TraceStep
from selectools.usage import AgentUsage, UsageStats

from .conftest import sanitize

ROOT = Path(__file__).resolve().parents[2]
ADDRESS = re.compile(r"0x[0-9a-f]{6,}")


@tool()
def get_price(product: str, currency: str = "USD") -> str:
    """Look up the price of a product.

    Args:
        product: what to price
        currency: ISO code of the currency
    """
    if product == "boom":
        raise ValueError("no such product")
    return {"laptop": "$999"}.get(product, "unknown")


def _run(system_prompt: str | None = None):
    provider = ScriptedProvider(
        [
            reply(
                "Let me check.",
                tool_call("get_price", product="laptop"),
                tool_call("get_price", product="boom"),
            ),
            "A laptop costs $999.",
        ]
    )
    agent = Agent(tools=[get_price], provider=provider, system_prompt=system_prompt)
    return agent, agent.run("What does a laptop cost?")


def _objects():
    agent, result = _run("Be brief.")
    return [
        result,
        result.message,
        result.trace,
        result.usage,
        result.usage.iterations[0],
        get_price,
        agent,
        Message(role=Role.USER, content="hi"),
    ]


def test_every_core_type_has_plain_and_html_without_ids_or_addresses():
    for obj in _objects():
        bundle = obj._repr_mimebundle_()
        assert set(bundle) == {"text/plain", "text/html"}, type(obj)
        for text in bundle.values():
            assert not ADDRESS.search(text), (type(obj), text[:200])
        if getattr(obj, "run_id", None):
            assert obj.run_id not in bundle["text/html"] and obj.run_id not in bundle["text/plain"]
        assert "\n" not in bundle["text/plain"] or len(bundle["text/plain"]) < 700


def test_renders_are_deterministic_apart_from_sanitized_durations():
    first = [o._repr_mimebundle_() for o in _objects()]
    second = [o._repr_mimebundle_() for o in _objects()]
    for a, b in zip(first, second, strict=True):
        assert a["text/plain"] == b["text/plain"]
        assert sanitize(a["text/html"]) == sanitize(b["text/html"])


def test_include_and_exclude_filter_the_bundle():
    result = _run()[1]
    assert set(result._repr_mimebundle_(include={"text/plain"})) == {"text/plain"}
    assert set(result._repr_mimebundle_(exclude={"text/plain"})) == {"text/html"}


def test_result_shows_answer_tool_cards_errors_and_collapsible_details():
    result = _run()[1]
    bundle = mimebundle(result)
    assert bundle["text/plain"].startswith("AgentResult: final · 2 iterations · 2 tool calls")
    assert bundle["text/plain"].endswith("A laptop costs $999.")
    html = bundle["text/html"]
    assert "A laptop costs $999." in html
    assert html.count("<details") >= 5  # tool calls, each card, reasoning, usage, trace
    for section in ("Tool calls (2)", "Reasoning", "Usage and cost", "Trace ("):
        assert section in html
    assert "no such product" in html  # the failed call's error
    assert "rgba(218, 54, 51" in html  # ... drawn in the error colour
    assert "Let me check." in html  # reasoning


def test_result_of_a_failed_run_shows_the_error():
    from selectools.exceptions import ProviderError

    provider = ScriptedProvider([ProviderError("quota exhausted", retryable=False)])
    result = Agent(provider=provider).run("hi")
    html = mimebundle(result)["text/html"]
    assert "provider_error" in html and "quota exhausted" in html


def test_tool_view_has_signature_parameters_source_and_schema():
    bundle = mimebundle(get_price)
    assert bundle["text/plain"] == (
        "Tool get_price(product: str, currency: str = …): Look up the price of a product."
    )
    html = bundle["text/html"]
    assert "ISO code of the currency" in html and "def get_price" in html and "JSON schema" in html


def test_agent_usage_trace_and_message_views():
    agent, result = _run("Be brief.")
    assert mimebundle(agent)["text/plain"] == (
        "Agent 'agent' · provider scripted · model scripted · tools: get_price"
    )
    assert "Be brief." in mimebundle(agent)["text/html"]
    usage = mimebundle(result.usage)
    assert usage["text/plain"].startswith("AgentUsage: 2 calls · ")
    assert "get_price" in usage["text/html"]  # per-tool usage
    stats = mimebundle(UsageStats(prompt_tokens=10, completion_tokens=5, model="m", cost_usd=0.5))
    assert stats["text/plain"] == "UsageStats: m · 15 tokens (10 prompt + 5 completion) · $0.5000"
    trace = mimebundle(result.trace)
    assert trace["text/plain"].startswith("AgentTrace: ")
    assert "2 tool calls, 1 error)" in trace["text/plain"]
    message = mimebundle(Message(role=Role.ASSISTANT, content="x", tool_calls=result.tool_calls))
    assert "get_price" in message["text/plain"] and "get_price" in message["text/html"]


def test_long_traces_are_capped_with_a_pointer_to_the_dataframe():
    trace = AgentTrace()
    for i in range(450):
        trace.add(TraceStep(StepType.LLM_CALL, trace.started_at + i, trace.started_at + i + 0.5))
    html = mimebundle(trace)["text/html"]
    assert "250 more steps: use trace.to_dataframe()" in html
    assert html.count("<tr>") == 201  # header + 200 rows


def test_multimodal_and_tool_messages():
    from selectools.types import ContentPart

    message = Message(
        role=Role.USER,
        content=[
            ContentPart(type="text", text="look"),
            ContentPart(type="image_url", image_url="http://x/y.png"),
        ],
    )
    assert "look\n[image_url]" in mimebundle(message)["text/html"]
    tool_message = Message(role=Role.TOOL, content="$999", tool_name="get_price", is_error=True)
    assert mimebundle(tool_message)["text/plain"] == "tool (get_price): $999"


def test_unknown_objects_are_a_type_error():
    with pytest.raises(TypeError, match="int has no view"):
        mimebundle(3)


def test_agent_usage_empty_and_config_values():
    assert mimebundle(AgentUsage())["text/plain"].startswith("AgentUsage: 0 calls")
    agent = Agent(config=AgentConfig(max_iterations=3))
    assert (
        '<td style="text-align: left; padding: 1px 8px;">3</td>' in mimebundle(agent)["text/html"]
    )


def test_rendering_imports_no_notebook_stack():
    code = (
        "import sys, json\n"
        "from selectools import Agent\n"
        "from selectools.testing import ScriptedProvider\n"
        "r = Agent(provider=ScriptedProvider(['hi'])).run('x')\n"
        "r._repr_mimebundle_(); r.trace._repr_mimebundle_()\n"
        "print(json.dumps([m for m in ('IPython', 'pandas', 'plotly') if m in sys.modules]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    ).stdout
    assert json.loads(out.splitlines()[-1]) == []


def test_trace_steps_and_tool_calls_display_like_every_core_type():
    """They used to show HTML only after ``%load_ext``; now they carry the same bundle."""
    _, result = _run()
    step = result.trace.filter(StepType.TOOL_EXECUTION)[1]
    bundle = step._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    assert re.fullmatch(
        r"TraceStep: tool_execution get_price · lane \d · error", bundle["text/plain"]
    )
    assert "no such product" in bundle["text/html"] and "get_price" in bundle["text/html"]
    llm = mimebundle(result.trace.filter(StepType.LLM_CALL)[0])["text/plain"]
    assert llm.startswith("TraceStep: llm_call ") and " tokens · ok" in llm
    call = result.tool_calls[0]
    shown = call._repr_mimebundle_()
    assert shown["text/plain"] == '[tool] get_price({"product": "laptop"})'
    assert "get_price" in shown["text/html"] and "laptop" in shown["text/html"]
    assert ADDRESS.search(shown["text/plain"] + bundle["text/plain"]) is None


def test_a_subclass_shows_with_its_base_types_view():
    class Assistant(Agent):
        pass

    agent = Assistant(tools=[get_price], provider=ScriptedProvider(["hi"]))
    assert mimebundle(agent)["text/plain"].startswith("Agent 'agent' · provider scripted")


def test_asking_for_a_kind_a_type_lacks_names_the_kinds_it_has():
    from selectools._display import render

    with pytest.raises(TypeError, match="Message has no 'dataframe' view; it has: html, text"):
        render(Message(role=Role.USER, content="hi"), "dataframe")
