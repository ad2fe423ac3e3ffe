"""The open tool seam: a tool that is not a ``Tool`` (no subclass, no @tool) runs through the whole loop.

``RemoteLookup`` stands for an MCP or remote tool: it implements
:class:`selectools.tools.ToolLike` by hand. The agent offers it to the model,
reviews its calls with a ToolPolicy, asks the approval handler (which edits
the arguments, checked by the tool's own ``validate``), runs it, and ends the
run when it is terminal; in ``run()`` and in ``arun()``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from selectools import Agent, AgentConfig, ToolConfig, ToolPolicy
from selectools.exceptions import ToolValidationError
from selectools.testing import ScriptedProvider, tool_call
from selectools.tools import Tool, ToolLike, ToolRegistry, tool


class RemoteLookup:
    """A hand-written tool: a price table behind a 'remote' call."""

    name = "remote_price"
    description = "Look up a price on the remote catalogue."
    requires_approval = False

    def __init__(self, *, terminal: bool = False) -> None:
        self.terminal = terminal
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def schema(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "parameters": {
                "type": "object",
                "properties": {"product": {"type": "string", "description": "what to price"}},
                "required": ["product"],
            },
        }

    def validate(self, params: Mapping[str, Any] | None) -> None:
        if not isinstance((params or {}).get("product"), str):
            raise ToolValidationError(self.name, "product", "product must be a string")

    def execute(self, params: Mapping[str, Any] | None, chunk_callback: Any = None) -> str:
        self.validate(params)
        assert params is not None
        self.calls.append(("sync", dict(params)))
        return f"{params['product']}: $5"

    async def aexecute(self, params: Mapping[str, Any] | None, chunk_callback: Any = None) -> str:
        self.validate(params)
        assert params is not None
        await asyncio.sleep(0)
        self.calls.append(("async", dict(params)))
        return f"{params['product']}: $5"


def test_a_plain_class_is_a_tool_like_and_a_tool_is_one_too():
    assert isinstance(RemoteLookup(), ToolLike)
    assert not issubclass(RemoteLookup, Tool)

    @tool()
    def f(x: str) -> str:
        """F."""
        return x

    assert isinstance(f, ToolLike)
    assert not isinstance(lambda x: x, ToolLike)


def _agent(remote: RemoteLookup, seen: list[Any]) -> tuple[Agent, ScriptedProvider]:
    def handler(request: Any) -> bool:
        seen.append((request.tool_name, request.reason))
        with pytest.raises(ToolValidationError):  # the tool's own validate checks edits
            request.approve(tool_args={"product": 42})
        request.approve(tool_args={"product": "phone"}, by="reviewer")
        return True

    provider = ScriptedProvider([tool_call("remote_price", product="laptop"), "done"])
    config = AgentConfig(
        tool_policy=ToolPolicy(review=["remote_*"]),
        tool=ToolConfig(approval_handler=handler),
    )
    return Agent(tools=[remote], provider=provider, config=config), provider


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_agent_runs_a_tool_like_through_policy_and_approval(mode):
    remote, seen = RemoteLookup(), []
    agent, provider = _agent(remote, seen)
    result = agent.run("price?") if mode == "sync" else asyncio.run(agent.arun("price?"))
    assert seen == [("remote_price", "'remote_price' matches review rule 'remote_*'")]
    assert remote.calls == [(mode, {"product": "phone"})]  # the approved edit ran
    assert provider.requests[0].tools == ["remote_price"]
    assert provider.requests[1].messages[-1].content == "phone: $5"
    assert result.content == "done"
    decision = result.trace.filter(type="policy_decision")
    assert [step.data["edited_args"] for step in decision if "edited_args" in step.data] == [
        {"product": "phone"}
    ]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_terminal_tool_like_ends_the_run(mode):
    remote = RemoteLookup(terminal=True)
    provider = ScriptedProvider([tool_call("remote_price", product="pen"), "never asked"])
    agent = Agent(tools=[remote], provider=provider)
    result = agent.run("price?") if mode == "sync" else asyncio.run(agent.arun("price?"))
    assert result.content == "pen: $5"
    assert len(provider.requests) == 1


def test_a_tool_like_without_native_tools_is_described_by_its_schema():
    agent = Agent(tools=[RemoteLookup()])  # LocalProvider: the text tool contract
    assert '"name": "remote_price"' in agent.system_prompt
    assert "what to price" in agent.system_prompt


def test_agent_tools_are_a_registry_with_one_replace_rule():
    remote = RemoteLookup()

    @tool()
    def remote_price(product: str) -> str:
        """Local stand-in."""
        return product

    @tool()
    def other(x: str) -> str:
        """Other."""
        return x

    with pytest.raises(ValueError, match="two tools are named 'remote_price'"):
        Agent(tools=[remote, remote_price])
    agent = Agent(tools=[remote, other])
    assert agent.add_tool(remote_price) is remote_price
    assert [t.name for t in agent.tools] == ["remote_price", "other"]  # replaced in place
    assert agent.tools[0] is remote_price
    assert agent.remove_tool("remote_price") is remote_price
    assert [t.name for t in agent.tools] == ["other"]
    with pytest.raises(TypeError, match="tools must be Tool objects"):
        Agent(tools=[42])
    registry = ToolRegistry([remote])
    assert remote in registry and "remote_price" in registry
    assert registry.get("remote_price") is remote
