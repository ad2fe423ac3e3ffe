"""``AgentConfig``: every knob of the agent loop, with the documented defaults.

``model`` defaults to ``"gpt-5-mini"``. When you leave it at that default and
the provider was built with its own ``default_model`` (``OpenAIProvider(
default_model=...)``, ``AnthropicProvider()``), the provider's model is used,
so swapping providers never sends one vendor's model name to another. A model
you set explicitly always wins.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import InitVar, dataclass, field
from typing import Any

__all__ = ["DEFAULT_MODEL", "AgentConfig"]


class _DefaultModel(str):
    """The default model name, marked so the agent can tell it was not chosen by the user."""

    __slots__ = ()


DEFAULT_MODEL = _DefaultModel("gpt-5-mini")

_HOOKS_UNSET: Any = object()


@dataclass
class AgentConfig:
    """Configuration of an :class:`~selectools.agent.Agent`."""

    # model selection
    model: str = DEFAULT_MODEL
    temperature: float = 0.0
    max_tokens: int = 1000
    # loop control
    max_iterations: int = 6
    # reliability
    max_retries: int = 2
    retry_backoff_seconds: float = 1.0
    rate_limit_cooldown_seconds: float = 5.0
    request_timeout: float | None = 30.0
    tool_timeout_seconds: float | None = None
    # cost management
    cost_warning_threshold: float | None = None
    # observability
    verbose: bool = False
    enable_analytics: bool = False
    observers: list[Any] = field(default_factory=list)
    parent_run_id: str | None = None
    trace_metadata: dict[str, Any] = field(default_factory=dict)
    # execution mode
    routing_only: bool = False
    parallel_tool_execution: bool = True
    stream: bool = False
    stop_condition: Callable[[str, str], bool] | None = None
    # identity and instructions
    name: str = "agent"
    system_prompt: str | None = None
    # removed in v1.0: passing it raises TypeError (see __post_init__)
    hooks: InitVar[Any] = _HOOKS_UNSET

    def __post_init__(self, hooks: Any) -> None:
        if hooks is not _HOOKS_UNSET:
            raise TypeError(
                "AgentConfig(hooks=...) was removed in v1.0. Use observers instead: subclass "
                "selectools.AgentObserver (or AsyncAgentObserver), override on_run_start, "
                "on_tool_start, on_tool_end, ... and pass AgentConfig(observers=[MyObserver()])."
            )
        _require(
            isinstance(self.max_iterations, int) and self.max_iterations >= 1,
            f"max_iterations must be an int >= 1, got {self.max_iterations!r}",
        )
        _require(
            isinstance(self.max_retries, int) and self.max_retries >= 0,
            f"max_retries must be an int >= 0, got {self.max_retries!r}",
        )
        _require(self.max_tokens > 0, f"max_tokens must be > 0, got {self.max_tokens!r}")
        _require(self.temperature >= 0, f"temperature must be >= 0, got {self.temperature!r}")
        for knob in ("retry_backoff_seconds", "rate_limit_cooldown_seconds"):
            value = getattr(self, knob)
            _require(value >= 0, f"{knob} must be >= 0, got {value!r}")
        for knob in ("request_timeout", "tool_timeout_seconds"):
            value = getattr(self, knob)
            _require(value is None or value > 0, f"{knob} must be > 0 or None, got {value!r}")
        if not isinstance(self.observers, list):
            self.observers = list(self.observers)

    @property
    def model_is_default(self) -> bool:
        """True when ``model`` was left at the default rather than chosen."""
        return isinstance(self.model, _DefaultModel)


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(f"AgentConfig: {message}")
