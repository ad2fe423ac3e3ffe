"""The exception hierarchy: every library error derives from :class:`SelectoolsError`.

Messages follow one layout (a rule of 60 ``=``, a heading, the details and a
suggestion) so an error printed in a terminal or a notebook says what went wrong
and what to do about it.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CostWarning",
    "MemoryLimitExceededError",
    "PipelineError",
    "ProviderConfigurationError",
    "ProviderError",
    "SelectoolsError",
    "ToolExecutionError",
    "ToolValidationError",
    "UnknownToolError",
    "format_error_box",
]

_RULE = "=" * 60


def format_error_box(heading: str, body: list[str]) -> str:
    """Render the boxed message shared by the library's errors."""
    return "\n".join(["", _RULE, heading, _RULE, "", *body, "", _RULE])


class SelectoolsError(Exception):
    """Base class of every error raised by selectools."""


class ToolValidationError(SelectoolsError):
    """Arguments for a tool (or a tool definition) do not match its schema."""

    def __init__(
        self,
        tool_name: str = "",
        param_name: str = "",
        issue: str = "",
        suggestion: str = "",
        expected: list[str] | None = None,
    ) -> None:
        self.tool_name = tool_name
        self.param_name = param_name
        self.issue = issue
        self.suggestion = suggestion
        self.expected = list(expected or [])
        body = []
        if param_name:
            body.append(f"Parameter: {param_name}")
        body.append(f"Issue: {issue}")
        if suggestion:
            body += ["", f"💡 Suggestion: {suggestion}"]
        if self.expected:
            body.append("Expected parameters: " + ", ".join(f"'{name}'" for name in self.expected))
        super().__init__(format_error_box(f"❌ Tool Validation Error: '{tool_name}'", body))

    def __reduce__(self) -> tuple[Any, ...]:
        args = (self.tool_name, self.param_name, self.issue, self.suggestion, self.expected)
        return (type(self), args)


class UnknownToolError(SelectoolsError):
    """The model asked for a tool the agent does not have."""

    def __init__(self, tool_name: str, available: list[str]) -> None:
        self.tool_name = tool_name
        self.available = list(available)
        super().__init__(f"Unknown tool '{tool_name}'. Available: {self.available}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.tool_name, self.available))


class ToolExecutionError(SelectoolsError):
    """The tool function itself raised; the original exception is ``error``."""

    def __init__(
        self, tool_name: str, error: BaseException, params: dict[str, Any] | None = None
    ) -> None:
        self.tool_name = tool_name
        self.error = error
        self.params = dict(params or {})
        body = [
            f"Error: {type(error).__name__}: {error}",
            f"Parameters: {self.params}",
            "",
            "💡 Check that:",
            "  - All required parameters are provided",
            "  - Parameter types match the tool's schema",
            "  - The tool function is correctly implemented",
        ]
        super().__init__(format_error_box(f"❌ Tool Execution Failed: '{tool_name}'", body))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.tool_name, self.error, self.params))


class ProviderConfigurationError(SelectoolsError):
    """A provider was built without the key or setting it needs.

    The fix it prints names ``env_var`` and the constructor ``argument`` that
    supply the missing setting, with ``example`` as the value to replace
    (``api_key`` / ``'your-api-key'`` unless the setting is something else,
    e.g. Azure's ``azure_deployment`` / ``'your-deployment'``).
    """

    def __init__(
        self,
        provider_name: str,
        missing_config: str = "API key",
        env_var: str = "",
        hint: str = "",
        *,
        argument: str = "api_key",
        example: str = "your-api-key",
    ) -> None:
        self.provider_name = provider_name
        self.missing_config = missing_config
        self.env_var = env_var
        self.hint = hint
        self.argument = argument
        self.example = example
        body = [f"Missing: {missing_config}", "", "💡 How to fix:"]
        if env_var:
            cls_name = f"{provider_name}Provider" if provider_name.isidentifier() else "Provider"
            body += [
                "  1. Set the environment variable:",
                f"     export {env_var}='{example}'",
                "  2. Or pass it directly:",
                f"     provider = {cls_name}({argument}='{example}')",
            ]
        if hint:
            body.append(f"  {hint}")
        super().__init__(
            format_error_box(f"❌ Provider Configuration Error: '{provider_name}'", body)
        )

    def __reduce__(self) -> tuple[Any, ...]:
        args = (self.provider_name, self.missing_config, self.env_var, self.hint)
        return (_rebuild_configuration_error, (type(self), args, self.argument, self.example))


def _rebuild_configuration_error(
    cls: type[ProviderConfigurationError], args: tuple[Any, ...], argument: str, example: str
) -> ProviderConfigurationError:
    return cls(*args, argument=argument, example=example)


class ProviderError(SelectoolsError):
    """An LLM request failed.

    ``status_code`` and ``retry_after`` carry what the server said; ``retryable``
    tells the agent whether another attempt can help (authentication errors and
    malformed requests cannot).
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str = "",
        status_code: int | None = None,
        retry_after: float | None = None,
        retryable: bool = True,
    ) -> None:
        self.message = message
        self.provider = provider
        self.status_code = status_code
        self.retry_after = retry_after
        self.retryable = retryable
        super().__init__(message)

    @property
    def is_rate_limit(self) -> bool:
        lowered = self.message.lower()
        return self.status_code == 429 or "rate limit" in lowered or "429" in lowered

    def __reduce__(self) -> tuple[Any, ...]:
        kwargs = {
            "provider": self.provider,
            "status_code": self.status_code,
            "retry_after": self.retry_after,
            "retryable": self.retryable,
        }
        return (_rebuild_provider_error, (type(self), self.message, kwargs))


def _rebuild_provider_error(
    cls: type[ProviderError], message: str, kwargs: dict[str, Any]
) -> ProviderError:
    return cls(message, **kwargs)


class MemoryLimitExceededError(SelectoolsError):
    """An explicit memory constraint was violated (the sliding window normally trims)."""

    def __init__(self, current: int, limit: int, limit_type: str = "messages") -> None:
        self.current = current
        self.limit = limit
        self.limit_type = limit_type
        knob = "max_messages" if limit_type == "messages" else "max_tokens"
        body = [
            f"Limit Type: {limit_type}",
            f"Current: {current}",
            f"Limit: {limit}",
            "",
            "💡 Suggestions:",
            f"  - Increase {knob}: ConversationMemory({knob}={current})",
            "  - Clear older messages manually: memory.clear()",
        ]
        super().__init__(format_error_box("⚠️  Memory Limit Exceeded", body))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.current, self.limit, self.limit_type))


class GraphExecutionError(SelectoolsError):
    """An ``AgentGraph`` run could not go on: a node failed, a loop or a limit was hit.

    ``node_name`` and ``step`` say where; ``cause`` is the node's own exception;
    ``result`` (set by the engine) is the partial ``GraphResult`` up to that point.
    """

    def __init__(
        self,
        message: str,
        *,
        node_name: str | None = None,
        step: int | None = None,
        cause: BaseException | None = None,
    ) -> None:
        super().__init__(message)
        self.node_name = node_name
        self.step = step
        self.cause = cause
        self.result: Any = None


class PipelineError(SelectoolsError):
    """A pipeline or step was built or called with something it cannot use."""


class BranchNotFoundError(PipelineError, KeyError):
    """``branch()`` got a key that names no branch and there is no ``default``."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0])


class CostWarning(UserWarning):
    """The agent's total cost passed ``AgentConfig(cost_warning_threshold=...)``.

    Issued with :mod:`warnings` (once per run), so it shows like any warning
    and can be filtered or turned into an error:
    ``warnings.simplefilter("error", CostWarning)``.
    """
