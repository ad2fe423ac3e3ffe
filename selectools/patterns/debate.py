"""``DebateAgent``: agents argue in rounds (seeing the last round), a judge concludes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..orchestration import AgentGraph, GraphResult, GraphState
from ._common import new_graph, prompt_input, recording_output

__all__ = ["DebateAgent", "DebateResult", "DebateRound"]


@dataclass
class DebateRound:
    """What each position argued in one round (position name -> argument)."""

    round_number: int
    arguments: dict[str, str] = field(default_factory=dict)


@dataclass
class DebateResult:
    """The judge's conclusion and every round; ``content`` is the conclusion."""

    conclusion: str
    rounds: list[DebateRound] = field(default_factory=list)
    graph_result: GraphResult | None = None

    @property
    def total_rounds(self) -> int:
        return len(self.rounds)

    @property
    def content(self) -> str:
        return self.conclusion


class DebateAgent:
    """Agents argue a topic in rounds, each seeing the last round; a judge then concludes.

    ``agents`` maps a position name to its agent; ``run(topic)`` returns a :class:`DebateResult`.
    """

    def __init__(
        self,
        agents: dict[str, Any],
        judge: Any,
        max_rounds: int = 3,
        observers: list[Any] | None = None,
        cancellation_token: Any = None,
    ) -> None:
        if len(agents) < 2:
            raise ValueError("DebateAgent needs at least two agents (position name -> Agent)")
        if max_rounds < 1:
            raise ValueError("max_rounds must be at least 1")
        self.agents, self.judge = dict(agents), judge
        self.positions = list(agents)
        self.max_rounds = max_rounds
        self.observers = observers
        self.cancellation_token = cancellation_token

    @staticmethod
    def _transcript(rounds: list[dict[str, str]]) -> str:
        return "\n\n".join(
            f"Round {i + 1}:\n" + "\n".join(f"[{p}] {a}" for p, a in r.items())
            for i, r in enumerate(rounds)
        )

    def _graph(self) -> AgentGraph:
        graph = new_graph("debate", self.observers, self.cancellation_token)
        for index, position in enumerate(self.positions):

            def prompt(state: GraphState, position: str = position) -> str:
                topic, done = state.data["topic"], state.data["rounds"][:-1]
                if not done:
                    return f"Debate topic: {topic}\nYou argue as '{position}'. Give your argument."
                return (
                    f"Debate topic: {topic}\nYou argue as '{position}'. The last round:\n"
                    f"{self._transcript(done[-1:])}\n\nRespond to the other arguments."
                )

            def record(text: str, state: GraphState, position: str = position) -> None:
                state.data["rounds"][-1] = {**state.data["rounds"][-1], position: text}

            graph.add_node(
                position,
                self.agents[position],
                input_transform=prompt_input(prompt),
                output_transform=recording_output(position, record),
            )
            if index + 1 < len(self.positions):
                graph.add_edge(position, self.positions[index + 1])

        def next_round(state: GraphState) -> str:
            if len(state.data["rounds"]) >= self.max_rounds:
                return "judge"
            state.data["rounds"] = [*state.data["rounds"], {}]
            return self.positions[0]

        graph.add_conditional_edge(self.positions[-1], next_round)

        def verdict(text: str, state: GraphState) -> None:
            state.last_output = text

        graph.add_node(
            "judge",
            self.judge,
            input_transform=prompt_input(
                lambda s: (
                    f"Debate topic: {s.data['topic']}\n\n{self._transcript(s.data['rounds'])}\n\n"
                    "Synthesize a conclusion."
                )
            ),
            output_transform=recording_output("judge", verdict),
        )
        graph.set_entry(self.positions[0])
        return graph

    def _state(self, prompt: str) -> GraphState:
        state = GraphState.from_prompt(prompt)
        state.data.update(topic=prompt, rounds=[{}])
        return state

    def _result(self, graph_result: GraphResult) -> DebateResult:
        rounds = [DebateRound(i, dict(r)) for i, r in enumerate(graph_result.state.data["rounds"])]
        return DebateResult(graph_result.content, rounds, graph_result)

    def run(self, prompt: str) -> DebateResult:
        return self._result(self._graph().run(self._state(prompt)))

    async def arun(self, prompt: str) -> DebateResult:
        return self._result(await self._graph().arun(self._state(prompt)))
