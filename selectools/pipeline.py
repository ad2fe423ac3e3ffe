"""Composable pipelines of plain functions: ``@step``, ``|``, ``parallel``, ``branch``, ``retry``, ``cache_step``.

Why this module is small: a pipeline is a list of steps called in order, each
receiving the previous output. ``|`` builds that list; nothing is compiled and a
``@step`` function stays an ordinary function (``f(x)`` calls it directly, so
``print`` and breakpoints work). What the wrapper adds is what plain composition
lacks: per-step tracing (name, status, duration), retries, ``on_error="skip"``,
build-time type-contract warnings between adjacent steps, async execution and
streaming of the last step.

An :class:`~selectools.Agent` can be a step: it receives the previous output as
its prompt (an ``AgentResult`` input is reduced to its ``content``) and outputs
the reply text; the full ``AgentResult`` is kept in the step's trace entry under
``"agent_result"``.

A pipeline is also an ``AgentGraph`` callable node: called with a graph state
(an object with a ``data`` dict and a ``messages`` list), it reads the handoff
value ``state.data["__last_output__"]`` (the last message's ``content`` when the
key is absent), runs, writes the output back under the same key and returns the
state. Called with anything else, ``pipeline(x)`` is ``pipeline.run(x).output``.
"""

from __future__ import annotations

import inspect
import itertools
import sys
import threading
import time
import typing
import warnings
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._display import RichDisplay
from .exceptions import SelectoolsError
from .stability import beta
from .types import AgentResult

__all__ = [
    "Pipeline",
    "PipelineError",
    "PipelineTypeWarning",
    "Step",
    "StepResult",
    "branch",
    "cache_step",
    "parallel",
    "retry",
    "step",
]

#: The graph handoff key; the same value as ``selectools.orchestration.STATE_KEY_LAST_OUTPUT``.
STATE_KEY_LAST_OUTPUT = "__last_output__"

_ON_ERROR = ("raise", "skip")
_SKIP_TYPES: tuple[Any, ...] = (Any, object, None)
# PEP 484's numeric tower: an int is acceptable where a float or complex is expected.
_NUMERIC_OK = {(int, float), (int, complex), (float, complex)}


class PipelineError(SelectoolsError):
    """A pipeline or step was built or called with something it cannot use."""


class BranchNotFoundError(PipelineError, KeyError):
    """``branch()`` got a key that names no branch and there is no ``default``."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0])


class PipelineTypeWarning(UserWarning):
    """Adjacent steps declare incompatible types (advisory: the pipeline still runs)."""


@dataclass
class StepResult(RichDisplay):
    """What :meth:`Pipeline.run` returns: the final ``output``, the per-step ``trace``, ``steps_run``."""

    output: Any
    trace: list[dict[str, Any]] = field(default_factory=list)
    steps_run: int = 0

    def __repr__(self) -> str:
        statuses = ", ".join(f"{e['step']}:{e['status']}" for e in self.trace)
        return f"StepResult(output={self.output!r}, steps_run={self.steps_run}, trace=[{statuses}])"


# ----------------------------------------------------------------------------------------------
# type contracts


def _hints(fn: Callable[..., Any]) -> tuple[Any, Any]:
    """(first parameter's annotation, return annotation) of ``fn``, ``None`` where unknown."""
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # unresolvable forward references, builtins without annotations
        return None, None
    try:
        params = [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
        ]
    except (TypeError, ValueError):
        params = []
    first = hints.get(params[0].name) if params else None
    return first, hints.get("return")


def _plain(tp: Any) -> type | None:
    """The class to compare for ``tp`` (a generic's origin), or ``None`` when not checkable."""
    if tp in _SKIP_TYPES:
        return None
    origin = typing.get_origin(tp)
    if origin is not None:
        tp = origin
    return tp if isinstance(tp, type) else None  # Union, Optional, TypeVar...: not checked


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or repr(tp)


def _check_junction(left: Step, right: Step, stacklevel: int = 4) -> None:
    out, inp = left._out_cls, right._in_cls
    if out is None or inp is None or issubclass(out, inp) or (out, inp) in _NUMERIC_OK:
        return
    warnings.warn(
        f"Pipeline type mismatch: {left.name!r} outputs {_type_name(left.output_type)} "
        f"but {right.name!r} expects {_type_name(right.input_type)}",
        PipelineTypeWarning,
        stacklevel=stacklevel,
    )


# ----------------------------------------------------------------------------------------------
# steps


def _agent_class() -> type | None:
    """``Agent`` if its module is loaded (an object cannot be an Agent otherwise): no import cost."""
    module = sys.modules.get("selectools.agent.core")
    return getattr(module, "Agent", None) if module is not None else None


def _collect(chunks: list[Any]) -> Any:
    """The output of a generator step outside streaming: joined text, or the list of chunks."""
    if all(isinstance(c, str) for c in chunks):
        return "".join(chunks)
    return chunks


def as_step(obj: Any) -> Step:
    """``obj`` as a :class:`Step`: steps as they are, agents and pipelines wrapped, callables auto-wrapped."""
    if isinstance(obj, Step):
        return obj
    agent = _agent_class()
    if agent is not None and isinstance(obj, agent):
        return _AgentStep(obj)
    if isinstance(obj, Pipeline):
        return _PipelineStep(obj)
    if callable(obj):
        return Step(obj)
    raise PipelineError(
        f"cannot use {obj!r} ({type(obj).__name__}) as a pipeline step: "
        "pass a function, a @step, a Pipeline or an Agent"
    )


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
            _hints(fn) if input_type is None or output_type is None else (None, None)
        )
        self.input_type = input_type if input_type is not None else inferred_in
        self.output_type = output_type if output_type is not None else inferred_out
        self._is_async = inspect.iscoroutinefunction(fn)
        self._is_asyncgen = inspect.isasyncgenfunction(fn)
        self._is_gen = inspect.isgeneratorfunction(fn)
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
        self._input_type, self._in_cls = value, _plain(value)

    @property
    def output_type(self) -> Any:
        return self._output_type

    @output_type.setter
    def output_type(self, value: Any) -> None:
        self._output_type, self._out_cls = value, _plain(value)

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
        return Pipeline._compose((self,), _steps_of(other))

    def __ror__(self, other: Any) -> Pipeline:
        return Pipeline._compose(_steps_of(other), (self,))

    # -- one attempt (subclasses override) ---------------------------------------------------

    def _pick(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        if not kwargs or self._kwargs is None:
            return kwargs
        return {k: v for k, v in kwargs.items() if k in self._kwargs}

    def _once(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> Any:
        if self._is_async or self._is_asyncgen:
            from ._async_bridge import run_sync

            return run_sync(self._aonce(value, kwargs, entry))
        out = self.fn(value, **self._pick(kwargs)) if kwargs else self.fn(value)
        return _collect(list(out)) if self._is_gen else out

    async def _aonce(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> Any:
        picked = self._pick(kwargs)
        if self._is_asyncgen:
            return _collect([chunk async for chunk in self.fn(value, **picked)])
        if self._is_async:
            return await self.fn(value, **picked)
        return self._once(value, kwargs, entry)

    async def _astream(self, value: Any, kwargs: dict[str, Any]) -> AsyncIterator[Any]:
        picked = self._pick(kwargs)
        if self._is_asyncgen:
            async for chunk in self.fn(value, **picked):
                yield chunk
        elif self._is_gen:
            for chunk in self.fn(value, **picked):
                yield chunk
        else:
            yield await self._aonce(value, kwargs, {})

    # -- traced execution with retry and on_error ---------------------------------------------

    def _run(
        self, value: Any, kwargs: dict[str, Any], trace: list[dict[str, Any]]
    ) -> tuple[Any, bool]:
        """(output, succeeded); appends this step's trace entries."""
        attempt = 0
        while True:
            entry: dict[str, Any] = {"step": self.name, "status": "ok"}
            start = time.perf_counter()
            try:
                out = self._once(value, kwargs, entry)
            except Exception as exc:
                if self._failed(entry, exc, attempt, start, trace):
                    attempt += 1
                    continue
                return value, False
            self._succeeded(entry, attempt, start, trace)
            return out, True

    async def _arun(
        self, value: Any, kwargs: dict[str, Any], trace: list[dict[str, Any]]
    ) -> tuple[Any, bool]:
        attempt = 0
        while True:
            entry: dict[str, Any] = {"step": self.name, "status": "ok"}
            start = time.perf_counter()
            try:
                out = await self._aonce(value, kwargs, entry)
            except Exception as exc:
                if self._failed(entry, exc, attempt, start, trace):
                    attempt += 1
                    continue
                return value, False
            self._succeeded(entry, attempt, start, trace)
            return out, True

    @staticmethod
    def _succeeded(
        entry: dict[str, Any], attempt: int, start: float, trace: list[dict[str, Any]]
    ) -> None:
        """Record a successful attempt (and how many retries it took)."""
        entry["duration_ms"] = (time.perf_counter() - start) * 1000
        if attempt:
            entry["retry"] = attempt
        trace.append(entry)

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


def _steps_of(obj: Any) -> tuple[Step, ...]:
    """The steps ``obj`` contributes to a sequence: a pipeline's own steps (flattened), or one step."""
    if isinstance(obj, Step):
        return (obj,)
    if isinstance(obj, Pipeline):
        return obj._steps
    return (as_step(obj),)


class _AgentStep(Step):
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

    def _once(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> Any:
        result = self.agent.run(self._prompt(value))
        entry["agent_result"] = result
        return result.content

    async def _aonce(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> Any:
        result = await self.agent.arun(self._prompt(value))
        entry["agent_result"] = result
        return result.content

    async def _astream(self, value: Any, kwargs: dict[str, Any]) -> AsyncIterator[Any]:
        async for item in self.agent.astream(self._prompt(value)):
            text = item if isinstance(item, str) else getattr(item, "content", None)
            if text and not isinstance(item, AgentResult):
                yield text


class _PipelineStep(Step):
    """A pipeline used as one step (inside ``parallel``/``branch``); its trace nests under ``steps``."""

    def __init__(self, pipeline: Pipeline) -> None:
        super().__init__(pipeline.run, name=pipeline.name)
        self.pipeline = pipeline
        first, last = (pipeline._steps[0], pipeline._steps[-1]) if pipeline._steps else (None, None)
        self.input_type = first.input_type if first else None
        self.output_type = last.output_type if last else None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.pipeline(*args, **kwargs)

    def _once(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> Any:
        result = self.pipeline.run(value, **kwargs)
        entry["steps"] = result.trace
        return result.output

    async def _aonce(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> Any:
        result = await self.pipeline.arun(value, **kwargs)
        entry["steps"] = result.trace
        return result.output


class _ParallelStep(Step):
    """Runs its branches on the same input; outputs ``{branch name: output}``."""

    def __init__(self, branches: list[Step]) -> None:
        super().__init__(self._call_all, name="parallel", output_type=dict)
        self.branches = branches
        inputs = {b.input_type for b in branches}
        self.input_type = inputs.pop() if len(inputs) == 1 else None

    def _call_all(self, value: Any) -> dict[str, Any]:
        return self._once(value, {}, {})

    def __call__(self, value: Any, **kwargs: Any) -> dict[str, Any]:
        return self._once(value, kwargs, {})

    def _once(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
        children: list[dict[str, Any]] = []
        entry["steps"] = children
        outputs: dict[str, Any] = {}
        for b in self.branches:
            out, ok = b._run(value, kwargs, children)
            if ok:
                outputs[b.name] = out
        return outputs

    async def _aonce(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> Any:
        import asyncio

        traces: list[list[dict[str, Any]]] = [[] for _ in self.branches]
        results = await asyncio.gather(
            *(b._arun(value, kwargs, t) for b, t in zip(self.branches, traces, strict=True))
        )
        entry["steps"] = [e for t in traces for e in t]
        return {b.name: out for b, (out, ok) in zip(self.branches, results, strict=True) if ok}


class _BranchStep(Step):
    """Sends the input to the branch its key names (``router(input)``, or the input itself)."""

    def __init__(self, router: Callable[[Any], Any] | None, branches: dict[str, Step]) -> None:
        super().__init__(self._call_branch, name="branch")
        self.router = router
        self.branches = branches
        outs = {b.output_type for b in branches.values()}
        self.output_type = outs.pop() if len(outs) == 1 else None
        self.input_type = None

    def _call_branch(self, value: Any) -> Any:
        return self._once(value, {}, {})

    def __call__(self, value: Any, **kwargs: Any) -> Any:
        return self._once(value, kwargs, {})

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

    def _once(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> Any:
        entry["branch"], chosen = self._choose(value)
        children: list[dict[str, Any]] = []
        entry["steps"] = children
        out, _ = chosen._run(value, kwargs, children)
        return out

    async def _aonce(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> Any:
        entry["branch"], chosen = self._choose(value)
        children: list[dict[str, Any]] = []
        entry["steps"] = children
        out, _ = await chosen._arun(value, kwargs, children)
        return out


class _TTLCache:
    """LRU + TTL map of input keys to outputs, one per cached step; thread-safe."""

    def __init__(self, ttl: float, max_size: int, clock: Callable[[], float]) -> None:
        self.ttl, self.max_size, self.clock = ttl, max_size, clock
        self._items: OrderedDict[str, tuple[float, Any]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(value: Any) -> str:
        return f"{type(value).__qualname__}:{value!r}"

    def get(self, key: str) -> tuple[bool, Any]:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return False, None
            if self.clock() >= item[0]:
                del self._items[key]
                return False, None
            self._items.move_to_end(key)
            return True, item[1]

    def put(self, key: str, value: Any) -> None:
        with self._lock:
            self._items[key] = (self.clock() + self.ttl, value)
            self._items.move_to_end(key)
            while len(self._items) > self.max_size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


class _CachedStep(Step):
    """A step whose outputs are remembered per input (``cache_step``); hits are marked ``cached``."""

    def __init__(self, inner: Step, cache: _TTLCache) -> None:
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
        return self._once(value, kwargs, {})

    def _once(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> Any:
        key = self.cache.key(value)
        hit, out = self.cache.get(key)
        if hit:
            entry["cached"] = True
            return out
        out = self.inner._once(value, kwargs, entry)
        self.cache.put(key, out)
        return out

    async def _aonce(self, value: Any, kwargs: dict[str, Any], entry: dict[str, Any]) -> Any:
        key = self.cache.key(value)
        hit, out = self.cache.get(key)
        if hit:
            entry["cached"] = True
            return out
        out = await self.inner._aonce(value, kwargs, entry)
        self.cache.put(key, out)
        return out


# ----------------------------------------------------------------------------------------------
# pipeline


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
            flat.extend(_steps_of(item))
        for left, right in itertools.pairwise(flat):
            _check_junction(left, right, stacklevel=3)
        self._steps: tuple[Step, ...] = tuple(flat)
        self.name = name

    @classmethod
    def _compose(cls, left: Sequence[Step], right: Sequence[Step]) -> Pipeline:
        """``left | right``: only the new junction is type-checked (the rest was checked before)."""
        if left and right:
            _check_junction(left[-1], right[0])
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
        return Pipeline._compose(self._steps, _steps_of(other))

    def __ror__(self, other: Any) -> Pipeline:
        return Pipeline._compose(_steps_of(other), self._steps)

    def run(self, input: Any, **kwargs: Any) -> StepResult:
        """Run every step in order; keyword arguments go to the steps whose function accepts them."""
        trace: list[dict[str, Any]] = []
        value, done = input, 0
        for s in self._steps:
            value, ok = s._run(value, kwargs, trace)
            done += ok
        return StepResult(output=value, trace=trace, steps_run=done)

    async def arun(self, input: Any, **kwargs: Any) -> StepResult:
        """As :meth:`run`, awaiting async steps (``parallel`` groups run concurrently)."""
        trace: list[dict[str, Any]] = []
        value, done = input, 0
        for s in self._steps:
            value, ok = await s._arun(value, kwargs, trace)
            done += ok
        return StepResult(output=value, trace=trace, steps_run=done)

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


# ----------------------------------------------------------------------------------------------
# builders


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
    return _ParallelStep(branches)


def branch(
    router: Callable[[Any], Any] | None = None, **named_steps: Step | Pipeline | Callable[..., Any]
) -> Step:
    """A step that runs one named branch, chosen by ``router(input)`` or by the input itself."""
    if not named_steps:
        raise PipelineError("branch() needs at least one named branch, e.g. branch(yes=f, no=g)")
    if router is not None and not callable(router):
        raise PipelineError(f"branch(router=...) must be callable, got {router!r}")
    return _BranchStep(router, {key: as_step(s) for key, s in named_steps.items()})


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
    if ttl <= 0 or max_size < 1:
        raise PipelineError(
            f"cache_step needs ttl > 0 and max_size >= 1, got ttl={ttl}, max_size={max_size}"
        )
    return _CachedStep(as_step(step_or_fn), _TTLCache(ttl, max_size, clock))
