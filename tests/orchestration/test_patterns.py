"""The four patterns with scripted agents: what each agent was asked, in which order, and the results."""

from __future__ import annotations

import asyncio

import pytest

from selectools import Agent, AgentConfig
from selectools.exceptions import GraphExecutionError
from selectools.patterns import DebateAgent, PlanAndExecuteAgent, ReflectiveAgent, TeamLeadAgent
from selectools.testing import ScriptedProvider


class Scripted:
    """An agent that records its prompts and answers from a list (or ``name: n``)."""

    def __init__(self, name: str, *replies: str, latency: float = 0.0) -> None:
        self.prompts: list[str] = []
        script = list(replies)

        def answer(request):
            self.prompts.append(request.messages[-1].text)
            return script.pop(0) if script else f"{name}: {len(self.prompts)}"

        self.agent = Agent(
            provider=ScriptedProvider(answer, latency=latency), config=AgentConfig(model="m")
        )


def test_plan_and_execute_runs_typed_steps_with_context_and_falls_back_on_a_bad_plan():
    planner = Scripted(
        "planner",
        '[{"executor": "writer", "task": "write"}, {"executor": "researcher", "task": "check"}]',
    )
    researcher, writer = Scripted("researcher"), Scripted("writer")
    agent = PlanAndExecuteAgent(
        planner=planner.agent, executors={"researcher": researcher.agent, "writer": writer.agent}
    )
    result = agent.run("Owls")
    assert writer.prompts == ["write"]
    assert researcher.prompts == ["check\n\nContext from previous steps:\nwriter: 1"]
    assert result.content == "researcher: 1"
    assert [(s.executor, s.task) for s in agent.last_plan] == [
        ("writer", "write"),
        ("researcher", "check"),
    ]

    bad = PlanAndExecuteAgent(
        planner=Scripted("p", "no idea").agent, executors={"researcher": researcher.agent}
    )
    assert bad.run("Owls").content == "researcher: 2" and researcher.prompts[-1] == "Owls"


def test_plan_and_execute_replans_after_a_failing_step():
    def broken(request):
        raise RuntimeError("tool down")

    flaky = Agent(provider=ScriptedProvider(broken), config=AgentConfig(model="m"))
    planner = Scripted(
        "planner", '[{"executor": "flaky", "task": "a"}]', '[{"executor": "steady", "task": "b"}]'
    )
    steady = Scripted("steady")
    agent = PlanAndExecuteAgent(
        planner=planner.agent, executors={"flaky": flaky, "steady": steady.agent}, replanner=True
    )
    result = agent.run("task")
    assert result.content == "steady: 1"
    assert "A step failed" in planner.prompts[1] and "tool down" in planner.prompts[1]

    no_replan = PlanAndExecuteAgent(
        planner=Scripted("p", '[{"executor": "flaky", "task": "a"}]').agent,
        executors={"flaky": flaky},
    )
    with pytest.raises(GraphExecutionError, match="tool down"):
        no_replan.run("task")


def test_reflective_agent_revises_until_approved_or_the_limit():
    actor = Scripted("actor", "draft 1", "draft 2")
    critic = Scripted("critic", "too vague", "Approved, nice")
    result = ReflectiveAgent(actor=actor.agent, critic=critic.agent, max_reflections=3).run(
        "Explain attention"
    )
    assert result.final_draft == "draft 2" and result.approved and result.total_rounds == 2
    assert [(r.round_number, r.draft, r.critique, r.approved) for r in result.rounds] == [
        (0, "draft 1", "too vague", False),
        (1, "draft 2", "Approved, nice", True),
    ]
    assert "draft 1" in actor.prompts[1] and "too vague" in actor.prompts[1]
    never = ReflectiveAgent(
        actor=Scripted("a").agent, critic=Scripted("c").agent, max_reflections=2
    ).run("x")
    assert never.total_rounds == 2 and not never.approved


def test_debate_rounds_see_the_last_round_and_the_judge_sees_all():
    optimist, skeptic, judge = (
        Scripted("optimist"),
        Scripted("skeptic"),
        Scripted("judge", "Split it gradually."),
    )
    result = DebateAgent(
        agents={"optimist": optimist.agent, "skeptic": skeptic.agent},
        judge=judge.agent,
        max_rounds=2,
    ).run("Microservices?")
    assert result.conclusion == "Split it gradually." and result.total_rounds == 2
    assert result.rounds[1].arguments == {"optimist": "optimist: 2", "skeptic": "skeptic: 2"}
    assert "[skeptic] skeptic: 1" in optimist.prompts[1]
    assert "Round 2:" in judge.prompts[0] and "[optimist] optimist: 1" in judge.prompts[0]
    with pytest.raises(ValueError, match="at least two"):
        DebateAgent(agents={"solo": optimist.agent}, judge=judge.agent)


PLAN = '[{"assignee": "researcher", "task": "find"}, {"assignee": "writer", "task": "write"}]'


def test_team_lead_sequential_and_parallel():
    lead, r, w = Scripted("lead", PLAN, "final report"), Scripted("researcher"), Scripted("writer")
    result = TeamLeadAgent(
        lead=lead.agent,
        team={"researcher": r.agent, "writer": w.agent},
        delegation_strategy="sequential",
    ).run("Compare")
    assert result.content == "final report"
    assert w.prompts == ["write\n\nResults so far:\n- researcher: researcher: 1"]
    assert [(s.assignee, s.status, s.attempt) for s in result.subtasks] == [
        ("researcher", "done", 1),
        ("writer", "done", 1),
    ]

    lead = Scripted("lead", PLAN, "merged")
    r, w = Scripted("researcher", latency=0.2), Scripted("writer", latency=0.2)
    result = TeamLeadAgent(
        lead=lead.agent,
        team={"researcher": r.agent, "writer": w.agent},
        delegation_strategy="parallel",
    ).run("Compare")
    assert result.content == "merged" and w.prompts == ["write"]
    assert [(s.assignee, s.result) for s in result.subtasks] == [
        ("researcher", "researcher: 1"),
        ("writer", "writer: 1"),
    ]
    spans = {
        s.node_name: s for s in result.graph_result.trace.steps if s.type.value == "graph_node_end"
    }
    assert spans["researcher"].started_at < spans["writer"].ended_at
    assert spans["writer"].started_at < spans["researcher"].ended_at


def test_team_lead_dynamic_reassigns_then_synthesizes_and_malformed_plan_falls_back():
    lead = Scripted(
        "lead",
        PLAN,
        '{"complete": false, "reassignments": [{"assignee": "researcher", "task": "pricing too"}]}',
        '{"complete": true, "synthesis": "the analysis"}',
    )
    r, w = Scripted("researcher"), Scripted("writer")
    result = TeamLeadAgent(
        lead=lead.agent, team={"researcher": r.agent, "writer": w.agent}, max_reassignments=2
    ).run("Compare")
    assert result.content == "the analysis"
    assert [(s.assignee, s.task, s.status) for s in result.subtasks] == [
        ("researcher", "find", "reassigned"),
        ("writer", "write", "done"),
        ("researcher", "pricing too", "done"),
    ]
    assert result.total_assignments == 3

    lead = Scripted("lead", "I will delegate wisely", "not json", "summary")
    result = TeamLeadAgent(lead=lead.agent, team={"a": Scripted("a").agent}).run("job")
    assert [s.task for s in result.subtasks] == ["job"] and result.content == "summary"


def test_patterns_run_async():
    actor, critic = Scripted("actor"), Scripted("critic", "approved")
    result = asyncio.run(ReflectiveAgent(actor=actor.agent, critic=critic.agent).arun("x"))
    assert result.approved and result.final_draft == "actor: 1"
