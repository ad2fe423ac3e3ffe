"""The functions that build steps: ``step``, ``parallel``, ``branch``, ``retry``, ``cache_step``.

They check their arguments (a :class:`~selectools.exceptions.PipelineError` says
what was wrong) and return a :class:`Step`, so every builder composes with ``|``.
"""

from __future__ import annotations

import time
import typing
from collections.abc import Callable
from typing import Any

from ..exceptions import PipelineError
from ._kinds import BranchStep, CachedStep, ParallelStep
from ._pipeline import Pipeline, as_step
from ._step import Step

__all__ = ["branch", "cache_step", "parallel", "retry", "step"]


@typing.overload
def step(fn: Callable[..., Any], /) -> Step: ...


@typing.overload
def step(
    fn: None = None, /, *, name: str | None = None, retry: int = 0, on_error: str = "raise"
) -> Callable[[Callable[..., Any]], Step]: ...


def step(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    retry: int = 0,
    on_error: str = "raise",
) -> Step | Callable[[Callable[..., Any]], Step]:
    """Make ``fn`` a :class:`Step` (``@step`` or ``@step(name=..., retry=..., on_error=...)``)."""
    if fn is not None:
        return Step(fn, name=name, retry=retry, on_error=on_error)

    def decorate(f: Callable[..., Any]) -> Step:
        return Step(f, name=name, retry=retry, on_error=on_error)

    return decorate


def parallel(*steps_or_fns: Step | Pipeline | Callable[..., Any]) -> Step:
    """A step running every given step on the same input; outputs ``{step name: output}``."""
    if not steps_or_fns:
        raise PipelineError("parallel() needs at least one step")
    branches = [as_step(s) for s in steps_or_fns]
    names = [b.name for b in branches]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise PipelineError(
            f"parallel() step names must differ (they key the output dict); repeated: {dupes}. "
            "Name them with step(fn, name=...)"
        )
    return ParallelStep(branches)


def branch(
    router: Callable[[Any], Any] | None = None, **named_steps: Step | Pipeline | Callable[..., Any]
) -> Step:
    """A step that runs one named branch, chosen by ``router(input)`` or by the input itself."""
    if not named_steps:
        raise PipelineError("branch() needs at least one named branch, e.g. branch(yes=f, no=g)")
    if router is not None and not callable(router):
        raise PipelineError(f"branch(router=...) must be callable, got {router!r}")
    return BranchStep(router, {key: as_step(s) for key, s in named_steps.items()})


def retry(step_or_fn: Step | Callable[..., Any], attempts: int = 3) -> Step:
    """A copy of the step that retries up to ``attempts`` times after a failure."""
    if not isinstance(attempts, int) or isinstance(attempts, bool) or attempts < 0:
        raise PipelineError(f"retry(attempts=...) must be a non-negative int, got {attempts!r}")
    return as_step(step_or_fn)._replace(retry=attempts)


def cache_step(
    step_or_fn: Step | Callable[..., Any],
    ttl: float = 300,
    max_size: int = 1000,
    *,
    clock: Callable[[], float] = time.monotonic,
) -> Step:
    """The step with an LRU + TTL cache of its outputs keyed by the input's type and repr."""
    if (
        isinstance(ttl, bool)
        or not isinstance(ttl, (int, float))
        or not ttl > 0
        or isinstance(max_size, bool)
        or not isinstance(max_size, int)
        or max_size < 1
    ):
        raise PipelineError(
            f"cache_step needs ttl > 0 and an int max_size >= 1, got ttl={ttl!r}, "
            f"max_size={max_size!r}"
        )
    from ..cache import InMemoryCache

    return CachedStep(as_step(step_or_fn), InMemoryCache(max_size, ttl, clock=clock))
