"""The catalogue of seed-doc code examples (data/*.toml) and the machinery that runs one.

Each ``[[example]]`` is a verbatim copy of one fenced Python block of a seed page,
with where it came from (``seed`` file, ``line`` of the block's first code line)
and how it is treated (``kind``):

``runs``       needs no key and no setup: executed exactly as written.
``fragment``   needs names the page leaves to the reader. Executed with its
               ``prelude`` (named setups from data/preludes.toml), ``after``
               (earlier examples of the same page, run first in the same
               namespace, as in a notebook), ``setup`` (example-specific
               definitions) and ``fill`` (exact, listed replacements of a
               placeholder such as ``tools=[...]``). A fragment with a
               ``reason`` cannot be made meaningful and is not executed.
``needs_key``  builds a network provider or calls a real API. With ``server =
               true`` it runs against a ``selectools.testing.FakeLLMServer``:
               the providers' key and base-URL variables point at it,
               ``script`` lists its replies (Python expressions over
               ``FakeReply``, ``FakeToolCall``, ``Fault``, ``tool_call``), and
               the ``check`` sees it as ``fake_server``; every scripted reply
               must be used; ``server_port`` binds it to the port the code
               names (the example is skipped when that port is taken).
               Without ``server`` the example is not executed.
``later``      uses a feature no landed issue provides yet (``feature``, not in
               ``LANDED``). Executed as soon as every ``requires`` entry
               imports (``module:Name``, or ``module:Name.field`` for a config
               knob the feature adds); skipped while one is simply absent.
               The gate never hides a regression: a ``later`` example whose
               feature is in ``LANDED`` is an error (re-file it as ``runs`` /
               ``fragment``), and so is a requirement whose module exists but
               fails to import (the error comes from inside it).

After the code, ``epilogue`` runs (calls the test functions an example only
defines) and ``check`` asserts on the namespace; ``stdout`` lists text the
printed output must contain, ``warns`` text of expected warnings, ``raises``
the exception the example is documented to raise. ``gap`` records a known
difference between the docs and the library (found by this suite): the example
is then expected to fail (xfail) until the library catches up.
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import contextlib
import dataclasses
import importlib
import inspect
import io
import linecache
import logging
import sys
import types
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    try:
        import tomli as tomllib
    except ModuleNotFoundError as exc:  # never a silent, empty catalogue
        raise ModuleNotFoundError(
            "reading the seed-example catalogue on Python 3.10 needs tomli "
            "(it is in the [dev] extra): pip install -e '.[dev]'"
        ) from exc

DATA = Path(__file__).parent / "data"
KINDS = ("runs", "fragment", "needs_key", "later")

#: Features that have landed: their examples are ``runs``/``fragment`` and run always.
#: Add a feature here when its issue lands, and re-file its ``later`` examples.
LANDED = frozenset(
    {
        "cache",
        "evals",
        "rag",
        "memory",
        "sessions",
        "structured",
        "policy",
        "fallback",
        "otel",
        "langfuse",
        "scheduler",
        "reasoning_tools",
        "toolbox",
        "guardrails",
        "audit",
        "security",
        "entity_memory",
        "knowledge_graph",
        "knowledge",
        "mcp",
        "pipeline",
        "graph",
    }
)


class GateError(AssertionError):
    """A ``later`` gate that would hide a regression (see ``missing_requirement``)."""


@dataclass(frozen=True)
class Fill:
    old: str
    new: str


@dataclass(frozen=True)
class Example:
    id: str
    page: str
    seed: str
    line: int
    kind: str
    code: str
    heading: str = ""
    seed_000_line: int | None = None
    feature: str | None = None
    reason: str | None = None
    note: str | None = None
    gap: str | None = None
    requires: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    prelude: tuple[str, ...] = ()
    setup: str = ""
    fill: tuple[Fill, ...] = ()
    epilogue: str = ""
    check: str = ""
    stdout: tuple[str, ...] = ()
    warns: tuple[str, ...] = ()
    raises: str | None = None
    server: bool = False
    server_port: int = 0
    script: tuple[str, ...] = ()

    @property
    def executable(self) -> bool:
        if self.kind == "needs_key":
            return self.server
        return self.kind in ("runs", "later") or (self.kind == "fragment" and not self.reason)

    def filled_code(self) -> str:
        code = self.code
        for fill in self.fill:
            if fill.old not in code:
                raise AssertionError(f"{self.id}: fill {fill.old!r} is not in the example")
            code = code.replace(fill.old, fill.new)
        return code


@dataclass
class Run:
    """What one executed example left behind."""

    namespace: dict[str, Any]
    stdout: str
    warnings: list[warnings.WarningMessage] = field(default_factory=list)
    error: BaseException | None = None


def _load(path: Path) -> dict[str, Any]:
    with path.open("rb") as handle:
        return tomllib.load(handle)


def load_examples() -> dict[str, Example]:
    examples: dict[str, Example] = {}
    for path in sorted(DATA.glob("*.toml")):
        for raw in _load(path).get("example", []):
            raw = dict(raw)
            raw["fill"] = tuple(Fill(**f) for f in raw.get("fill", ()))
            for key in ("requires", "after", "prelude", "stdout", "warns", "script"):
                raw[key] = tuple(raw.get(key, ()))
            example = Example(**raw)
            if example.id in examples:
                raise ValueError(f"duplicate example id {example.id} in {path.name}")
            examples[example.id] = example
    return examples


def load_preludes() -> dict[str, str]:
    return {name: p["code"] for name, p in _load(DATA / "preludes.toml")["prelude"].items()}


def load_covered() -> list[dict[str, Any]]:
    return list(_load(DATA / "covered.toml").get("covered", []))


EXAMPLES = load_examples()
PRELUDES = load_preludes()


def requirements(example: Example) -> list[str]:
    """``requires`` of the example and of every example it runs after."""
    found = list(example.requires)
    for dep in example.after:
        found.extend(r for r in requirements(EXAMPLES[dep]) if r not in found)
    return found


def _is_prefix(missing: str, module_name: str) -> bool:
    """Whether the missing module is ``module_name`` itself or one of its parents."""
    return module_name == missing or module_name.startswith(missing + ".")


def _has_attribute(obj: Any, attr: str) -> bool:
    if isinstance(obj, types.ModuleType):
        # a module declares its (lazy) exports in dir(); asking hasattr() would
        # turn an exception raised while loading a declared export into "absent"
        return attr in dir(obj)
    is_dataclass_type = dataclasses.is_dataclass(obj) and isinstance(obj, type)
    if is_dataclass_type and attr in {f.name for f in dataclasses.fields(obj)}:
        return True
    return hasattr(obj, attr)


def missing_requirement(example: Example) -> str | None:
    """The first requirement that is not there yet, or None.

    ``module:Name`` must import; ``module:Name.field`` also needs ``Name`` to
    have that attribute or dataclass field (``selectools:AgentConfig.cache``:
    the config knob a feature adds when it is wired into the agent).

    Raises ``GateError`` instead of reporting "not there yet" when the example's
    feature has landed, or when a requirement's module exists but raises while
    importing (a broken module is a failure, not a feature still to come).
    """
    if example.feature in LANDED:
        raise GateError(
            f"{example.id}: feature {example.feature!r} has landed; "
            "file the example as runs/fragment so it always runs"
        )
    for requirement in requirements(example):
        module_name, _, dotted = requirement.partition(":")
        try:
            try:
                obj: Any = importlib.import_module(module_name)
            except ModuleNotFoundError as exc:
                if exc.name is None or not _is_prefix(exc.name, module_name):
                    raise GateError(f"{requirement}: importing it failed inside: {exc!r}") from exc
                raise
            except ImportError as exc:
                raise GateError(f"{requirement}: importing it failed inside: {exc!r}") from exc
            for attr in filter(None, dotted.split(".")):
                if not _has_attribute(obj, attr):
                    raise AttributeError(f"{getattr(obj, '__name__', obj)!s} has no {attr!r}")
                try:
                    obj = getattr(obj, attr, None)
                except ImportError as exc:  # a declared lazy export whose module is broken
                    raise GateError(
                        f"{requirement}: {attr} is declared but fails: {exc!r}"
                    ) from exc
        except (ImportError, AttributeError) as exc:
            return f"{requirement} ({type(exc).__name__}: {exc})"
    return None


def _run_source(source: str, namespace: dict[str, Any], filename: str) -> None:
    """Exec ``source`` like a notebook cell: top-level ``await`` / ``async for`` allowed."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    code = compile(
        source, filename, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True
    )
    if code.co_flags & inspect.CO_COROUTINE:
        asyncio.run(eval(code, namespace))
    else:
        exec(code, namespace)


def _exec_example(example: Example, namespace: dict[str, Any], *, main: bool) -> None:
    for dep in example.after:
        _exec_example(EXAMPLES[dep], namespace, main=False)
    for name in example.prelude:
        _run_source(PRELUDES[name], namespace, f"<prelude {name}>")
    if example.setup:
        _run_source(example.setup, namespace, f"<setup of {example.id}>")
    where = f"<{example.seed}:{example.line} {example.id}>"
    if example.raises:
        try:
            _run_source(example.filled_code(), namespace, where)
        except Exception as exc:
            names = [cls.__name__ for cls in type(exc).__mro__]
            if example.raises not in names:
                raise
            if main:
                namespace["__raised__"] = exc
            return
        raise AssertionError(f"{example.id}: expected {example.raises}, nothing was raised")
    _run_source(example.filled_code(), namespace, where)
    if example.epilogue:
        _run_source(example.epilogue, namespace, f"<epilogue of {example.id}>")
    if main and example.check:
        _run_source(example.check, namespace, f"<check of {example.id}>")


def execute(example: Example, **names: Any) -> Run:
    """Run an example (with its preludes) in a fresh namespace; capture stdout and warnings.

    The caller sets the working directory (a temporary one in the tests); ``names``
    are added to the namespace (``fake_server`` for a ``server`` example's check).
    """
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins, **names}
    buffer = io.StringIO()
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    try:
        with (
            warnings.catch_warnings(record=True) as caught,
            contextlib.redirect_stdout(buffer),
        ):
            warnings.simplefilter("always")
            _exec_example(example, namespace, main=True)
    finally:
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)
    return Run(namespace=namespace, stdout=buffer.getvalue(), warnings=list(caught))
