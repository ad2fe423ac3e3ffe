"""``PlanAndExecuteAgent``: a planner writes typed steps, named executors run them in order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..orchestration import AgentGraph, ErrorPolicy, GraphResult, GraphState
from ._common import json_value, new_graph, prompt_input, recording_output

__all__ = ["PlanAndExecuteAgent", "PlanStep"]

PLANNER = "planner"


@dataclass(frozen=True)
class PlanStep:
    """One step of a plan: which executor runs which task."""

    executor: str
    task: str


class PlanAndExecuteAgent:
    """``run`` returns a ``GraphResult``; ``last_plan`` holds the steps the last run followed.

    A plan that is not a JSON list of ``{"executor", "task"}`` with known executors
    falls back to every executor in order on the original prompt. With
    ``replanner=True`` a failing step sends the run back to the planner (with the
    error and the steps done so far) up to ``max_replan_attempts`` times.
    """

    def __init__(
        self,
        planner: Any,
        executors: dict[str, Any],
        replanner: bool = False,
        max_replan_attempts: int = 2,
        observers: list[Any] | None = None,
        cancellation_token: Any = None,
        max_cost_usd: float | None = None,
    ) -> None:
        if not executors:
            raise ValueError("PlanAndExecuteAgent needs at least one executor")
        if PLANNER in executors:
            raise ValueError(f"{PLANNER!r} is the planner's node name; rename that executor")
        self.planner, self.executors = planner, dict(executors)
        self.replanner, self.max_replan_attempts = replanner, max_replan_attempts
        self.observers, self.cancellation_token = observers, cancellation_token
        self.max_cost_usd = max_cost_usd
        self.last_plan: list[PlanStep] = []

    def _plan_prompt(self, state: GraphState) -> str:
        roster = ", ".join(self.executors)
        text = (
            f"Task: {state.data['task']}\nExecutors: {roster}\n"
            'Reply with a JSON list: [{"executor": "<name>", "task": "<what to do>"}].'
        )
        if state.data.get("failure"):
            done = "\n".join(f"- {o}" for o in state.data["outputs"]) or "none"
            text += (
                f"\nA step failed: {state.data['failure']}\nDone so far:\n{done}\n"
                "Plan the remaining steps."
            )
        return text

    def _parse(self, text: str, state: GraphState) -> None:
        value = json_value(text)
        steps = []
        if isinstance(value, list):
            for item in value:
                if isinstance(item, dict) and item.get("executor") in self.executors:
                    steps.append(
                        {"executor": item["executor"], "task": str(item.get("task") or "")}
                    )
        if not steps:
            steps = [{"executor": name, "task": state.data["task"]} for name in self.executors]
        state.data["plan"], state.data["step"] = steps, 0

    def _graph(self) -> AgentGraph:
        graph = new_graph(
            "plan_and_execute", self.observers, self.cancellation_token, self.max_cost_usd
        )
        graph.add_node(
            PLANNER,
            self.planner,
            input_transform=prompt_input(self._plan_prompt),
            output_transform=recording_output(PLANNER, self._parse),
        )

        def step_prompt(state: GraphState) -> str:
            task: str = state.data["plan"][state.data["step"] - 1]["task"] or state.data["task"]
            if not state.data["outputs"]:
                return task
            context = "\n\n".join(state.data["outputs"])
            return f"{task}\n\nContext from previous steps:\n{context}"

        def record(text: str, state: GraphState) -> None:
            state.data["outputs"] = [*state.data["outputs"], text]
            state.last_output = text

        policy = ErrorPolicy.SKIP if self.replanner else ErrorPolicy.ABORT
        for name, agent in self.executors.items():
            graph.add_node(
                name,
                agent,
                input_transform=prompt_input(step_prompt),
                output_transform=recording_output(name, record),
                error_policy=policy,
            )

        def route(state: GraphState) -> str:
            if len(state.errors) > state.data["errors_seen"]:
                state.data["errors_seen"] = len(state.errors)
                if state.data["replans"] < self.max_replan_attempts:
                    state.data["replans"] += 1
                    state.data["failure"] = state.errors[-1]["error"]
                    return PLANNER
                return AgentGraph.END
            plan, index = state.data["plan"], state.data["step"]
            if index >= len(plan):
                return AgentGraph.END
            state.data["step"] = index + 1
            return str(plan[index]["executor"])

        for name in [PLANNER, *self.executors]:
            graph.add_conditional_edge(name, route)
        return graph

    def _state(self, prompt: str) -> GraphState:
        state = GraphState.from_prompt(prompt)
        state.data.update(task=prompt, outputs=[], errors_seen=0, replans=0)
        return state

    def _done(self, result: GraphResult) -> GraphResult:
        self.last_plan = [
            PlanStep(s["executor"], s["task"]) for s in result.state.data.get("plan", [])
        ]
        return result

    def run(self, prompt: str) -> GraphResult:
        return self._done(self._graph().run(self._state(prompt)))

    async def arun(self, prompt: str) -> GraphResult:
        return self._done(await self._graph().arun(self._state(prompt)))
