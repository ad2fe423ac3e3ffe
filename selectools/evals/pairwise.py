"""``PairwiseEval``: the same cases on two agents, compared case by case (A/B)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .case import CaseVerdict, TestCase
from .evaluators import Evaluator
from .report import EvalReport
from .suite import EvalSuite

if TYPE_CHECKING:
    from ..agent.core import Agent

__all__ = ["PairwiseEval", "PairwiseResult"]


@dataclass
class PairwiseResult:
    """Both reports and, per case, which agent did better (``"a"``, ``"b"`` or ``"tie"``)."""

    report_a: EvalReport
    report_b: EvalReport
    winners: list[str]

    @property
    def a_wins(self) -> int:
        return self.winners.count("a")

    @property
    def b_wins(self) -> int:
        return self.winners.count("b")

    @property
    def ties(self) -> int:
        return self.winners.count("tie")

    @property
    def winner(self) -> str:
        """The agent with more case wins, then higher accuracy, then lower cost; else ``"tie"``."""
        a = (self.a_wins, self.report_a.accuracy, -self.report_a.total_cost)
        b = (self.b_wins, self.report_b.accuracy, -self.report_b.total_cost)
        return "a" if a > b else "b" if b > a else "tie"

    def summary(self) -> str:
        return (
            f"A: {self.report_a.accuracy:.1%} · B: {self.report_b.accuracy:.1%} · "
            f"A wins {self.a_wins}, B wins {self.b_wins}, ties {self.ties} → winner: {self.winner}"
        )


def _rank(verdict: CaseVerdict) -> int:
    return {CaseVerdict.PASS: 2, CaseVerdict.FAIL: 1}.get(verdict, 0)


class PairwiseEval:
    """Run ``cases`` on ``agent_a`` and ``agent_b`` with the same evaluators."""

    def __init__(
        self,
        agent_a: Agent,
        agent_b: Agent,
        cases: Sequence[TestCase],
        evaluators: Sequence[Evaluator] | None = None,
        **suite_options: Any,
    ) -> None:
        self.suite_a = EvalSuite(agent_a, cases, evaluators, name="A", **suite_options)
        self.suite_b = EvalSuite(agent_b, cases, evaluators, name="B", **suite_options)

    def run(self) -> PairwiseResult:
        a, b = self.suite_a.run(), self.suite_b.run()
        winners = []
        for ra, rb in zip(a.results, b.results, strict=False):
            key_a = (_rank(ra.verdict), -len(ra.failures), sum(ra.scores.values()))
            key_b = (_rank(rb.verdict), -len(rb.failures), sum(rb.scores.values()))
            winners.append("a" if key_a > key_b else "b" if key_b > key_a else "tie")
        return PairwiseResult(a, b, winners)
