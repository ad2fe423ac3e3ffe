"""Four multi-agent patterns, each wired as an ``AgentGraph``: plan-and-execute, reflection, debate, team lead."""

from __future__ import annotations

from .debate import DebateAgent, DebateResult, DebateRound
from .plan_execute import PlanAndExecuteAgent, PlanStep
from .reflective import ReflectionRound, ReflectiveAgent, ReflectiveResult
from .team_lead import Subtask, TeamLeadAgent, TeamLeadResult

__all__ = [
    "DebateAgent",
    "DebateResult",
    "DebateRound",
    "PlanAndExecuteAgent",
    "PlanStep",
    "ReflectionRound",
    "ReflectiveAgent",
    "ReflectiveResult",
    "Subtask",
    "TeamLeadAgent",
    "TeamLeadResult",
]
