"""Running a suite's cases on a Ray cluster when one machine is not enough.

``EvalSuite(..., executor=RayExecutor())`` splits the cases into chunks, ships
the agent and the evaluators once (``ray.put``), runs each chunk as a Ray task
with the suite's own local code (fresh agent per case, ``max_concurrency``
threads inside the task) and gathers the results in case order. Ray does the
scheduling; this module only chunks and reassembles, so the report is the same
as a local run's (latencies aside: they are measured where the case ran).

Locks are not picklable, so the executor teaches Ray's serializer to send a
``threading.Lock``/``RLock`` as a new, unlocked one. State a provider keeps
between calls (a ScriptedProvider's position in a reply list) is per worker:
give cluster runs a provider whose answer depends on the request.
"""

from __future__ import annotations

import copy
import math
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .._install import install_hint
from .case import CaseResult, EvalError, TestCase

if TYPE_CHECKING:
    from .suite import EvalSuite

__all__ = ["RayExecutor"]

_remote: Any = None


def _run_chunk(suite: EvalSuite, cases: list[TestCase]) -> list[CaseResult]:
    return [r.without_result() for r in suite.run_cases(cases)]


def _new_lock(_: object) -> Any:
    return threading.Lock()


def _new_rlock(_: object) -> Any:
    return threading.RLock()


def _register(ray: Any) -> None:
    """Send locks as new ones; registered on every use (a new Ray session starts without it)."""
    ray.util.register_serializer(
        type(threading.Lock()), serializer=_no_state, deserializer=_new_lock
    )
    ray.util.register_serializer(
        type(threading.RLock()), serializer=_no_state, deserializer=_new_rlock
    )


def _no_state(_: object) -> None:
    return None


class RayExecutor:
    """Run eval cases as Ray tasks.

    ``address`` connects to an existing cluster when Ray is not initialised yet
    (``None``: ``ray.init()`` starts or joins a local one); ``chunk_size`` is
    the cases per task (default: about four tasks per CPU of the cluster).
    """

    def __init__(
        self,
        *,
        address: str | None = None,
        chunk_size: int | None = None,
        init_options: dict[str, Any] | None = None,
    ) -> None:
        if chunk_size is not None and chunk_size < 1:
            raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
        self.address = address
        self.chunk_size = chunk_size
        self.init_options = dict(init_options or {})

    def __repr__(self) -> str:
        return f"RayExecutor(address={self.address!r}, chunk_size={self.chunk_size})"

    def _ray(self) -> Any:
        global _remote
        try:
            import ray
        except ModuleNotFoundError:
            raise EvalError(
                f"RayExecutor needs Ray: {install_hint('evals-ray')} (or pip install ray)"
            ) from None
        if not ray.is_initialized():
            ray.init(address=self.address, **self.init_options)
        _register(ray)
        if _remote is None:
            _remote = ray.remote(_run_chunk)
        return ray

    def run_cases(
        self, suite: EvalSuite, cases: Sequence[TestCase], on_done: Callable[[int], None]
    ) -> list[CaseResult]:
        if not cases:
            return []
        ray = self._ray()
        size = self.chunk_size
        if size is None:
            cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
            size = max(1, math.ceil(len(cases) / (4 * cpus)))
        portable = copy.copy(suite)
        portable.on_progress = None  # progress is reported here, as chunks finish
        portable.executor = None
        shipped = ray.put(portable)
        chunks = [list(cases[i : i + size]) for i in range(0, len(cases), size)]
        pending = {_remote.remote(shipped, chunk): n for n, chunk in enumerate(chunks)}
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
