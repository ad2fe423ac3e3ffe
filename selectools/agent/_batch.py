"""Batch runs: many prompts, bounded concurrency, input order kept, failures isolated."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Protocol

from .._bounded import gather_bounded
from .._progress import progress_bar
from ..observer import EventEmitter
from ..types import AgentResult, Message, Role

if TYPE_CHECKING:
    from ..structured import ResponseFormat
    from .core import Agent

__all__ = ["BatchExecutor", "failed_result", "run_batch", "run_batch_async"]


def failed_result(exc: BaseException) -> AgentResult:
    """The result of a prompt whose run raised: the error is the answer, the batch goes on."""
    message = Message(role=Role.ASSISTANT, content=f"Error: {type(exc).__name__}: {exc}")
    return AgentResult(message=message, stop_reason="error", error=exc)


class BatchExecutor(Protocol):
    """Runs a batch's prompts elsewhere, e.g. :class:`~selectools.evals.RayExecutor`.

    Results come back in prompt order; ``on_result`` is called once per prompt as
    results arrive (it drives progress and the error count).
    """

    def run_prompts(
        self,
        agent: Agent,
        prompts: Sequence[Any],
        max_concurrency: int,
        response_format: ResponseFormat | None,
        on_result: Callable[[AgentResult], None],
    ) -> list[AgentResult]: ...


def _check(max_concurrency: int) -> None:
    if not isinstance(max_concurrency, int) or max_concurrency < 1:
        raise ValueError(f"max_concurrency must be an int >= 1, got {max_concurrency!r}")


class _Progress:
    """Counts finished items and reports ``(completed, total)`` to each callback; thread-safe."""

    def __init__(self, total: int, *callbacks: Callable[[int, int], Any] | None) -> None:
        self.total = total
        self.callbacks = [callback for callback in callbacks if callback is not None]
        self.completed = 0
        self.errors = 0
        self._lock = threading.Lock()

    def done(self, failed: bool) -> None:
        with self._lock:
            self.completed += 1
            self.errors += failed
            completed = self.completed
            for callback in self.callbacks:
                callback(completed, self.total)


def run_batch(
    agent: Agent,
    prompts: Sequence[Any],
    max_concurrency: int,
    response_format: ResponseFormat | None,
    on_progress: Callable[[int, int], Any] | None,
    show_progress: bool,
    executor: BatchExecutor | None = None,
) -> list[AgentResult]:
    _check(max_concurrency)
    with progress_bar(show_progress, len(prompts), "batch") as bar:
        return _run_batch(
            agent, prompts, max_concurrency, response_format, on_progress, bar, executor
        )


def _run_batch(
    agent: Agent,
    prompts: Sequence[Any],
    max_concurrency: int,
    response_format: ResponseFormat | None,
    on_progress: Callable[[int, int], Any] | None,
    bar: Callable[[int, int], Any] | None,
    executor: BatchExecutor | None,
) -> list[AgentResult]:
    batch_id = os.urandom(16).hex()
    emitter = EventEmitter(batch_id, agent.config.observers)
    started = time.perf_counter()
    emitter.emit("on_batch_start", len(prompts))
    progress = _Progress(len(prompts), on_progress, bar)

    def one(prompt: Any) -> AgentResult:
        try:
            result = agent.run(prompt, response_format=response_format)
        except Exception as exc:
            progress.done(True)
            return failed_result(exc)
        progress.done(result.error is not None)
        return result

    if executor is not None:
        results = executor.run_prompts(
            agent,
            prompts,
            max_concurrency,
            response_format,
            lambda result: progress.done(result.error is not None),
        )
    elif prompts:
        with ThreadPoolExecutor(max_workers=min(max_concurrency, len(prompts))) as pool:
            results = list(pool.map(one, prompts))
    else:
        results = []
    emitter.emit(
        "on_batch_end", len(results), progress.errors, (time.perf_counter() - started) * 1000.0
    )
    return results


async def run_batch_async(
    agent: Agent,
    prompts: Sequence[Any],
    max_concurrency: int,
    response_format: ResponseFormat | None,
    on_progress: Callable[[int, int], Any] | None,
    show_progress: bool,
) -> list[AgentResult]:
    _check(max_concurrency)
    with progress_bar(show_progress, len(prompts), "batch") as bar:
        return await _run_batch_async(
            agent, prompts, max_concurrency, response_format, on_progress, bar
        )


async def _run_batch_async(
    agent: Agent,
    prompts: Sequence[Any],
    max_concurrency: int,
    response_format: ResponseFormat | None,
    on_progress: Callable[[int, int], Any] | None,
    bar: Callable[[int, int], Any] | None,
) -> list[AgentResult]:
    batch_id = os.urandom(16).hex()
    emitter = EventEmitter(batch_id, agent.config.observers, async_mode=True)
    started = time.perf_counter()
    emitter.emit("on_batch_start", len(prompts))
    await emitter.flush()
    progress = _Progress(len(prompts), on_progress, bar)

    async def one(_: int, prompt: Any) -> AgentResult:
        try:
            result = await agent.arun(prompt, response_format=response_format)
        except Exception as exc:
            result = failed_result(exc)
        progress.done(result.error is not None)
        return result

    results = await gather_bounded(prompts, one, max_concurrency)
    emitter.emit(
        "on_batch_end", len(results), progress.errors, (time.perf_counter() - started) * 1000.0
    )
    await emitter.flush()
    return results
