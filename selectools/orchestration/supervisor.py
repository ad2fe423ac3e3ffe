"""``SupervisorAgent``: four ways of coordinating named agents, each built as an ``AgentGraph``.

The supervisor's own model calls are graph nodes too (an Agent node named
``supervisor`` whose output is parsed into the plan, the routing choice or the
ledgers), so their tokens, cost and trace spans are part of the ``GraphResult``
like every agent's. What the model answers is never trusted blindly: a plan
that is not a JSON list of ``{"agent", "task"}`` falls back to every agent in
registration order with the original prompt; an unknown agent name falls back
to the first registered agent (or the first one the delegation constraints allow).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from ..types import AgentResult, Message, Role
from ._engine import END
from .graph import AgentGraph, GraphResult
from .state import STATE_KEY_LAST_OUTPUT, GraphState

__all__ = ["ModelSplit", "SupervisorAgent", "SupervisorStrategy"]

SUPERVISOR = "supervisor"
_DONE_SIGNALS = ("task complete", "done.", "finished.")


class SupervisorStrategy(str, Enum):
    """How a ``SupervisorAgent`` hands work to its agents."""

    PLAN_AND_EXECUTE = "plan_and_execute"
    ROUND_ROBIN = "round_robin"
    DYNAMIC = "dynamic"
    MAGENTIC = "magentic"


@dataclass(frozen=True)
class ModelSplit:
    """The model the supervisor plans and routes with, and the one the agents execute with."""

    planner_model: str
    executor_model: str


def _json_value(text: str) -> Any:
    """The first JSON array or object in ``text`` (models wrap JSON in prose and fences)."""
    for match in re.finditer(r"[\[{]", text):
        try:
            value, _end = json.JSONDecoder().raw_decode(text[match.start() :])
        except ValueError:
            continue
        return value
    return None


class SupervisorAgent:
    """Coordinates ``agents`` with a strategy; ``run``/``arun``/``astream`` like a graph."""

    def __init__(
        self,
        agents: dict[str, Any],
        provider: Any = None,
        strategy: SupervisorStrategy | str = SupervisorStrategy.PLAN_AND_EXECUTE,
        max_rounds: int = 10,
        max_stalls: int = 2,
        model_split: ModelSplit | None = None,
        delegation_constraints: dict[str, list[str]] | None = None,
        cancellation_token: Any = None,
        max_total_tokens: int | None = None,
        max_cost_usd: float | None = None,
        observers: list[Any] | None = None,
    ) -> None:
        from ..agent import Agent, AgentConfig

        if not agents:
            raise ValueError("SupervisorAgent needs at least one agent: agents={'name': agent}")
        try:
            self.strategy = SupervisorStrategy(strategy)
        except ValueError:
            choices = ", ".join(s.value for s in SupervisorStrategy)
            raise ValueError(f"unknown strategy {strategy!r}; use one of: {choices}") from None
        self.agents = dict(agents)
        self.names = list(agents)
        self.max_rounds = max_rounds
        self.max_stalls = max_stalls
        self.model_split = model_split
        self.delegation_constraints = dict(delegation_constraints or {})
        self.cancellation_token = cancellation_token
        self.max_total_tokens = max_total_tokens
        self.max_cost_usd = max_cost_usd
        self.observers = list(observers or [])
        if model_split is not None:  # the agents execute with the cheap model
            self.agents = {
                name: Agent(
                    tools=agent.tools,
                    provider=agent.provider,
                    config=replace(agent.config, model=model_split.executor_model),
                    memory=agent.memory,
                )
                for name, agent in self.agents.items()
            }
        config = AgentConfig(
            model=model_split.planner_model if model_split is not None else "",
            system_prompt="You coordinate a team of agents. Answer exactly in the format asked.",
        )
        if not config.model:
            config = replace(config, model=getattr(provider, "default_model", "") or config.model)
        self.planner = Agent(provider=provider, config=config)

    # -- running -----------------------------------------------------------------
    def build_graph(self) -> AgentGraph:
        """The graph one run of the chosen strategy executes (fresh per run)."""
        graph = AgentGraph(
            name=f"supervisor:{self.strategy.value}",
            observers=self.observers,
            cancellation_token=self.cancellation_token,
            max_total_tokens=self.max_total_tokens,
            max_cost_usd=self.max_cost_usd,
            max_steps=max(50, 4 * self.max_rounds * max(1, len(self.names)) + 4),
            enable_loop_detection=False,  # rounds repeat on purpose; max_rounds bounds them
        )
        build = {
            SupervisorStrategy.PLAN_AND_EXECUTE: self._plan_and_execute,
            SupervisorStrategy.ROUND_ROBIN: self._round_robin,
            SupervisorStrategy.DYNAMIC: self._dynamic,
            SupervisorStrategy.MAGENTIC: self._magentic,
        }[self.strategy]
        build(graph)
        return graph

    def _start(self, prompt: str) -> GraphState:
        state = GraphState.from_prompt(prompt)
        state.data["__task__"] = prompt
        return state

    def run(self, prompt: str) -> GraphResult:
        return self._counted(self.build_graph().run(self._start(prompt)))

    async def arun(self, prompt: str) -> GraphResult:
        return self._counted(await self.build_graph().arun(self._start(prompt)))

    @staticmethod
    def _counted(result: GraphResult) -> GraphResult:
        """``stalls`` counts the supervisor's unproductive steps (magentic's ledger says so)."""
        result.stalls += int(result.state.data.get("__stall_total__", 0))
        return result

    async def astream(self, prompt: str) -> Any:
        async for event in self.build_graph().astream(self._start(prompt)):
            yield event

    # -- shared pieces ---------------------------------------------------------------
    def _add_agents(self, graph: AgentGraph) -> None:
        for name, agent in self.agents.items():
            graph.add_node(name, agent, input_transform=self._agent_input(name))

    def _agent_input(self, name: str) -> Callable[[GraphState], list[Message]]:
        def build(state: GraphState) -> list[Message]:
            task = state.data.get("__step_task__") or state.data["__task__"]
            context = state.data.get(STATE_KEY_LAST_OUTPUT)
            text = (
                task if not context or context == task else f"{task}\n\nContext so far:\n{context}"
            )
            return [Message(Role.USER, text)]

        return build

    def _supervisor_node(
        self,
        graph: AgentGraph,
        prompt: Callable[[GraphState], str],
        parse: Callable[[str, GraphState, AgentResult], None],
    ) -> None:
        def output(result: AgentResult, state: GraphState) -> GraphState:
            state.history.append((SUPERVISOR, result))
            parse(result.content, state, result)
            return state

        graph.add_node(
            SUPERVISOR,
            self.planner,
            input_transform=lambda state: [Message(Role.USER, prompt(state))],
            output_transform=output,
        )
        graph.set_entry(SUPERVISOR)

    def _roster(self) -> str:
        return "\n".join(f"- {name}" for name in self.names)

    def _allowed(self, previous: str | None, choice: str) -> str:
        """``choice`` if it is a known agent the previous one may hand to, else a fallback."""
        allowed = self.names
        if previous is not None and previous in self.delegation_constraints:
            allowed = [
                n for n in self.delegation_constraints[previous] if n in self.agents
            ] or self.names
        return choice if choice in allowed else allowed[0]

    # -- strategies -----------------------------------------------------------------
    def _plan_and_execute(self, graph: AgentGraph) -> None:
        def prompt(state: GraphState) -> str:
            return (
                f"Task: {state.data['__task__']}\nAgents:\n{self._roster()}\n"
                'Reply with a JSON list of steps: [{"agent": "<name>", "task": "<what to do>"}].'
            )

        def parse(text: str, state: GraphState, _result: AgentResult) -> None:
            value = _json_value(text)
            plan = []
            if isinstance(value, list):
                for step in value:
                    if isinstance(step, dict) and step.get("agent") in self.agents:
                        plan.append({"agent": step["agent"], "task": str(step.get("task") or "")})
            if not plan:  # malformed: every agent in order, on the original prompt
                plan = [{"agent": name, "task": ""} for name in self.names]
                state.data["__plan_fallback__"] = True
            state.data["__plan__"] = plan[: self.max_rounds * len(self.names)]
            state.data["__step__"] = 0

        self._supervisor_node(graph, prompt, parse)
        self._add_agents(graph)

        def route(state: GraphState) -> str:
            plan, index = state.data["__plan__"], state.data["__step__"]
            if index >= len(plan):
                return END
            state.data["__step__"] = index + 1
            state.data["__step_task__"] = plan[index]["task"]
            return str(plan[index]["agent"])

        for name in [SUPERVISOR, *self.names]:
            graph.add_conditional_edge(name, route)

    def _round_robin(self, graph: AgentGraph) -> None:
        self._add_agents(graph)
        graph.set_entry(self.names[0])
        last = self.names[-1]

        def route_after(name: str) -> Callable[[GraphState], str]:
            position = self.names.index(name)

            def route(state: GraphState) -> str:
                if name != last:
                    return self.names[position + 1]
                state.data["__round__"] = state.data.get("__round__", 0) + 1
                output = str(state.data.get(STATE_KEY_LAST_OUTPUT, "")).lower()
                if state.data["__round__"] >= self.max_rounds or any(
                    s in output for s in _DONE_SIGNALS
                ):
                    return END
                return self.names[0]

            return route

        for name in self.names:
            graph.add_conditional_edge(name, route_after(name))

    def _dynamic(self, graph: AgentGraph) -> None:
        def prompt(state: GraphState) -> str:
            history = "\n".join(
                f"{node}: {result.content[:200]}"
                for node, result in state.history
                if node != SUPERVISOR
            )
            return (
                f"Task: {state.data['__task__']}\nAgents:\n{self._roster()}\n"
                f"History:\n{history or 'none'}\n"
                "Reply with the name of the agent that should act next, or DONE."
            )

        def parse(text: str, state: GraphState, _result: AgentResult) -> None:
            state.data["__routes__"] = state.data.get("__routes__", 0) + 1
            choice = text.strip().strip("\"'`.").strip()
            if choice.upper() == "DONE" or state.data["__routes__"] > self.max_rounds:
                state.data["__next__"] = END
                return
            state.data["__next__"] = self._allowed(state.data.get("__last_agent__"), choice)

        self._supervisor_node(graph, prompt, parse)
        self._add_agents(graph)
        graph.add_conditional_edge(SUPERVISOR, lambda state: state.data["__next__"])
        for name in self.names:
            graph.add_conditional_edge(name, self._back_to_supervisor(name))

    def _back_to_supervisor(self, name: str) -> Callable[[GraphState], str]:
        def route(state: GraphState) -> str:
            state.data["__last_agent__"] = name
            return SUPERVISOR

        return route

    def _magentic(self, graph: AgentGraph) -> None:
        def prompt(state: GraphState) -> str:
            replan = state.data.pop("__replan__", False)
            history = "\n".join(
                f"{node}: {result.content[:200]}"
                for node, result in state.history
                if node != SUPERVISOR
            )
            fresh = "The current approach stalled: make a fresh plan.\n" if replan else ""
            return (
                f"{fresh}Task: {state.data['__task__']}\nAgents:\n{self._roster()}\n"
                f"Task ledger so far: {json.dumps(state.data.get('__task_ledger__', {}))}\n"
                f"History:\n{history or 'none'}\n"
                'Reply with JSON: {"task_ledger": {"facts": [...], "plan": [...]}, '
                '"progress_ledger": {"is_complete": bool, "is_progressing": bool, '
                '"next_agent": "<name>|DONE"}}'
            )

        def parse(text: str, state: GraphState, result: AgentResult) -> None:
            value = _json_value(text)
            state.data["__routes__"] = state.data.get("__routes__", 0) + 1
            if state.data.pop("__replanning__", False):
                self._replanned(result, state.data.get("__stalls__", 0), text)
                state.data["__stalls__"] = 0
            progress = value.get("progress_ledger") if isinstance(value, dict) else None
            if isinstance(value, dict) and isinstance(value.get("task_ledger"), dict):
                state.data["__task_ledger__"] = value["task_ledger"]
            if not isinstance(progress, dict):  # malformed ledger: no progress, first agent
                progress = {
                    "is_complete": False,
                    "is_progressing": False,
                    "next_agent": self.names[0],
                }
            nxt = str(progress.get("next_agent") or "")
            if (
                progress.get("is_complete") is True
                or nxt.upper() == "DONE"
                or (state.data["__routes__"] > self.max_rounds)
            ):
                state.data["__next__"] = END
                return
            if progress.get("is_progressing") is False:
                state.data["__stalls__"] = state.data.get("__stalls__", 0) + 1
                state.data["__stall_total__"] = state.data.get("__stall_total__", 0) + 1
                if state.data["__stalls__"] >= self.max_stalls:
                    state.data["__replan__"] = state.data["__replanning__"] = True
                    state.data["__next__"] = SUPERVISOR
                    return
            else:
                state.data["__stalls__"] = 0
            state.data["__next__"] = self._allowed(state.data.get("__last_agent__"), nxt)

        self._supervisor_node(graph, prompt, parse)
        self._add_agents(graph)
        graph.add_conditional_edge(SUPERVISOR, lambda state: state.data["__next__"])
        for name in self.names:
            graph.add_conditional_edge(name, self._back_to_supervisor(name))

    def _replanned(self, result: AgentResult, stall_count: int, new_plan: str) -> None:
        if not self.observers:
            return
        from ..observer import EventEmitter

        run_id = (result.trace.parent_run_id if result.trace is not None else None) or ""
        EventEmitter(run_id, self.observers).emit("on_supervisor_replan", stall_count, new_plan)

    def __repr__(self) -> str:
        return f"SupervisorAgent(strategy={self.strategy.value!r}, agents={self.names})"
