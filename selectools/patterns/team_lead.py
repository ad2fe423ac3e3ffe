"""``TeamLeadAgent``: a lead splits the work, the team does it (in turn, at once, or with review)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..orchestration import AgentGraph, GraphResult, GraphState, Scatter
from ._common import json_value, new_graph, prompt_input, recording_output

__all__ = ["Subtask", "TeamLeadAgent", "TeamLeadResult"]

STRATEGIES = ("sequential", "parallel", "dynamic")


@dataclass
class Subtask:
    """A piece of the work given to one team member (``status``: pending, done or reassigned)."""

    assignee: str
    task: str
    result: str | None = None
    status: str = "pending"
    attempt: int = 0


@dataclass
class TeamLeadResult:
    """The lead's final answer and every subtask as it ended."""

    content: str
    subtasks: list[Subtask] = field(default_factory=list)
    graph_result: GraphResult | None = None

    @property
    def total_assignments(self) -> int:
        return sum(s.attempt for s in self.subtasks)


class TeamLeadAgent:
    """A malformed subtask plan gives every member the whole task; a malformed review ends the work."""

    def __init__(
        self,
        lead: Any,
        team: dict[str, Any],
        delegation_strategy: str = "dynamic",
        max_reassignments: int = 2,
        observers: list[Any] | None = None,
        cancellation_token: Any = None,
        max_cost_usd: float | None = None,
    ) -> None:
        if not team:
            raise ValueError("TeamLeadAgent needs at least one team member")
        if delegation_strategy not in STRATEGIES:
            raise ValueError(
                f"delegation_strategy must be one of {STRATEGIES}, got {delegation_strategy!r}"
            )
        clash = {"lead_plan", "lead_review", "lead_synthesize"} & set(team)
        if clash:
            raise ValueError(f"team member names {sorted(clash)} are reserved for the lead's nodes")
        self.lead, self.team = lead, dict(team)
        self.strategy, self.max_reassignments = delegation_strategy, max_reassignments
        self.observers, self.cancellation_token = observers, cancellation_token
        self.max_cost_usd = max_cost_usd

    # -- prompts and parsing -------------------------------------------------------
    def _log(self, state: GraphState) -> str:
        return "\n".join(
            f"- [{s['status']}] {s['assignee']}: {s['task']} -> {s['result'] or ''}"
            for s in state.data["subtasks"]
        )

    def _plan(self, text: str, state: GraphState) -> None:
        value = json_value(text)
        subtasks = []
        if isinstance(value, list):
            for item in value:
                if isinstance(item, dict) and item.get("assignee") in self.team:
                    subtasks.append(
                        _new(item["assignee"], str(item.get("task") or state.data["task"]))
                    )
        if not subtasks:
            subtasks = [_new(name, state.data["task"]) for name in self.team]
        state.data["subtasks"] = subtasks

    def _review(self, text: str, state: GraphState) -> None:
        value = json_value(text)
        state.data["reviews"] += 1
        items = value.get("reassignments") if isinstance(value, dict) else None
        complete = not isinstance(value, dict) or value.get("complete") is True or not items
        if not complete and state.data["reviews"] <= self.max_reassignments:
            subtasks = state.data["subtasks"]
            for item in items or []:
                if isinstance(item, dict) and item.get("assignee") in self.team:
                    for old in subtasks:
                        if old["assignee"] == item["assignee"] and old["status"] == "done":
                            old["status"] = "reassigned"
                    subtasks.append(_new(item["assignee"], str(item.get("task") or "")))
            state.data["subtasks"] = list(subtasks)
            state.data["__next__"] = "work"
            return
        synthesis = value.get("synthesis") if isinstance(value, dict) else None
        state.data["__next__"] = "done" if synthesis else "synthesize"
        if synthesis:
            state.last_output = str(synthesis)

    # -- the graph -------------------------------------------------------------------
    def _graph(self) -> AgentGraph:
        graph = new_graph(
            f"team_lead:{self.strategy}", self.observers, self.cancellation_token, self.max_cost_usd
        )
        roster = ", ".join(self.team)
        graph.add_node(
            "lead_plan",
            self.lead,
            input_transform=prompt_input(
                lambda s: (
                    f"Task: {s.data['task']}\nTeam: {roster}\n"
                    'Reply with a JSON list of subtasks: [{"assignee": "<member>", "task": "<subtask>"}].'
                )
            ),
            output_transform=recording_output("lead", self._plan),
        )
        for name, agent in self.team.items():
            graph.add_node(
                name,
                agent,
                input_transform=prompt_input(self._member_prompt),
                output_transform=recording_output(name, _record),
            )
        graph.add_node(
            "lead_synthesize",
            self.lead,
            input_transform=prompt_input(
                lambda s: (
                    f"Task: {s.data['task']}\nWork done:\n{self._log(s)}\nWrite the final result."
                )
            ),
            output_transform=recording_output("lead", _final),
        )
        graph.add_edge("lead_synthesize", AgentGraph.END)
        after_work = "lead_review" if self.strategy == "dynamic" else "lead_synthesize"
        if self.strategy == "parallel":
            graph.add_node("collect", _collect, next_node=after_work)
            for name in self.team:
                graph.add_edge(name, "collect")

            def fan_out(state: GraphState) -> Any:
                pending = [
                    i for i, s in enumerate(state.data["subtasks"]) if s["status"] == "pending"
                ]
                return [
                    Scatter(state.data["subtasks"][i]["assignee"], {"current": i}) for i in pending
                ]

            graph.add_conditional_edge("lead_plan", fan_out)
        else:

            def next_pending(state: GraphState) -> str:
                for i, subtask in enumerate(state.data["subtasks"]):
                    if subtask["status"] == "pending":
                        state.data["current"] = i
                        return str(subtask["assignee"])
                return after_work

            for name in ["lead_plan", *self.team]:
                graph.add_conditional_edge(name, next_pending)
            if self.strategy == "dynamic":
                graph.add_node(
                    "lead_review",
                    self.lead,
                    input_transform=prompt_input(
                        lambda s: (
                            f"Task: {s.data['task']}\nWork log:\n{self._log(s)}\n"
                            'Reply with JSON: {"complete": bool, "reassignments": [{"assignee": '
                            '"<member>", "task": "<subtask>"}], "synthesis": "<final text if complete>"}'
                        )
                    ),
                    output_transform=recording_output("lead", self._review),
                )
                graph.add_conditional_edge(
                    "lead_review",
                    lambda s: {"work": next_pending(s), "done": AgentGraph.END}.get(
                        s.data["__next__"], "lead_synthesize"
                    ),
                )
        graph.set_entry("lead_plan")
        return graph

    def _member_prompt(self, state: GraphState) -> str:
        subtask = state.data["subtasks"][state.data["current"]]
        earlier = [s for s in state.data["subtasks"] if s["result"] and s is not subtask]
        task: str = subtask["task"]
        if self.strategy == "parallel" or not earlier:
            return task
        context = "\n".join(f"- {s['assignee']}: {s['result']}" for s in earlier)
        return f"{task}\n\nResults so far:\n{context}"

    def _state(self, prompt: str) -> GraphState:
        state = GraphState.from_prompt(prompt)
        state.data.update(task=prompt, subtasks=[], reviews=0, current=0)
        return state

    def _result(self, graph_result: GraphResult) -> TeamLeadResult:
        subtasks = [Subtask(**s) for s in graph_result.state.data.get("subtasks", [])]
        return TeamLeadResult(graph_result.content, subtasks, graph_result)

    def run(self, prompt: str) -> TeamLeadResult:
        return self._result(self._graph().run(self._state(prompt)))

    async def arun(self, prompt: str) -> TeamLeadResult:
        return self._result(await self._graph().arun(self._state(prompt)))


def _new(assignee: str, task: str) -> dict[str, Any]:
    return {"assignee": assignee, "task": task, "result": None, "status": "pending", "attempt": 0}


def _record(text: str, state: GraphState) -> None:
    index = state.data["current"]
    subtasks = [dict(s) for s in state.data["subtasks"]]
    done = subtasks[index]
    done.update(result=text, status="done", attempt=done["attempt"] + 1)
    state.data["subtasks"] = subtasks
    state.data[f"__result_{index}__"] = done  # parallel branches each keep their own key
    state.last_output = text


def _final(text: str, state: GraphState) -> None:
    state.last_output = text


def _collect(state: GraphState) -> None:
    """After a parallel fan-out: every branch's subtask result back into the list."""
    subtasks = [dict(s) for s in state.data["subtasks"]]
    for i in range(len(subtasks)):
        done = state.data.pop(f"__result_{i}__", None)
        if done is not None:
            subtasks[i] = done
    state.data["subtasks"] = subtasks
