"""The composite steps: an agent, a nested pipeline, ``parallel``, ``branch`` and a cached step.

Each overrides only :meth:`Step._attempt`, the one try that retries, ``on_error``
and the trace wrap; nested steps run inside it with ``yield from``, so their
trace entries nest under ``"steps"``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from ..exceptions import BranchNotFoundError, PipelineError
from ..types import AgentResult
from ._effects import RunAgent, Together
from ._step import Program, Step

if TYPE_CHECKING:
    from ..cache import InMemoryCache
    from ._pipeline import Pipeline

__all__ = ["AgentStep", "BranchStep", "CachedStep", "ParallelStep", "PipelineStep"]


class AgentStep(Step):
    """An ``Agent`` as a step: the input is its prompt, the output its reply text."""

    def __init__(self, agent: Any) -> None:
        config = getattr(agent, "config", None)
        super().__init__(
            agent.run,
            name=getattr(config, "name", None) or "agent",
            input_type=str,
            output_type=str,
        )
        self.agent = agent

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.agent(*args, **kwargs)

    @staticmethod
    def _prompt(value: Any) -> Any:
        if not isinstance(value, (str, list)) and hasattr(value, "content"):
            return value.content  # an AgentResult (or a Message) from the previous step
        return value

    def _attempt(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> Program:
        result = yield RunAgent(self.agent, self._prompt(value))
        entry["agent_result"] = result
        return result.content

    async def _astream(self, value: Any, kwargs: dict[str, Any]) -> AsyncIterator[Any]:
        async for item in self.agent.astream(self._prompt(value)):
            text = item if isinstance(item, str) else getattr(item, "content", None)
            if text and not isinstance(item, AgentResult):
                yield text


class PipelineStep(Step):
    """A pipeline used as one step (inside ``parallel``/``branch``); its trace nests under ``steps``."""

    def __init__(self, pipeline: Pipeline) -> None:
        super().__init__(pipeline.run, name=pipeline.name)
        self.pipeline = pipeline
        first, last = (pipeline._steps[0], pipeline._steps[-1]) if pipeline._steps else (None, None)
        self.input_type = first.input_type if first else None
        self.output_type = last.output_type if last else None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.pipeline(*args, **kwargs)

    def _attempt(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> Program:
        result = yield from self.pipeline._program(value, kwargs)
        entry["steps"] = result.trace
        return result.output


class ParallelStep(Step):
    """Runs its branches on the same input; outputs ``{branch name: output}``.

    Blocking, the branches run one after the other; awaiting, they are gathered.
    """

    def __init__(self, branches: list[Step]) -> None:
        super().__init__(self._call_all, name="parallel", output_type=dict)
        self.branches = branches
        inputs = {b.input_type for b in branches}
        self.input_type = inputs.pop() if len(inputs) == 1 else None

    def _call_all(self, value: Any) -> dict[str, Any]:
        out: dict[str, Any] = self._attempt_now(value, {})
        return out

    def __call__(self, value: Any, **kwargs: Any) -> dict[str, Any]:
        out: dict[str, Any] = self._attempt_now(value, kwargs)
        return out

    def _attempt(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> Program:
        traces: list[list[dict[str, Any]]] = [[] for _ in self.branches]
        try:
            results = yield Together(
                [b._run(value, kwargs, t) for b, t in zip(self.branches, traces, strict=True)]
            )
        finally:  # the branches' entries in branch order, also when one of them raised
            entry["steps"] = [e for t in traces for e in t]
        return {b.name: out for b, (out, ok) in zip(self.branches, results, strict=True) if ok}


class BranchStep(Step):
    """Sends the input to the branch its key names (``router(input)``, or the input itself)."""

    def __init__(self, router: Callable[[Any], Any] | None, branches: dict[str, Step]) -> None:
        super().__init__(self._call_branch, name="branch")
        self.router = router
        self.branches = branches
        outs = {b.output_type for b in branches.values()}
        self.output_type = outs.pop() if len(outs) == 1 else None
        self.input_type = None

    def _call_branch(self, value: Any) -> Any:
        return self._attempt_now(value, {})

    def __call__(self, value: Any, **kwargs: Any) -> Any:
        return self._attempt_now(value, kwargs)

    def _choose(self, value: Any) -> tuple[str, Step]:
        """(the route taken, its step): the key's route, else ``default``."""
        if self.router is not None:
            key = self.router(value)
        elif isinstance(value, str):
            key = value
        elif isinstance(value, dict) and "branch" in value:
            key = value["branch"]
        else:
            raise PipelineError(
                f"branch() without a router needs a str or a dict with a 'branch' key as input, "
                f"got {type(value).__name__}: pass router=... to choose the branch"
            )
        if isinstance(key, str) and key in self.branches:
            return key, self.branches[key]
        if "default" in self.branches:
            return "default", self.branches["default"]
        raise BranchNotFoundError(
            f"branch key {key!r} matches no branch ({', '.join(self.branches)}) "
            "and there is no default=... branch"
        )

    def _attempt(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> Program:
        entry["branch"], chosen = self._choose(value)
        children: list[dict[str, Any]] = []
        entry["steps"] = children
        out, _ = yield from chosen._run(value, kwargs, children)
        return out


class CachedStep(Step):
    """A step whose outputs are remembered per input (``cache_step``); hits are marked ``cached``.

    The store is :class:`selectools.cache.InMemoryCache` (LRU, per-entry expiry,
    thread-safe), one per cached step, keyed by the input's type and ``repr``.
    """

    def __init__(self, inner: Step, cache: InMemoryCache) -> None:
        super().__init__(
            inner,
            name=inner.name,
            retry=inner.retry,
            on_error=inner.on_error,
            input_type=inner.input_type or Any,
            output_type=inner.output_type or Any,
        )
        self.inner = inner
        self.cache = cache
        self.input_type, self.output_type = inner.input_type, inner.output_type

    def __call__(self, value: Any, **kwargs: Any) -> Any:
        return self._attempt_now(value, kwargs)

    @staticmethod
    def _key(value: Any) -> str:
        return f"{type(value).__qualname__}:{value!r}"

    def _attempt(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> Program:
        key = self._key(value)
        hit = self.cache.get(key)
        if hit is not None:
            entry["cached"] = True
            return hit[0]
        out = yield from self.inner._attempt(value, kwargs, entry)
        self.cache.set(key, (out, None))
        return out
