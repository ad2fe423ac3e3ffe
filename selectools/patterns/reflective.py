"""``ReflectiveAgent``: an actor drafts, a critic reviews, the actor revises until approved."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..orchestration import AgentGraph, GraphResult, GraphState
from ._common import new_graph, prompt_input, recording_output

__all__ = ["ReflectionRound", "ReflectiveAgent", "ReflectiveResult"]


@dataclass
class ReflectionRound:
    """One draft, the critic's critique of it, and whether the critic approved."""

    round_number: int
    draft: str
    critique: str
    approved: bool


@dataclass
class ReflectiveResult:
    """The final draft and every round; ``content`` is the final draft."""

    final_draft: str
    rounds: list[ReflectionRound] = field(default_factory=list)
    approved: bool = False
    graph_result: GraphResult | None = None

    @property
    def total_rounds(self) -> int:
        return len(self.rounds)

    @property
    def content(self) -> str:
        return self.final_draft


class ReflectiveAgent:
    """An actor drafts and a critic reviews, until the critique contains ``stop_condition``.

    At most ``max_reflections`` rounds; ``run(task)`` returns a :class:`ReflectiveResult`.
    """

    def __init__(
        self,
        actor: Any,
        critic: Any,
        max_reflections: int = 3,
        stop_condition: str = "approved",
        observers: list[Any] | None = None,
        cancellation_token: Any = None,
    ) -> None:
        if max_reflections < 1:
            raise ValueError("max_reflections must be at least 1")
        self.actor, self.critic = actor, critic
        self.max_reflections = max_reflections
        self.stop_condition = stop_condition.lower()
        self.observers = observers
        self.cancellation_token = cancellation_token

    def _graph(self) -> AgentGraph:
        graph = new_graph("reflective", self.observers, self.cancellation_token)

        def actor_prompt(state: GraphState) -> str:
            task: str = state.data["task"]
            rounds = state.data["rounds"]
            if not rounds:
                return task
            last = rounds[-1]
            return (
                f"{task}\n\nYour previous draft:\n{last['draft']}\n\nCritique:\n{last['critique']}\n\n"
                "Revise the draft to address the critique."
            )

        def draft(text: str, state: GraphState) -> None:
            state.data["draft"] = text

        def critique(text: str, state: GraphState) -> None:
            approved = self.stop_condition in text.lower()
            state.data["rounds"] = [
                *state.data["rounds"],
                {"draft": state.data["draft"], "critique": text, "approved": approved},
            ]
            state.last_output = state.data["draft"]

        graph.add_node(
            "actor",
            self.actor,
            input_transform=prompt_input(actor_prompt),
            output_transform=recording_output("actor", draft),
        )
        graph.add_node(
            "critic",
            self.critic,
            input_transform=prompt_input(
                lambda s: (
                    f"Task: {s.data['task']}\n\nDraft:\n{s.data['draft']}\n\n"
                    f"Give feedback. Say '{self.stop_condition}' when satisfied."
                )
            ),
            output_transform=recording_output("critic", critique),
        )
        graph.add_edge("actor", "critic")
        graph.add_conditional_edge(
            "critic",
            lambda s: (
                AgentGraph.END
                if s.data["rounds"][-1]["approved"] or len(s.data["rounds"]) >= self.max_reflections
                else "actor"
            ),
        )
        return graph

    def _result(self, graph_result: GraphResult) -> ReflectiveResult:
        rounds = [
            ReflectionRound(i, r["draft"], r["critique"], r["approved"])
            for i, r in enumerate(graph_result.state.data.get("rounds", []))
        ]
        return ReflectiveResult(
            graph_result.state.data.get("draft", ""),
            rounds,
            bool(rounds and rounds[-1].approved),
            graph_result,
        )

    def _state(self, prompt: str) -> GraphState:
        state = GraphState.from_prompt(prompt)
        state.data.update(task=prompt, rounds=[])
        return state

    def run(self, prompt: str) -> ReflectiveResult:
        return self._result(self._graph().run(self._state(prompt)))

    async def arun(self, prompt: str) -> ReflectiveResult:
        return self._result(await self._graph().arun(self._state(prompt)))
