"""Side model calls (summary, coherence check, extraction) share one helper; providers have one namer.

The behaviour tests run real agents against providers written to the documented
protocol; the last two read the package's source, the way ``tests/test_layering.py``
does, so the copied boilerplate cannot grow back.
"""

from __future__ import annotations

import ast
from pathlib import Path

from selectools import Agent, AgentConfig, ConversationMemory, EntityMemory, Message, Role
from selectools.coherence import check_coherence
from selectools.testing import ScriptedProvider

PACKAGE = Path(__file__).resolve().parents[2] / "selectools"


class Nameless:
    """A provider written to the protocol's methods but without the ``name`` attribute."""

    def __init__(self, text: str = "ok") -> None:
        self.text = text

    def complete(self, *, model, system_prompt, messages, tools=None, **_):
        return Message(role=Role.ASSISTANT, content=self.text), None


def test_a_provider_without_a_name_is_named_by_its_class_in_usage() -> None:
    result = Agent(provider=Nameless()).run("hi")
    assert [u.provider for u in result.usage.iterations] == ["Nameless"]
    assert repr(Agent(provider=Nameless())).startswith("Agent(name=")
    assert "provider='Nameless'" in repr(Agent(provider=Nameless()))


def test_a_side_call_without_reported_usage_still_records_its_model_and_counts_nothing() -> None:
    summarizer = Nameless("the user said two things")
    agent = Agent(
        provider=ScriptedProvider(default="ok"),
        memory=ConversationMemory(max_messages=2),
        config=AgentConfig(
            summarize_on_trim=True, summarize_provider=summarizer, summarize_model="cheap"
        ),
    )
    agent.run("one")
    result = agent.run("two")
    step = result.trace.filter(type="memory_summarize")[0]
    assert (step.model, step.prompt_tokens, step.cost_usd) == ("cheap", 0, 0.0)
    # only the run's own model call is counted; the summary reported no usage
    assert len(result.usage.iterations) == 1


def test_extraction_outside_a_run_uses_the_memory_s_model_or_the_provider_default() -> None:
    provider = ScriptedProvider(default='[{"name": "Ada", "entity_type": "person"}]', model="m0")
    found = EntityMemory(provider=provider).extract_entities("Ada wrote the first program")
    assert [e.name for e in found] == ["Ada"]
    assert provider.requests[0].model == "m0"  # "" asks for the provider's default
    EntityMemory(provider=provider, extraction_model="m1").extract_entities("Ada")
    assert provider.requests[1].model == "m1"


def test_the_blocking_coherence_check_fails_open_through_the_helper() -> None:
    class Down:
        name = "down"

        def complete(self, **_):
            raise ConnectionError("no route")

    verdict = check_coherence(Down(), "m", "read my mail", "send_email", {"to": "x"})
    assert verdict.coherent and verdict.failed_open
    assert "ConnectionError: no route" in verdict.explanation


def _calls(path: Path) -> list[ast.Call]:
    return [n for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Call)]


def test_only_the_side_call_helper_sends_a_model_call_to_another_provider() -> None:
    """``CallLLM(request, stream, provider)`` is built in one module."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        for call in _calls(path):
            name = getattr(call.func, "id", getattr(call.func, "attr", None))
            if name == "CallLLM" and (len(call.args) > 2 or call.keywords):
                found.append(f"{path.relative_to(PACKAGE)}:{call.lineno}")
    assert [f.split(":")[0] for f in found] == ["_side_call.py"], found


def test_providers_are_named_in_one_place() -> None:
    """``getattr(provider, "name", ...)`` only in ``providers.base.provider_label``."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        for call in _calls(path):
            if (
                getattr(call.func, "id", None) == "getattr"
                and len(call.args) >= 2
                and isinstance(call.args[1], ast.Constant)
                and call.args[1].value == "name"
                and "provider" in ast.unparse(call.args[0])
            ):
                found.append(f"{path.relative_to(PACKAGE)}:{call.lineno}")
    assert [f.split(":")[0] for f in found] == ["providers/base.py"], found
