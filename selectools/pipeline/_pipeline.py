"""The pipeline: steps run in order, each on the previous output, and the result it returns.

:meth:`Pipeline._program` is the whole run as one effect program;
:meth:`Pipeline.run` drives it blocking, :meth:`Pipeline.arun` on the event loop
(:mod:`selectools._driver`).
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import AsyncIterator, Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._display import RichDisplay
from .._driver import drive_async, drive_sync
from ..exceptions import PipelineError
from ..stability import beta
from ._contracts import check_junction
from ._effects import perform_async, perform_sync
from ._kinds import AgentStep, PipelineStep
from ._step import Step

__all__ = ["STATE_KEY_LAST_OUTPUT", "Pipeline", "StepResult", "as_step", "steps_of"]

#: The graph handoff key; the same value as ``selectools.orchestration.STATE_KEY_LAST_OUTPUT``.
STATE_KEY_LAST_OUTPUT = "__last_output__"


@dataclass
class StepResult(RichDisplay):
    """What :meth:`Pipeline.run` returns: the final ``output``, the per-step ``trace``, ``steps_run``."""

    output: Any
    trace: list[dict[str, Any]] = field(default_factory=list)
    steps_run: int = 0

    def __repr__(self) -> str:
        statuses = ", ".join(f"{e['step']}:{e['status']}" for e in self.trace)
        return f"StepResult(output={self.output!r}, steps_run={self.steps_run}, trace=[{statuses}])"


def _agent_class() -> type | None:
    """``Agent`` if its module is loaded (an object cannot be an Agent otherwise): no import cost."""
    module = sys.modules.get("selectools.agent.core")
    return getattr(module, "Agent", None) if module is not None else None


def as_step(obj: Any) -> Step:
    """``obj`` as a :class:`Step`: steps as they are, agents and pipelines wrapped, callables auto-wrapped."""
    if isinstance(obj, Step):
        return obj
    agent = _agent_class()
    if agent is not None and isinstance(obj, agent):
        return AgentStep(obj)
    if isinstance(obj, Pipeline):
        return PipelineStep(obj)
    if callable(obj):
        return Step(obj)
    raise PipelineError(
        f"cannot use {obj!r} ({type(obj).__name__}) as a pipeline step: "
        "pass a function, a @step, a Pipeline or an Agent"
    )


def steps_of(obj: Any) -> tuple[Step, ...]:
    """The steps ``obj`` contributes to a sequence: a pipeline's own steps (flattened), or one step."""
    if isinstance(obj, Step):
        return (obj,)
    if isinstance(obj, Pipeline):
        return obj._steps
    return (as_step(obj),)


@beta
class Pipeline(RichDisplay):
    """Steps run in order, each on the previous output. Build with ``|`` or ``Pipeline(steps=[...])``."""

    def __init__(
        self,
        steps: Sequence[Step | Pipeline | Callable[..., Any]] | None = None,
        name: str = "pipeline",
    ) -> None:
        flat: list[Step] = []
        for item in steps or ():
            flat.extend(steps_of(item))
        for left, right in itertools.pairwise(flat):
            check_junction(left, right, stacklevel=3)
        self._steps: tuple[Step, ...] = tuple(flat)
        self.name = name

    @classmethod
    def _compose(cls, left: Sequence[Step], right: Sequence[Step]) -> Pipeline:
        """``left | right``: only the new junction is type-checked (the rest was checked before)."""
        if left and right:
            check_junction(left[-1], right[0])
        pipeline = object.__new__(cls)
        pipeline._steps = (*left, *right)
        pipeline.name = "pipeline"
        return pipeline

    @property
    def steps(self) -> list[Step]:
        """The steps in order (a copy: a pipeline does not change once built)."""
        return list(self._steps)

    def __len__(self) -> int:
        return len(self._steps)

    def __repr__(self) -> str:
        return f"Pipeline({' | '.join(s.name for s in self._steps) or 'empty'})"

    def __or__(self, other: Any) -> Pipeline:
        return Pipeline._compose(self._steps, steps_of(other))

    def __ror__(self, other: Any) -> Pipeline:
        return Pipeline._compose(steps_of(other), self._steps)

    def _program(self, input: Any, kwargs: dict[str, Any]) -> Generator[Any, Any, StepResult]:
        """Every step in order, as one effect program returning the :class:`StepResult`."""
        trace: list[dict[str, Any]] = []
        value, done = input, 0
        for s in self._steps:
            value, ok = yield from s._run(value, kwargs, trace)
            done += ok
        return StepResult(output=value, trace=trace, steps_run=done)

    def run(self, input: Any, **kwargs: Any) -> StepResult:
        """Run every step in order; keyword arguments go to the steps whose function accepts them."""
        result: StepResult = drive_sync(self._program(input, kwargs), perform_sync, catch=Exception)
        return result

    async def arun(self, input: Any, **kwargs: Any) -> StepResult:
        """As :meth:`run`, awaiting async steps (``parallel`` groups run concurrently)."""
        result: StepResult = await drive_async(
            self._program(input, kwargs), perform_async, catch=Exception
        )
        return result

    async def astream(self, input: Any, **kwargs: Any) -> AsyncIterator[Any]:
        """Run all steps but the last, then yield the last step's output chunks as they come.

        A generator last step (sync or async) yields its chunks; an agent yields its text
        chunks; any other step yields its whole output as one chunk.
        """
        if not self._steps:
            yield input
            return
        *head, last = self._steps
        value = (await Pipeline._compose(head, ()).arun(input, **kwargs)).output if head else input
        async for chunk in last._astream(value, kwargs):
            yield chunk

    def __call__(self, state: Any, **kwargs: Any) -> Any:
        """An ``AgentGraph`` node: graph state in, same state out; any other input: the output."""
        if not _is_graph_state(state):
            return self.run(state, **kwargs).output
        data = state.data
        if STATE_KEY_LAST_OUTPUT in data:
            value = data[STATE_KEY_LAST_OUTPUT]
        elif state.messages:
            value = state.messages[-1].content
        else:
            raise PipelineError(
                f"pipeline {self.name!r} got a graph state with no {STATE_KEY_LAST_OUTPUT!r} in "
                "state.data and no messages: there is no input to run on"
            )
        data[STATE_KEY_LAST_OUTPUT] = self.run(value, **kwargs).output
        return state


def _is_graph_state(obj: Any) -> bool:
    return isinstance(getattr(obj, "data", None), dict) and isinstance(
        getattr(obj, "messages", None), list
    )
