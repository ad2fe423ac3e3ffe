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
from typing import TYPE_CHECKING, Any

from ..stability import stable
from .config_groups import RetryConfig, ToolConfig

if TYPE_CHECKING:
    from ..approval import ConfirmAction
    from ..cache import Cache
    from ..cancellation import CancellationToken
    from ..guardrails import GuardrailsPipeline
    from ..memory.entity import EntityMemory
    from ..memory.knowledge import KnowledgeMemory
    from ..memory.knowledge_graph import KnowledgeGraphMemory
    from ..memory.sessions import SessionStore
    from ..observer import Observer
    from ..policy import ToolPolicy
    from ..providers.base import AnyProvider

__all__ = ["DEFAULT_MODEL", "AgentConfig", "effective_model"]


class _DefaultModel(str):
    """The default model name, marked so the agent can tell it was not chosen by the user."""

    __slots__ = ()


DEFAULT_MODEL = _DefaultModel("gpt-5-mini")

_HOOKS_UNSET: Any = object()


@stable
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
    #: seconds the whole run may take, retries, tools and approvals included (None: no limit)
    run_timeout: float | None = None
    #: the longest server ``Retry-After`` waited for; a longer one ends the run with the error
    max_retry_after_seconds: float = 60.0
    # cost management and budgets (a run stops once spend reaches a limit)
    cost_warning_threshold: float | None = None
    max_total_tokens: int | None = None
    max_cost_usd: float | None = None
    # caching
    cache: Cache | None = None
    # tool safety and human approval
    tool_policy: ToolPolicy | None = None
    confirm_action: ConfirmAction | None = None
    approval_timeout: float = 60.0
    # content safety: guardrails, tool-output screening, coherence checks (selectools.guardrails,
    # selectools.security, selectools.coherence)
    guardrails: GuardrailsPipeline | None = None
    screen_tool_output: bool = False
    output_screening_patterns: list[str] | None = None
    coherence_check: bool = False
    coherence_provider: AnyProvider | None = None
    coherence_model: str | None = None
    # sessions and memory
    session_store: SessionStore | None = None
    session_id: str | None = None
    session_metadata: dict[str, Any] | None = None
    #: a stored session that cannot be read when the agent is built: "start_fresh" sets it
    #: aside (kept, renamed; a warning names it) and starts empty, "fail" raises
    on_damaged_session: str = "start_fresh"
    #: how long a run waits for another process's turn on the same session (seconds)
    session_lock_timeout: float = 300.0
    summarize_on_trim: bool = False
    summarize_provider: AnyProvider | None = None
    summarize_model: str | None = None
    summarize_max_tokens: int = 150
    # entity, knowledge-graph and cross-session knowledge memory (context in the prompt)
    entity_memory: EntityMemory | None = None
    knowledge_graph: KnowledgeGraphMemory | None = None
    knowledge_memory: KnowledgeMemory | None = None
    # cancellation
    cancellation_token: CancellationToken | None = None
    # observability
    verbose: bool = False
    enable_analytics: bool = False
    observers: list[Observer] = field(default_factory=list)
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
    #: how the system prompt asks the model to reason: "react", "cot" or None
    reasoning_strategy: str | None = None
    # grouped settings: structured-output retry budget, approval gate
    retry: RetryConfig = field(default_factory=RetryConfig)
    tool: ToolConfig | None = None
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
            "max_iterations must be an int >= 1, got {!r}",
            self.max_iterations,
        )
        _require(
            isinstance(self.max_retries, int) and self.max_retries >= 0,
            "max_retries must be an int >= 0, got {!r}",
            self.max_retries,
        )
        _require(self.max_tokens > 0, "max_tokens must be > 0, got {!r}", self.max_tokens)
        _require(self.temperature >= 0, "temperature must be >= 0, got {!r}", self.temperature)
        for knob in (
            "retry_backoff_seconds",
            "rate_limit_cooldown_seconds",
            "max_retry_after_seconds",
        ):
            value = getattr(self, knob)
            _require(value >= 0, "{} must be >= 0, got {!r}", knob, value)
        for knob in ("request_timeout", "tool_timeout_seconds", "run_timeout"):
            value = getattr(self, knob)
            _require(value is None or value > 0, "{} must be > 0 or None, got {!r}", knob, value)
        if not isinstance(self.observers, list):
            self.observers = list(self.observers)
        if self.reasoning_strategy is not None:
            from ..prompt import REASONING_STRATEGIES

            _require(
                self.reasoning_strategy in REASONING_STRATEGIES,
                "reasoning_strategy must be one of "
                + str(sorted(REASONING_STRATEGIES))
                + " or None, got {!r}",
                self.reasoning_strategy,
            )
        self._check_features()

    def _check_features(self) -> None:
        """Validate the optional features (budgets, cache, policy, sessions, groups)."""
        _require(
            self.max_total_tokens is None
            or (type(self.max_total_tokens) is int and self.max_total_tokens > 0),
            "max_total_tokens must be an int > 0 or None, got {!r}",
            self.max_total_tokens,
        )
        _require(
            self.max_cost_usd is None or _positive(self.max_cost_usd),
            "max_cost_usd must be > 0 or None, got {!r}",
            self.max_cost_usd,
        )
        _require(
            _positive(self.approval_timeout),
            "approval_timeout must be > 0 seconds, got {!r}",
            self.approval_timeout,
        )
        _require(
            type(self.summarize_max_tokens) is int and self.summarize_max_tokens > 0,
            "summarize_max_tokens must be an int > 0, got {!r}",
            self.summarize_max_tokens,
        )
        _expect(self.cache, ("get", "set"), "cache", "InMemoryCache(...) or RedisCache(...)")
        if (
            self.guardrails is not None
            or self.output_screening_patterns is not None
            or self.coherence_provider is not None
        ):
            self._check_safety()
        _expect(self.tool_policy, ("evaluate",), "tool_policy", "ToolPolicy(...)")
        _expect(self.cancellation_token, ("cancel",), "cancellation_token", "CancellationToken()")
        _expect(
            self.session_store,
            ("save", "load"),
            "session_store",
            "JsonFileSessionStore(...), SQLiteSessionStore(...) or RedisSessionStore(...)",
        )
        _expect(
            self.entity_memory, ("build_context", "update"), "entity_memory", "EntityMemory(...)"
        )
        _expect(
            self.knowledge_graph,
            ("build_context", "update"),
            "knowledge_graph",
            "KnowledgeGraphMemory(...)",
        )
        _expect(
            self.knowledge_memory,
            ("build_context", "remember"),
            "knowledge_memory",
            "KnowledgeMemory(...)",
        )
        if self.confirm_action is not None and not callable(self.confirm_action):
            raise TypeError(
                "AgentConfig: confirm_action must be a function (tool_name, tool_args, reason) -> bool"
            )
        if (self.session_store is None) != (self.session_id is None):
            raise ValueError(
                "AgentConfig: session_store and session_id go together; pass both to persist "
                "the conversation, or neither"
            )
        if self.session_id is not None and (
            not isinstance(self.session_id, str) or not self.session_id
        ):
            raise ValueError(
                f"AgentConfig: session_id must be a non-empty string, got {self.session_id!r}"
            )
        if self.session_metadata is not None and not isinstance(self.session_metadata, dict):
            raise TypeError("AgentConfig: session_metadata must be a dict or None")
        if self.on_damaged_session not in ("start_fresh", "fail"):
            raise ValueError(
                "AgentConfig: on_damaged_session must be 'start_fresh' (set the damaged session "
                f"aside and start empty) or 'fail', got {self.on_damaged_session!r}"
            )
        timeout = self.session_lock_timeout
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            raise ValueError(
                f"AgentConfig: session_lock_timeout must be seconds > 0, got {timeout!r}"
            )
        if not isinstance(self.retry, RetryConfig):
            raise TypeError(
                f"AgentConfig: retry must be a RetryConfig(max_retries=...), got {type(self.retry).__name__}"
            )
        if self.tool is not None:
            if not isinstance(self.tool, ToolConfig):
                raise TypeError(
                    "AgentConfig: tool must be a ToolConfig(require_approval=..., approval_handler=...), "
                    f"got {type(self.tool).__name__}"
                )
            if (
                self.tool.gates_tools
                and self.tool.approval_handler is None
                and self.confirm_action is None
            ):
                raise ValueError(
                    "AgentConfig: ToolConfig(require_approval=...) needs someone to approve: pass "
                    "ToolConfig(approval_handler=...) or AgentConfig(confirm_action=...). To block "
                    "tools outright use ToolPolicy(deny=[...])."
                )

    def _check_safety(self) -> None:
        """Validate the guardrail, screening and coherence knobs (only when one is set)."""
        _expect(
            self.guardrails,
            ("check_input", "check_output"),
            "guardrails",
            "GuardrailsPipeline(input=[...], output=[...])",
        )
        if self.output_screening_patterns is not None:
            if isinstance(self.output_screening_patterns, str):
                raise TypeError(
                    "AgentConfig: output_screening_patterns must be a list of regex strings, "
                    "got one string"
                )
            self.output_screening_patterns = list(self.output_screening_patterns)
            from ..security import screen_output

            screen_output("", self.output_screening_patterns)  # a bad regex fails here
        provider = self.coherence_provider
        if provider is not None and not any(
            callable(getattr(provider, m, None)) for m in ("complete", "acomplete", "_complete")
        ):
            raise TypeError(
                "AgentConfig: coherence_provider must be a provider (with complete/acomplete), "
                f"got {provider!r}"
            )

    @property
    def model_is_default(self) -> bool:
        """True when ``model`` was left at the default rather than chosen."""
        return isinstance(self.model, _DefaultModel)


def effective_model(config: AgentConfig, provider: AnyProvider) -> str:
    """The model to request: an explicit ``config.model``, else the provider's default."""
    model = config.model
    if type(model) is _DefaultModel:
        provider_default = getattr(provider, "default_model", None)
        if provider_default:
            return str(provider_default)
    return str(model)


def _require(condition: bool, message: str, *values: Any) -> None:
    """Raise ``ValueError`` with ``message.format(*values)`` unless ``condition``.

    The message is formatted only on failure: every agent builds a config.
    """
    if not condition:
        raise ValueError("AgentConfig: " + message.format(*values))


def _positive(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def _expect(value: Any, methods: tuple[str, ...], knob: str, example: str) -> None:
    if value is not None and not all(callable(getattr(value, m, None)) for m in methods):
        raise TypeError(f"AgentConfig: {knob} must be an object like {example}, got {value!r}")
