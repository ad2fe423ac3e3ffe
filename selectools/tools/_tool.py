"""``Tool``: a callable plus the schema the LLM sees, with validation and execution.

A tool made by ``@tool`` stays callable like the function it wraps
(``get_price("laptop")`` calls the function directly), so decorating a function
never breaks code that already uses it.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .._display import RichDisplay
from ..exceptions import ToolExecutionError, ToolValidationError
from ..stability import stable
from ._options import ToolOptions
from ._parameter import UNSET, ToolParameter, _Unset
from ._run import ChunkCallback, call_in_executor, finish_async, finish_sync
from ._schema import Mismatch, TypeSpec, enum_contains, format_choices

__all__ = ["Tool"]

_DEFAULT = ToolOptions()


@stable
class Tool(RichDisplay):
    """A function the LLM can call, described by a JSON schema.

    ``injected_kwargs`` are passed on every call and never shown to the LLM
    (connections, API keys). ``config_injector`` is called on every execution
    and its dict is passed too (keys the function does not accept are dropped,
    so one injector can serve many tools); injected values always win over
    LLM-supplied ones. The flags (``streaming``, ``terminal``,
    ``requires_approval``, ``screen_output``) are the same keywords ``@tool``
    takes; ``options`` (a :class:`~selectools.tools.ToolOptions`) is how
    ``@tool`` hands them on, and an explicit keyword wins over it (its name,
    description and parameter options are ``@tool``'s business and are not
    read here).
    ``parameters`` is treated as read-only after construction: build a new
    Tool to change it. A Tool satisfies :class:`~selectools.tools.ToolLike`.
    """

    def __init__(
        self,
        name: str,
        description: str,
        parameters: Iterable[ToolParameter] | None,
        function: Callable[..., Any],
        injected_kwargs: Mapping[str, Any] | None = None,
        config_injector: Callable[[], Mapping[str, Any] | None] | None = None,
        *,
        streaming: bool | None = None,
        terminal: bool | None = None,
        requires_approval: bool | None = None,
        screen_output: bool | None = None,
        options: ToolOptions = _DEFAULT,
    ) -> None:
        if injected_kwargs is None:
            injected_kwargs = options.injected_kwargs
        if config_injector is None:
            config_injector = options.config_injector
        self.name = name
        self.description = description
        self.parameters: list[ToolParameter] = list(parameters or [])
        self.function = function
        self.injected_kwargs: dict[str, Any] = dict(injected_kwargs or {})
        self.config_injector = config_injector
        self.is_async = _is_async_callable(function)
        #: True for (async) generator functions even if not asked for: they stream.
        if streaming is None:
            streaming = options.streaming
        self.streaming = bool(streaming) or _is_generator_callable(function)
        self.terminal = bool(options.terminal if terminal is None else terminal)
        self.requires_approval = bool(
            options.requires_approval if requires_approval is None else requires_approval
        )
        #: screen results for prompt injection before the model reads them (selectools.security)
        self.screen_output = bool(options.screen_output if screen_output is None else screen_output)
        self._source: str | _Unset | None = UNSET
        self.__wrapped__ = function
        self.__name__: str = getattr(function, "__name__", name)
        self.__qualname__: str = getattr(function, "__qualname__", self.__name__)
        self.__module__: str = getattr(function, "__module__", None) or __name__
        self.__doc__: str | None = getattr(function, "__doc__", None)
        self._accepted = self._validate_definition()
        self._compile()

    # -- definition -----------------------------------------------------------------

    def _fail(self, issue: str, suggestion: str = "", param: str = "") -> ToolValidationError:
        name = self.name if isinstance(self.name, str) else repr(self.name)
        return ToolValidationError(
            tool_name=name, param_name=param, issue=issue, suggestion=suggestion
        )

    def _validate_definition(self) -> frozenset[str] | None:
        """Catch mistakes when the tool is defined instead of when the LLM calls it.

        Returns the keyword names the function accepts (``None``: anything).
        """
        if not isinstance(self.name, str) or not self.name.strip():
            raise self._fail("Tool name cannot be empty", "Pass name='my_tool'")
        if not callable(self.function):
            raise self._fail("Tool function is not callable", "Pass a function as function=")
        if not isinstance(self.description, str) or not self.description.strip():
            raise self._fail(
                "Tool description cannot be empty",
                "Give the function a docstring or pass description='What the tool does'",
            )
        if self.config_injector is not None and not callable(self.config_injector):
            raise self._fail("config_injector is not callable", "Pass a function returning a dict")
        seen: set[str] = set()
        duplicates: list[str] = []
        for param in self.parameters:
            if not isinstance(param, ToolParameter):
                raise self._fail(f"Expected ToolParameter, got {type(param).__name__}")
            if not isinstance(param.name, str) or not param.name.strip():
                raise self._fail("Parameter name cannot be empty", "Give every parameter a name")
            if not isinstance(param.description, str) or not param.description.strip():
                raise self._fail(
                    "Parameter description cannot be empty",
                    "Describe what the LLM should pass",
                    param.name,
                )
            if param.name in seen and param.name not in duplicates:
                duplicates.append(param.name)
            seen.add(param.name)
        if duplicates:
            raise self._fail(
                "Duplicate parameter name(s)",
                "Give each parameter a unique name",
                ", ".join(duplicates),
            )
        for param in self.parameters:
            param._compile(self.name)
        try:
            signature = inspect.signature(self.function)
        except (TypeError, ValueError):
            return None  # builtins and some C callables cannot be inspected
        kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        names = [n for n, p in signature.parameters.items() if p.kind in kinds]
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values()):
            return None
        accepted = frozenset(names)
        listing = ", ".join(f"'{n}'" for n in names) or "no keyword arguments"
        fn_name = getattr(self.function, "__name__", "function")
        for param in self.parameters:
            if param.name not in accepted and param.name not in self.injected_kwargs:
                raise self._fail(
                    "Parameter not found in the function signature",
                    f"{fn_name}() accepts: {listing}",
                    param.name,
                )
        for key in self.injected_kwargs:
            if key not in accepted:
                raise self._fail(
                    "Injected argument not found in the function signature",
                    f"{fn_name}() accepts: {listing}",
                    key,
                )
        return accepted

    def _compile(self) -> None:
        """Precompute what validation needs so a call does no schema work."""
        self._specs: dict[str, tuple[ToolParameter, TypeSpec]] = {
            p.name: (p, p.spec) for p in self.parameters
        }
        self._names = frozenset(self._specs)
        self._required = tuple(p.name for p in self.parameters if p.required)
        self._enums = tuple(
            (p.name, p.enum, p.spec.nullable) for p in self.parameters if p.enum is not None
        )
        self._inject = bool(self.injected_kwargs) or self.config_injector is not None

    # -- schema -----------------------------------------------------------------------

    def schema(self) -> dict[str, Any]:
        """The tool as the LLM sees it (a fresh dict on every call)."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": {
                "type": "object",
                "properties": {p.name: p.to_schema() for p in self.parameters},
                "required": [p.name for p in self.parameters if p.required],
            },
        }

    # -- validation -------------------------------------------------------------------

    def validate(self, params: Mapping[str, Any] | None) -> None:
        """Raise ToolValidationError if ``params`` does not match the schema.

        Order: unexpected names, missing required ones, each value's type, enums.
        The caller's dict is never modified.
        """
        self._check(params)

    def _check(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validate and return the arguments to call with (coerced where needed)."""
        if params is None:
            params = {}
        elif not isinstance(params, dict):
            if not isinstance(params, Mapping):
                raise self._fail(
                    f"Parameters must be a JSON object, got {type(params).__name__}",
                    "Pass the arguments as a dict of name -> value",
                )
            params = dict(params)
        if not self._names.issuperset(params):
            raise self._unexpected(params)
        for name in self._required:
            if name not in params:
                raise self._missing(params)
        specs = self._specs
        args: dict[str, Any] = params
        for name, value in params.items():
            param, spec = specs[name]
            try:
                new = spec.validate(value)
            except Mismatch as mismatch:
                raise self._type_error(param, spec, value, mismatch) from None
            if new is not value:
                if args is params:
                    args = dict(params)
                args[name] = new
        for name, choices, nullable in self._enums:
            if name in params:
                value = params[name]
                if not (value is None and nullable) and not enum_contains(choices, value):
                    raise self._enum_error(name, value, choices)
        return args

    def _unexpected(self, params: Mapping[Any, Any]) -> ToolValidationError:
        import difflib

        expected = [p.name for p in self.parameters]
        extras = sorted(str(k) for k in params if k not in self._names)
        suggestions = []
        for extra in extras:
            matches = difflib.get_close_matches(extra, expected, n=1, cutoff=0.6)
            if matches:
                suggestions.append(f"'{extra}' -> Did you mean '{matches[0]}'?")
            else:
                suggestions.append(f"'{extra}' is not a valid parameter")
        return ToolValidationError(
            tool_name=self.name,
            param_name=", ".join(extras),
            issue="Unexpected parameter(s)",
            suggestion="; ".join(suggestions),
            expected=expected,
        )

    def _missing(self, params: Mapping[str, Any]) -> ToolValidationError:
        missing = [n for n in self._required if n not in params]
        expected_list = ", ".join(f"'{n}'" for n in self._required)
        return ToolValidationError(
            tool_name=self.name,
            param_name=", ".join(missing),
            issue="Missing required parameter",
            suggestion=f"Required parameters: {expected_list}",
        )

    def _type_error(
        self, param: ToolParameter, spec: TypeSpec, value: Any, mismatch: Mismatch
    ) -> ToolValidationError:
        where = param.name + "".join(mismatch.path)
        if mismatch.kind == "type":
            got = type(mismatch.got).__name__
            issue = f"Parameter '{where}' must be of type {mismatch.expected}, got {got}"
        elif mismatch.kind == "enum":
            issue = f"Parameter '{where}' must be one of {mismatch.expected}, got {mismatch.got!r}"
        else:
            issue = f"Parameter '{where}' {mismatch.detail}"
        suggestion = ""
        if mismatch.kind == "type" and not mismatch.path:
            base = spec.plain_type
            if base is str and not isinstance(value, str):
                suggestion = f"Try: {param.name}=str({value!r})"
            elif base is int and isinstance(value, str):
                suggestion = f"Try: {param.name}=int('{value}')"
            elif base is float and isinstance(value, str):
                suggestion = f"Try: {param.name}=float('{value}')"
        elif mismatch.kind == "enum":
            suggestion = _enum_suggestion(mismatch.got, mismatch.choices)
        return ToolValidationError(
            tool_name=self.name,
            param_name=param.name,
            issue=issue,
            suggestion=suggestion or f"Expected type: {spec.display}",
        )

    def _enum_error(self, name: str, value: Any, choices: list[Any]) -> ToolValidationError:
        return ToolValidationError(
            tool_name=self.name,
            param_name=name,
            issue=f"Parameter '{name}' must be one of {format_choices(choices)}, got {value!r}",
            suggestion=_enum_suggestion(value, choices),
        )

    # -- execution --------------------------------------------------------------------

    def _call_args(self, args: dict[str, Any]) -> dict[str, Any]:
        call = {**args, **self.injected_kwargs}
        if self.config_injector is not None:
            extra = self.config_injector() or {}
            accepted = self._accepted
            if accepted is not None:
                extra = {k: v for k, v in extra.items() if k in accepted}
            call.update(extra)
        return call

    def execute(
        self, params: Mapping[str, Any] | None, chunk_callback: ChunkCallback | None = None
    ) -> str:
        """Validate, call and return the result as text.

        ToolValidationError propagates as is; anything the function (or the
        config injector, or the chunk callback) raises becomes ToolExecutionError
        with the original as ``__cause__``. Async tools run via ``run_sync``, so
        this works inside a running event loop too (the chunk callback then runs
        on the helper thread).
        """
        args = self._check(params)
        try:
            if self._inject:
                args = self._call_args(args)
            if self.is_async:
                from .._async_bridge import run_sync

                return run_sync(finish_async(self.function(**args), chunk_callback))
            result = self.function(**args)
            if result.__class__ is str:
                return result
            return finish_sync(result, chunk_callback)
        except Exception as exc:
            raise ToolExecutionError(self.name, exc, _as_dict(params)) from exc

    async def aexecute(
        self, params: Mapping[str, Any] | None, chunk_callback: ChunkCallback | None = None
    ) -> str:
        """Async :meth:`execute`: sync functions run in the default executor.

        Context variables of the caller are visible inside sync functions, and
        chunk callbacks always run on the event loop's thread.
        """
        args = self._check(params)
        try:
            if self._inject:
                args = self._call_args(args)
            if self.is_async:
                return await finish_async(self.function(**args), chunk_callback)
            return await call_in_executor(self.function, args, chunk_callback)
        except Exception as exc:
            raise ToolExecutionError(self.name, exc, _as_dict(params)) from exc

    # -- behaving like the function -----------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)

    @property
    def source(self) -> str | None:
        """The function's source code (``None`` if unavailable); assignable."""
        if isinstance(self._source, _Unset):
            try:
                self._source = inspect.getsource(self.function)
            except (OSError, TypeError):
                self._source = None
        return self._source

    @source.setter
    def source(self, value: str | None) -> None:
        self._source = value

    def __repr__(self) -> str:
        return f"Tool(name={self.name!r}, parameters={[p.name for p in self.parameters]!r})"

    def __reduce_ex__(self, protocol: Any) -> Any:
        # A decorated module-level function is reachable by name: pickle it by
        # reference, as pickle does for the function it replaced.
        module = sys.modules.get(self.__module__)
        target: Any = module
        for part in self.__qualname__.split("."):
            target = getattr(target, part, None)
        if target is self:
            return self.__qualname__
        return super().__reduce_ex__(protocol)


def _as_dict(params: Any) -> dict[str, Any]:
    if isinstance(params, Mapping):
        return dict(params)
    return {}


def _enum_suggestion(value: Any, choices: Any) -> str:
    import difflib

    allowed = f"Allowed values: {format_choices(choices)}"
    if isinstance(value, str):
        strings = [c for c in choices if isinstance(c, str)]
        match = difflib.get_close_matches(value, strings, n=1, cutoff=0.6)
        if match:
            return f"Did you mean '{match[0]}'? {allowed}"
    return allowed


def _is_async_callable(function: Any) -> bool:
    for candidate in (function, getattr(function, "__call__", None)):  # noqa: B004
        if inspect.iscoroutinefunction(candidate) or inspect.isasyncgenfunction(candidate):
            return True
    return False


def _is_generator_callable(function: Any) -> bool:
    return inspect.isgeneratorfunction(function) or inspect.isasyncgenfunction(function)
