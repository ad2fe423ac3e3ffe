"""A step: one function with a name, retry count, error policy and type contract.

Each step is one effect program (:mod:`selectools._driver`): :meth:`Step._attempt`
is one try, :meth:`Step._run` wraps it with retries, ``on_error`` and the trace
entry. The composite steps (:mod:`._kinds`) override ``_attempt`` only.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import AsyncIterator, Callable, Generator
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .._driver import drive_async, drive_sync
from ..exceptions import PipelineError
from ..stability import beta
from ._contracts import hints, plain
from ._effects import Await, collect, perform_async, perform_sync

if TYPE_CHECKING:
    from ._pipeline import Pipeline

__all__ = ["Program", "Step"]

#: a step's effect program: yields effects, returns its output
Program = Generator[Any, Any, Any]

_ON_ERROR = ("raise", "skip")


@cache
def _pipeline_module() -> ModuleType:
    """``._pipeline``, which imports this module: looked up once (``|`` is on the hot path)."""
    from . import _pipeline

    return _pipeline


@beta
class Step:
    """A function with a name, retry count, error policy and type contract; composes with ``|``.

    ``step(x)`` calls the function directly. Retries, ``on_error`` and tracing apply when
    the step runs inside a :class:`Pipeline`.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        retry: int = 0,
        on_error: str = "raise",
        input_type: Any = None,
        output_type: Any = None,
    ) -> None:
        if not callable(fn):
            raise PipelineError(f"Step needs a callable, got {type(fn).__name__}: {fn!r}")
        if not isinstance(retry, int) or isinstance(retry, bool) or retry < 0:
            raise PipelineError(f"retry must be a non-negative int, got {retry!r}")
        if on_error not in _ON_ERROR:
            raise PipelineError(f"on_error must be 'raise' or 'skip', got {on_error!r}")
        self.fn = fn
        self.name = name or getattr(fn, "__name__", None) or type(fn).__name__
        self.retry = retry
        self.on_error = on_error
        inferred_in, inferred_out = (
            hints(fn) if input_type is None or output_type is None else (None, None)
        )
        self.input_type = input_type if input_type is not None else inferred_in
        self.output_type = output_type if output_type is not None else inferred_out
        self._is_async = inspect.iscoroutinefunction(fn)
        self._is_asyncgen = inspect.isasyncgenfunction(fn)
        self._is_gen = inspect.isgeneratorfunction(fn)
        # a plain function step needs no effect: it is called in place, the same in run and arun
        self._direct = type(self)._attempt is Step._attempt and not (
            self._is_async or self._is_asyncgen
        )
        self._kwargs: frozenset[str] | None = self._accepted_kwargs(fn)
        try:  # keep the wrapped function's identity for help() and IDEs
            self.__doc__ = fn.__doc__
            self.__wrapped__ = fn
        except AttributeError:
            pass

    # the declared types, and the classes a junction compares (computed once, when set)
    @property
    def input_type(self) -> Any:
        return self._input_type

    @input_type.setter
    def input_type(self, value: Any) -> None:
        self._input_type, self._in_cls = value, plain(value)

    @property
    def output_type(self) -> Any:
        return self._output_type

    @output_type.setter
    def output_type(self, value: Any) -> None:
        self._output_type, self._out_cls = value, plain(value)

    @staticmethod
    def _accepted_kwargs(fn: Callable[..., Any]) -> frozenset[str] | None:
        """Names of the keyword arguments ``fn`` takes (``None``: any, it has ``**kwargs``)."""
        try:
            params = list(inspect.signature(fn).parameters.values())[1:]
        except (TypeError, ValueError):
            return frozenset()
        if any(p.kind is p.VAR_KEYWORD for p in params):
            return None
        return frozenset(
            p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        )

    def _replace(self, **changes: Any) -> Step:
        """A copy with ``changes`` (the original is left as it was)."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.__dict__.update(changes)
        return clone

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        extras = "".join(
            [
                f", retry={self.retry}" if self.retry else "",
                f", on_error={self.on_error!r}" if self.on_error != "raise" else "",
            ]
        )
        return f"Step({self.name!r}{extras})"

    def __or__(self, other: Any) -> Pipeline:
        pipeline = _pipeline_module()
        composed: Pipeline = pipeline.Pipeline._compose((self,), pipeline.steps_of(other))
        return composed

    def __ror__(self, other: Any) -> Pipeline:
        pipeline = _pipeline_module()
        composed: Pipeline = pipeline.Pipeline._compose(pipeline.steps_of(other), (self,))
        return composed

    # -- one attempt (composite steps override) -----------------------------------------------

    def _pick(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        if not kwargs or self._kwargs is None:
            return kwargs
        return {k: v for k, v in kwargs.items() if k in self._kwargs}

    def _call(self, value: Any, kwargs: dict[str, Any]) -> Any:
        """A plain function (or sync generator) step, called in place."""
        out = self.fn(value, **self._pick(kwargs))
        return collect(list(out)) if self._is_gen else out

    def _attempt(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> Program:
        """One try at the step; what it learns for the trace goes into ``entry``."""
        if self._direct:
            return self._call(value, kwargs)
        return (yield Await(self.fn, value, self._pick(kwargs), self._is_asyncgen))

    def _attempt_now(self, value: Any, kwargs: dict[str, Any]) -> Any:
        """One untraced try, blocking (what calling a composite step directly does)."""
        return drive_sync(self._attempt(value, kwargs, {}), perform_sync, catch=Exception)

    async def _astream(self, value: Any, kwargs: dict[str, Any]) -> AsyncIterator[Any]:
        """The step's output as chunks: a generator's items, else the whole output once."""
        picked = self._pick(kwargs)
        if self._is_asyncgen:
            async for chunk in self.fn(value, **picked):
                yield chunk
        elif self._is_gen:
            for chunk in self.fn(value, **picked):
                yield chunk
        else:
            yield await drive_async(
                self._attempt(value, kwargs, {}), perform_async, catch=Exception
            )

    # -- traced execution with retry and on_error ---------------------------------------------

    def _run(self, value: Any, kwargs: dict[str, Any], trace: list[dict[str, Any]]) -> Program:
        """Returns (output, succeeded); appends this step's trace entries."""
        attempt = 0
        while True:
            entry: dict[str, Any] = {"step": self.name, "status": "ok"}
            start = time.perf_counter()
            try:
                if self._direct:
                    out = self._call(value, kwargs)
                else:
                    out = yield from self._attempt(value, kwargs, entry)
            except Exception as exc:
                if self._failed(entry, exc, attempt, start, trace):
                    attempt += 1
                    continue
                return value, False
            entry["duration_ms"] = (time.perf_counter() - start) * 1000
            if attempt:
                entry["retry"] = attempt
            trace.append(entry)
            return out, True

    def _failed(
        self,
        entry: dict[str, Any],
        exc: Exception,
        attempt: int,
        start: float,
        trace: list[dict[str, Any]],
    ) -> bool:
        """Record a failed attempt; True to retry, False to skip; re-raises under ``"raise"``."""
        entry["duration_ms"] = (time.perf_counter() - start) * 1000
        entry["error"] = f"{type(exc).__name__}: {exc}"
        if attempt:
            entry["retry"] = attempt
        if attempt < self.retry:
            entry["status"] = "retrying"
            trace.append(entry)
            return True
        entry["status"] = "skipped" if self.on_error == "skip" else "error"
        trace.append(entry)
        if self.on_error == "skip":
            return False
        raise exc
