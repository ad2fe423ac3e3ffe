"""SupervisorAgent's four strategies with a scripted supervisor model, including malformed answers."""

from __future__ import annotations

import asyncio

import pytest

from selectools import Agent, AgentConfig, AgentObserver, ModelSplit, SupervisorAgent
from selectools.orchestration import GraphEventType, SupervisorStrategy
from selectools.testing import ScriptedProvider


class Recorder:
    """An agent whose provider records the prompts it was given and answers ``name: n``."""

    def __init__(self, name: str, reply: str | None = None) -> None:
        self.prompts: list[str] = []
        self.models: list[str] = []

        def answer(request):
            self.prompts.append(request.messages[-1].text)
            self.models.append(request.model)
            return reply if reply is not None else f"{name}: {len(self.prompts)}"

        self.agent = Agent(
            provider=ScriptedProvider(answer), config=AgentConfig(model="agent-model")
        )


def supervisor_model(*replies: str, models: list[str] | None = None) -> ScriptedProvider:
    script = list(replies)

    def answer(request):
        if models is not None:
            models.append(request.model)
        return script.pop(0)

    return ScriptedProvider(answer)


def test_plan_and_execute_follows_the_plan_in_its_order_with_tasks():
    r, w = Recorder("researcher"), Recorder("writer")
    plan = (
        'Here is the plan:\n```json\n[{"agent": "writer", "task": "draft it"}, '
        '{"agent": "researcher", "task": "check facts"}]\n```'
    )
    sup = SupervisorAgent(
        agents={"researcher": r.agent, "writer": w.agent}, provider=supervisor_model(plan)
    )
    result = sup.run("Write about owls")
    assert w.prompts == ["draft it"]
    assert r.prompts[0].startswith("check facts") and "writer: 1" in r.prompts[0]
    assert result.content == "researcher: 1"
    assert list(result.node_results) == ["supervisor", "writer", "researcher"]
    assert result.total_usage.total_tokens > 0


@pytest.mark.parametrize(
    "reply",
    [
        "I would start with research, then write.",  # prose
        '[{"agent": "nobody", "task": "x"}]',  # unknown agents only
        '{"agent": "writer"}',  # not a list
        "[{broken json",
    ],
)
def test_plan_and_execute_malformed_plans_fall_back_to_registration_order(reply):
    r, w = Recorder("researcher"), Recorder("writer")
    sup = SupervisorAgent(
        agents={"researcher": r.agent, "writer": w.agent},
        provider=supervisor_model(reply),
        strategy=SupervisorStrategy.PLAN_AND_EXECUTE,
    )
    result = sup.run("Write about owls")
    assert r.prompts == ["Write about owls"]
    assert w.prompts[0].startswith("Write about owls")
    assert result.state.data["__plan_fallback__"] is True
    assert result.content == "writer: 1"


def test_round_robin_takes_turns_and_stops_on_a_done_signal_or_max_rounds():
    a, b = Recorder("a"), Recorder("b")
    result = SupervisorAgent(
        agents={"a": a.agent, "b": b.agent},
        provider=supervisor_model(),
        strategy="round_robin",
        max_rounds=3,
    ).run("go")
    assert [n for n, _ in result.state.history] == ["a", "b"] * 3 and result.steps == 6

    finisher = Recorder("b", reply="All finished. Task complete")
    result = SupervisorAgent(
        agents={"a": Recorder("a").agent, "b": finisher.agent},
        provider=supervisor_model(),
        strategy="round_robin",
    ).run("go")
    assert result.steps == 2 and result.content == "All finished. Task complete"


def test_dynamic_routes_by_name_falls_back_on_unknown_names_and_respects_constraints():
    planner, wa, wb = Recorder("planner"), Recorder("worker_a"), Recorder("worker_b")
    sup = SupervisorAgent(
        agents={"planner": planner.agent, "worker_a": wa.agent, "worker_b": wb.agent},
        provider=supervisor_model("worker_a", "worker_b", "nonexistent", "DONE"),
        strategy="dynamic",
        delegation_constraints={"worker_a": ["planner"], "planner": ["worker_a", "worker_b"]},
    )
    result = sup.run("task")
    agents = [n for n, _ in result.state.history if n != "supervisor"]
    # worker_a may only hand to planner (worker_b refused); "nonexistent" -> first allowed
    assert agents == ["worker_a", "planner", "worker_a"]
    assert result.stop_reason == "end"


def test_dynamic_stops_after_max_rounds():
    a = Recorder("a")
    sup = SupervisorAgent(
        agents={"a": a.agent},
        provider=supervisor_model(*["a"] * 10),
        strategy="dynamic",
        max_rounds=3,
    )
    result = sup.run("task")
    assert len(a.prompts) == 3 and result.stop_reason == "end"


def test_magentic_ledgers_stalls_replan_event_and_malformed_ledger():
    replans = []

    class Watch(AgentObserver):
        def on_supervisor_replan(self, run_id, stall_count, new_plan):
            replans.append((run_id, stall_count, new_plan))

    def ledger(progressing, nxt, complete=False):
        return (
            '{"task_ledger": {"facts": ["f"], "plan": ["p"]}, "progress_ledger": '
            f'{{"is_complete": {str(complete).lower()}, "is_progressing": {str(progressing).lower()}, '
            f'"next_agent": "{nxt}"}}}}'
        )

    fresh = ledger(True, "writer")
    r, w = Recorder("researcher"), Recorder("writer")
    sup = SupervisorAgent(
        agents={"researcher": r.agent, "writer": w.agent},
        provider=supervisor_model(
            ledger(True, "researcher"),
            ledger(False, "researcher"),
            "not json at all",  # malformed: counts as a stall -> replan
            fresh,
            ledger(True, "DONE", complete=True),
        ),
        strategy="magentic",
        max_stalls=2,
        observers=[Watch()],
    )
    result = sup.run("Build a CLI")
    agents = [n for n, _ in result.state.history if n != "supervisor"]
    assert agents == ["researcher", "researcher", "writer"]
    assert [(count, plan) for _, count, plan in replans] == [(2, fresh)]
    assert replans[0][0] == result.run_id
    assert result.state.data["__task_ledger__"] == {"facts": ["f"], "plan": ["p"]}
    assert result.state.data["__stall_total__"] == 2 and result.stalls == 2


def test_model_split_plans_with_the_planner_model_and_executes_with_the_executor_model():
    models: list[str] = []
    r = Recorder("researcher")
    sup = SupervisorAgent(
        agents={"researcher": r.agent},
        provider=supervisor_model('[{"agent": "researcher", "task": "t"}]', models=models),
        model_split=ModelSplit(planner_model="big-model", executor_model="small-model"),
    )
    sup.run("x")
    assert models == ["big-model"] and r.models == ["small-model"]


def test_unknown_strategy_and_async_and_stream():
    with pytest.raises(ValueError, match="unknown strategy 'chaos'"):
        SupervisorAgent(
            agents={"a": Recorder("a").agent}, provider=supervisor_model(), strategy="chaos"
        )
    a = Recorder("a")
    sup = SupervisorAgent(
        agents={"a": a.agent}, provider=supervisor_model(), strategy="round_robin", max_rounds=1
    )

    async def go():
        result = await sup.arun("x")
        events = [e async for e in sup.astream("y")]
        return result, events

    result, events = asyncio.run(go())
    assert result.content == "a: 1"
    assert [e.node_name for e in events if e.type is GraphEventType.NODE_START] == ["a"]
