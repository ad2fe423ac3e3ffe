"""The values of an eval run: a ``TestCase`` in, a ``CaseResult`` out.

A test case only checks the ``expect_*`` fields that are set, so a case is a
plain declaration a dataset file can hold; the result keeps everything a report,
a baseline or a notebook view needs (verdict, failures, cost, latency, trace id)
without keeping the agent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any

from ..exceptions import SelectoolsError
from ..stability import stable

__all__ = ["CaseResult", "CaseVerdict", "EvalError", "EvalFailure", "TestCase"]


class EvalError(SelectoolsError):
    """An eval could not be set up (bad case, bad dataset, bad baseline)."""


class CaseVerdict(str, Enum):
    """How a case ended: every check passed, one failed, the run errored, or it was skipped."""

    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"
    SKIP = "skip"


@stable
@dataclass
class TestCase:
    """One prompt and the assertions to check on the agent's answer (only the set ones run)."""

    __test__ = False  # not a pytest test class despite the name

    input: str
    name: str | None = None
    # tools
    expect_tool: str | None = None
    expect_tools: list[str] | None = None
    expect_tool_args: dict[str, dict[str, Any]] | None = None
    # content
    expect_contains: str | None = None
    expect_not_contains: str | None = None
    expect_output: str | None = None
    expect_output_regex: str | None = None
    expect_json: bool = False
    expect_starts_with: str | None = None
    expect_ends_with: str | None = None
    expect_min_length: int | None = None
    expect_max_length: int | None = None
    # structured output
    response_format: Any = None
    expect_parsed: dict[str, Any] | None = None
    # performance
    expect_latency_ms_lte: float | None = None
    expect_cost_usd_lte: float | None = None
    expect_iterations_lte: int | None = None
    # safety
    expect_no_pii: bool = False
    expect_no_injection: bool = False
    # LLM-as-judge inputs
    reference: str | None = None
    context: str | None = None
    rubric: str | None = None
    # custom
    custom_evaluator: Callable[[Any], bool] | None = None
    custom_evaluator_name: str | None = None
    # bookkeeping
    tags: list[str] = field(default_factory=list)
    weight: float = 1.0
    skip: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.input, str):
            raise EvalError(f"TestCase.input must be a string, got {type(self.input).__name__}")
        if self.weight < 0:
            raise EvalError(f"TestCase.weight must be >= 0, got {self.weight}")
        if isinstance(self.tags, str):
            self.tags = [self.tags]

    @property
    def label(self) -> str:
        """The case's name, or its input shortened: what reports print."""
        if self.name:
            return self.name
        return self.input if len(self.input) <= 60 else self.input[:57] + "..."

    def to_dict(self) -> dict[str, Any]:
        """The declarative fields that are set (callables and model classes are left out)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("custom_evaluator", "response_format"):
                continue
            if value is None or value is False or value == [] or value == {}:
                continue
            if f.name == "weight" and value == 1.0:
                continue
            out[f.name] = value
        return out


#: the TestCase fields a dataset file may set
CASE_FIELDS = frozenset(
    f.name for f in fields(TestCase) if f.name not in ("custom_evaluator", "response_format")
)


@dataclass
class EvalFailure:
    """One failed check: which evaluator, what it expected, what it saw."""

    evaluator: str
    message: str
    expected: Any = None
    actual: Any = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "evaluator": self.evaluator,
            "message": self.message,
            "expected": _jsonable(self.expected),
            "actual": _jsonable(self.actual),
        }


@dataclass
class CaseResult:
    """The outcome of one case: verdict, failures and the run's numbers.

    ``result`` is the agent's ``AgentResult`` (None when the run raised or when
    the result came back from another process); ``error`` the message of an
    error verdict. ``latency_ms`` is the wall time of the agent run.
    """

    case: TestCase
    verdict: CaseVerdict
    failures: list[EvalFailure] = field(default_factory=list)
    output: str = ""
    tool_calls: list[str] = field(default_factory=list)
    latency_ms: float = 0.0
    cost_usd: float = 0.0
    tokens: int = 0
    iterations: int = 0
    trace_id: str | None = None
    error: str | None = None
    scores: dict[str, float] = field(default_factory=dict)
    result: Any = field(default=None, repr=False, compare=False)
    #: the run's conversation as ``{"role", "content", "tool_calls"}`` dicts (kept in saved
    #: reports, so runs can be explored message by message after the AgentResult is gone)
    messages: list[dict[str, Any]] = field(default_factory=list, repr=False, compare=False)

    @property
    def passed(self) -> bool:
        return self.verdict is CaseVerdict.PASS

    def to_dict(self) -> dict[str, Any]:
        return {
            "case": self.case.to_dict(),
            "verdict": self.verdict.value,
            "failures": [f.to_dict() for f in self.failures],
            "output": self.output,
            "tool_calls": list(self.tool_calls),
            "latency_ms": self.latency_ms,
            "cost_usd": self.cost_usd,
            "tokens": self.tokens,
            "iterations": self.iterations,
            "trace_id": self.trace_id,
            "error": self.error,
            "scores": dict(self.scores),
            **({"messages": conversation} if (conversation := self.conversation()) else {}),
        }

    def conversation(self) -> list[dict[str, Any]]:
        """The run's messages (from the live AgentResult, else as loaded)."""
        live = getattr(self.result, "messages", None)
        if not live:
            return list(self.messages)
        return [
            {
                "role": m.role.value,
                "content": m.text,
                "tool_calls": [c.tool_name for c in m.tool_calls or ()],
            }
            for m in live
        ]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CaseResult:
        return cls(
            case=TestCase(**data["case"]),
            verdict=CaseVerdict(data["verdict"]),
            failures=[EvalFailure(**f) for f in data.get("failures", [])],
            output=data.get("output", ""),
            tool_calls=list(data.get("tool_calls", [])),
            latency_ms=float(data.get("latency_ms", 0.0)),
            cost_usd=float(data.get("cost_usd", 0.0)),
            tokens=int(data.get("tokens", 0)),
            iterations=int(data.get("iterations", 0)),
            trace_id=data.get("trace_id"),
            error=data.get("error"),
            scores=dict(data.get("scores", {})),
            messages=list(data.get("messages", [])),
        )

    def without_result(self) -> CaseResult:
        """A copy without the live AgentResult (what crosses a process boundary)."""
        from dataclasses import replace

        return replace(self, result=None, messages=self.conversation())


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return repr(value)
