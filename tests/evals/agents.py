"""Agents for the eval tests: offline models whose answers the test decides."""

from __future__ import annotations

from selectools import Agent, AgentConfig, tool
from selectools.testing import ScriptedProvider


@tool()
def search(query: str) -> str:
    """Search the docs."""
    return f"results for {query}"


@tool()
def cancel_subscription(user_id: str) -> str:
    """Cancel a user subscription."""
    return f"Subscription cancelled for {user_id}"


def answers(table: dict[str, object], default: str = "I don't know"):
    """A model that answers by the user's prompt; a tool result is echoed back as the answer."""

    def model(request):
        last = request.last_message
        if last is not None and last.role.value == "tool":
            return f"Done: {last.content}"
        prompt = last.content if last is not None else ""
        reply = table.get(prompt, default)
        return reply() if callable(reply) else reply

    return model


def make_agent(table: dict[str, object], **provider_options) -> Agent:
    return Agent(
        tools=[search, cancel_subscription],
        provider=ScriptedProvider(answers(table), **provider_options),
        config=AgentConfig(model="gpt-4o-mini"),
    )
