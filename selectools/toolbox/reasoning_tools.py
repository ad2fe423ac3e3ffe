"""Reasoning as tool calls: ``think`` and ``analyze``, bounded by ``min_steps``/``max_steps``.

A reasoning *strategy* (``PromptBuilder(reasoning_strategy="react")``) shapes how
the model thinks, but the thinking stays inside its text. These tools make each
step a tool call instead, so the chain is recorded (``ReasoningTools.steps``,
and a ``tool_execution`` step in the run's trace) and capped: once
``max_steps`` steps are recorded, further calls are not recorded and tell the
model to stop reasoning and answer. ``min_steps`` is guidance only (a model
cannot be forced to call a tool): it is stated in the tool descriptions and
each call says how many more steps are expected.

Both tools call nothing external; they return an acknowledgement.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Literal

from ..stability import beta
from ..tools import Tool, tool

__all__ = ["ReasoningStep", "ReasoningTools", "make_reasoning_tools"]

StepKind = Literal["think", "analyze"]

#: what a call past ``max_steps`` returns (and records nothing)
STOP_MESSAGE = (
    "Reasoning budget reached ({limit} steps): stop reasoning now and give your final answer."
)


@beta
@dataclass(frozen=True)
class ReasoningStep:
    """One recorded step: ``index`` counts from 1 across think and analyze."""

    index: int
    kind: StepKind
    content: str


@beta
class ReasoningTools:
    """The bounded log behind a ``think`` and an ``analyze`` tool (one shared budget)."""

    def __init__(self, min_steps: int = 1, max_steps: int | None = 10) -> None:
        if min_steps < 0:
            raise ValueError(f"min_steps must be 0 or more, got {min_steps}")
        if max_steps is not None and max_steps < 1:
            raise ValueError(
                f"max_steps must be at least 1 (or None for no limit), got {max_steps}"
            )
        if max_steps is not None and max_steps < min_steps:
            raise ValueError(f"max_steps ({max_steps}) must not be below min_steps ({min_steps})")
        self.min_steps = min_steps
        self.max_steps = max_steps
        self._steps: list[ReasoningStep] = []
        self._lock = threading.Lock()
        self._think = self._make("think")
        self._analyze = self._make("analyze")

    # -- the log -----------------------------------------------------------
    @property
    def steps(self) -> list[ReasoningStep]:
        with self._lock:
            return list(self._steps)

    @property
    def count(self) -> int:
        """Steps recorded so far (think and analyze together)."""
        with self._lock:
            return len(self._steps)

    def reset(self) -> None:
        """Forget the recorded steps, to reuse the tools for another run."""
        with self._lock:
            self._steps.clear()

    def record(self, kind: StepKind, content: str) -> str:
        """Record one step if the budget allows; the acknowledgement the model reads."""
        with self._lock:
            if self.max_steps is not None and len(self._steps) >= self.max_steps:
                return STOP_MESSAGE.format(limit=self.max_steps)
            index = len(self._steps) + 1
            self._steps.append(ReasoningStep(index, kind, content))
        parts = [f"Recorded {kind} step {index}."]
        remaining = self.min_steps - index
        if remaining > 0:
            parts.append(f"At least {remaining} more reasoning step(s) expected before answering.")
        if self.max_steps is not None:
            left = self.max_steps - index
            parts.append(
                f"{left} reasoning step(s) left."
                if left
                else "That was the last reasoning step: answer next."
            )
        return " ".join(parts)

    # -- the tools ---------------------------------------------------------
    @property
    def tools(self) -> list[Tool]:
        """``[think, analyze]``, both backed by this log."""
        return [self._think, self._analyze]

    def think_tool(self) -> Tool:
        return self._think

    def analyze_tool(self) -> Tool:
        return self._analyze

    def _bounds(self) -> str:
        cap = "no upper limit" if self.max_steps is None else f"at most {self.max_steps}"
        return (
            f"Use at least {self.min_steps} and {cap} reasoning steps in total "
            "(think and analyze share the budget)."
        )

    def _make(self, kind: StepKind) -> Tool:
        if kind == "think":
            description = (
                "Think one step before acting: write down one reasoning step (a plan, a "
                "hypothesis, what you need next). A scratchpad; it calls no external system. "
            ) + self._bounds()

            def think(thought: str) -> str:
                return self.record("think", thought)

            return tool(
                name="think",
                description=description,
                param_metadata={"thought": {"description": "One reasoning step, in prose."}},
            )(think)
        description = (
            "Analyze a result you have (a tool output, an intermediate answer): say what it "
            "shows and decide the next step. It calls no external system. "
        ) + self._bounds()

        def analyze(analysis: str) -> str:
            return self.record("analyze", analysis)

        return tool(
            name="analyze",
            description=description,
            param_metadata={
                "analysis": {"description": "What the result shows and what to do next."}
            },
        )(analyze)

    def __repr__(self) -> str:
        return (
            f"ReasoningTools(min_steps={self.min_steps}, max_steps={self.max_steps}, "
            f"count={self.count})"
        )


@beta
def make_reasoning_tools(min_steps: int = 1, max_steps: int | None = 10) -> list[Tool]:
    """Fresh ``think`` and ``analyze`` tools backed by a new bounded log."""
    return ReasoningTools(min_steps=min_steps, max_steps=max_steps).tools
