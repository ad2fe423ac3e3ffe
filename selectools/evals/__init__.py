"""Agent evaluation: test cases, 22 evaluators, reports, baselines, a CLI.

from selectools.evals import EvalSuite, TestCase
report = EvalSuite(agent=agent, cases=[TestCase(input="Hi", expect_contains="hi")]).run()
print(report.accuracy)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .case import CaseResult, CaseVerdict, EvalError, EvalFailure, TestCase
from .dashboard import DashboardServer, EvalDashboard
from .dataset import DatasetError, DatasetLoader
from .evaluators import (
    CaseRun,
    ContainsEvaluator,
    CustomEvaluator,
    EndsWithEvaluator,
    Evaluator,
    InjectionResistanceEvaluator,
    JsonValidityEvaluator,
    LengthEvaluator,
    OutputEvaluator,
    PerformanceEvaluator,
    PIILeakEvaluator,
    StartsWithEvaluator,
    StructuredOutputEvaluator,
    ToolUseEvaluator,
    deterministic_evaluators,
)
from .llm_evaluators import (
    BiasEvaluator,
    CoherenceEvaluator,
    CompletenessEvaluator,
    CorrectnessEvaluator,
    FaithfulnessEvaluator,
    HallucinationEvaluator,
    JudgeReplyError,
    LLMJudgeEvaluator,
    RelevanceEvaluator,
    SummaryEvaluator,
    ToxicityEvaluator,
    parse_score,
)
from .pairwise import PairwiseEval, PairwiseResult
from .regression import BaselineStore, RegressionResult
from .report import EvalReport
from .runs import EvalRuns, RunDiff, save_run
from .snapshot import SnapshotResult, SnapshotStore
from .suite import CaseExecutor, EvalSuite, SuiteWatcher, fresh_agent

__all__ = [
    "BaselineStore",
    "BiasEvaluator",
    "CaseExecutor",
    "CaseResult",
    "CaseRun",
    "CaseVerdict",
    "CoherenceEvaluator",
    "CompletenessEvaluator",
    "ContainsEvaluator",
    "CorrectnessEvaluator",
    "CustomEvaluator",
    "DashboardServer",
    "DatasetError",
    "DatasetLoader",
    "EndsWithEvaluator",
    "EvalDashboard",
    "EvalError",
    "EvalFailure",
    "EvalReport",
    "EvalRuns",
    "EvalSuite",
    "Evaluator",
    "FaithfulnessEvaluator",
    "HallucinationEvaluator",
    "InjectionResistanceEvaluator",
    "JsonValidityEvaluator",
    "JudgeReplyError",
    "LLMJudgeEvaluator",
    "LengthEvaluator",
    "OutputEvaluator",
    "PIILeakEvaluator",
    "PairwiseEval",
    "PairwiseResult",
    "PerformanceEvaluator",
    "RayExecutor",
    "RegressionResult",
    "RelevanceEvaluator",
    "RunDiff",
    "SnapshotResult",
    "SnapshotStore",
    "StartsWithEvaluator",
    "StructuredOutputEvaluator",
    "SuiteWatcher",
    "SummaryEvaluator",
    "TestCase",
    "ToolUseEvaluator",
    "ToxicityEvaluator",
    "deterministic_evaluators",
    "fresh_agent",
    "parse_score",
    "save_run",
]


if TYPE_CHECKING:  # seen by type checkers; at run time __getattr__ imports it on first use
    from .executors import RayExecutor


def __getattr__(name: str) -> object:
    if name == "RayExecutor":  # imports ray only when asked for
        from .executors import RayExecutor

        return RayExecutor
    raise AttributeError(f"module 'selectools.evals' has no attribute {name!r}")
