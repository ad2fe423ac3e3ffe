"""Running eval cases, or a batch of prompts, on a Ray cluster when one machine is not enough.

``EvalSuite(..., executor=RayExecutor())`` splits the cases into chunks, ships
the agent and the evaluators once (``ray.put``), runs each chunk as a Ray task
with the suite's own local code (fresh agent per case, ``max_concurrency``
threads inside the task) and gathers the results in case order. Ray does the
scheduling; this module only chunks and reassembles, so the report is the same
as a local run's (latencies aside: they are measured where the case ran).
``Agent.batch(prompts, executor=RayExecutor())`` does the same for a batch: each
chunk is an ``agent.batch`` on a worker, results come back in prompt order, a
failed prompt (or a lost task) is an error result for its prompts only, and the
workers' token usage is added to the caller's agent.

Locks are not picklable, so what we ship (the suite, the agent, the results) is
pickled by our own ``CloudPickler`` subclass that sends a ``threading.Lock`` /
``RLock`` as a new, unlocked one. Only that pickler instance knows the rule:
nothing is registered with Ray, so the user's own Ray objects serialise exactly
as they would without selectools. State a provider keeps between calls (a
ScriptedProvider's position in a reply list) is per worker: give cluster runs a
provider whose answer depends on the request.
"""

from __future__ import annotations

import copy
import io
import math
import pickle
import threading
from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from .._install import install_hint
from .case import CaseResult, EvalError, TestCase

if TYPE_CHECKING:
    from ..agent.core import Agent
    from ..structured import ResponseFormat
    from ..types import AgentResult
    from .suite import EvalSuite

__all__ = ["RayExecutor"]

_LOCK_TYPES: dict[type, Callable[[], object]] = {
    type(threading.Lock()): threading.Lock,
    type(threading.RLock()): threading.RLock,
}


@cache
def _pickler_class() -> type[Any]:
    """A CloudPickler that sends locks as new ones (defined on first use: Ray is optional)."""
    from ray import cloudpickle

    class LockFreePickler(cloudpickle.CloudPickler):
        def reducer_override(self, obj: Any) -> Any:
            make = _LOCK_TYPES.get(type(obj))
            if make is not None:
                return make, ()
            # ray's vendored cloudpickle is unannotated
            return super().reducer_override(obj)  # type: ignore[no-untyped-call]

    return LockFreePickler


def _dumps(obj: object) -> bytes:
    buffer = io.BytesIO()
    _pickler_class()(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buffer.getvalue()


def _run_chunk(suite_blob: bytes, cases: list[TestCase]) -> list[CaseResult]:
    suite: EvalSuite = pickle.loads(suite_blob)
    return [r.without_result() for r in suite.run_cases(cases)]


def _run_prompts(
    agent_blob: bytes, prompts: list[Any], max_concurrency: int, format_blob: bytes
) -> bytes:
    agent: Agent = pickle.loads(agent_blob)
    response_format = pickle.loads(format_blob)
    results = agent.batch(prompts, max_concurrency, response_format, progress=False)
    return _dumps(results)


class RayExecutor:
    """Run eval cases, or ``Agent.batch`` prompts, as Ray tasks.

    ``address`` connects to an existing cluster when Ray is not initialised yet
    (``None``: ``ray.init()`` starts or joins a local one, with ``init_options``);
    ``chunk_size`` is the cases or prompts per task (default: about four tasks
    per CPU of the cluster). ``runtime_env`` is each task's Ray runtime
    environment: ``{"env_vars": {"OPENAI_API_KEY": key}}`` is how API keys reach
    workers that do not share the driver's environment. ``task_options`` go to
    Ray's ``.options()`` (e.g. ``num_cpus``, ``max_retries``).
    """

    def __init__(
        self,
        *,
        address: str | None = None,
        chunk_size: int | None = None,
        init_options: dict[str, Any] | None = None,
        runtime_env: dict[str, Any] | None = None,
        task_options: dict[str, Any] | None = None,
    ) -> None:
        if chunk_size is not None and chunk_size < 1:
            raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
        self.address = address
        self.chunk_size = chunk_size
        self.init_options = dict(init_options or {})
        self.task_options = dict(task_options or {})
        if runtime_env is not None:
            self.task_options["runtime_env"] = runtime_env

    def __repr__(self) -> str:  # never the runtime_env: it carries keys
        return f"RayExecutor(address={self.address!r}, chunk_size={self.chunk_size})"

    def _ray(self) -> Any:
        try:
            import ray
        except ModuleNotFoundError:
            raise EvalError(
                f"RayExecutor needs Ray: {install_hint('evals-ray')} (or pip install ray)"
            ) from None
        if not ray.is_initialized():
            ray.init(address=self.address, **self.init_options)
        return ray

    def _task(self, ray: Any, function: Callable[..., Any]) -> Any:
        task = ray.remote(function)
        return task.options(**self.task_options) if self.task_options else task

    def _chunks(self, ray: Any, items: Sequence[Any]) -> list[list[Any]]:
        size = self.chunk_size
        if size is None:
            cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
            size = max(1, math.ceil(len(items) / (4 * cpus)))
        return [list(items[i : i + size]) for i in range(0, len(items), size)]

    def run_cases(
        self, suite: EvalSuite, cases: Sequence[TestCase], on_done: Callable[[int], None]
    ) -> list[CaseResult]:
        if not cases:
            return []
        ray = self._ray()
        portable = copy.copy(suite)
        portable.on_progress = None  # progress is reported here, as chunks finish
        portable.executor = None
        portable.cases = []  # each task gets its own chunk; the whole list was 1.4 MB a task
        shipped = ray.put(_dumps(portable))
        chunks = self._chunks(ray, cases)
        task = self._task(ray, _run_chunk)
        pending = {task.remote(shipped, chunk): n for n, chunk in enumerate(chunks)}
        finished: dict[int, list[CaseResult]] = {}
        waiting = list(pending)
        while waiting:
            ready, waiting = ray.wait(waiting, num_returns=1)
            for ref in ready:
                index = pending[ref]
                finished[index] = ray.get(ref)
                on_done(len(finished[index]))
        results: list[CaseResult] = []
        for index, chunk in enumerate(chunks):
            for case, result in zip(chunk, finished[index], strict=True):
                result.case = case  # the caller's own TestCase object
                results.append(result)
        return results

    def run_prompts(
        self,
        agent: Agent,
        prompts: Sequence[Any],
        max_concurrency: int,
        response_format: ResponseFormat | None,
        on_result: Callable[[AgentResult], None],
    ) -> list[AgentResult]:
        """``Agent.batch(..., executor=self)``: each chunk is a batch on a worker."""
        from ..agent._batch import failed_result

        if not prompts:
            return []
        ray = self._ray()
        shipped = ray.put(_dumps(agent))
        response_format_blob = _dumps(response_format)
        chunks = self._chunks(ray, prompts)
        task = self._task(ray, _run_prompts)
        pending = {
            task.remote(shipped, chunk, max_concurrency, response_format_blob): n
            for n, chunk in enumerate(chunks)
        }
        finished: dict[int, list[AgentResult]] = {}
        waiting = list(pending)
        while waiting:
            ready, waiting = ray.wait(waiting, num_returns=1)
            for ref in ready:
                index = pending[ref]
                try:
                    results: list[AgentResult] = pickle.loads(ray.get(ref))
                except Exception as exc:  # the task was lost (worker died, node gone)
                    results = [failed_result(exc) for _ in chunks[index]]
                finished[index] = results
                for result in results:
                    if result.usage is not None:
                        with agent._lock:  # the workers' calls count in the caller's totals
                            agent.usage.merge(result.usage)
                    on_result(result)
        return [result for index in range(len(chunks)) for result in finished[index]]
