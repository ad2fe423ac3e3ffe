"""selectools: AI agents that call tools through LLM providers, made for Jupyter.

Public names are loaded lazily (:mod:`selectools._lazy`) so ``import selectools`` stays fast and
pulls in no provider SDK and nothing from the notebook stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._lazy import lazy_exports
from ._version import __version__
from .providers._specs import PROVIDER_SPECS

# name -> module that defines it (relative to this package)
_EXPORTS: dict[str, str] = {
    # errors and stability
    "SelectoolsError": ".exceptions",
    "ToolValidationError": ".exceptions",
    "ToolExecutionError": ".exceptions",
    "UnknownToolError": ".exceptions",
    "ProviderConfigurationError": ".exceptions",
    "ProviderError": ".exceptions",
    "MemoryLimitExceededError": ".exceptions",
    "stable": ".stability",
    "beta": ".stability",
    "deprecated": ".stability",
    # types
    "Message": ".types",
    "Role": ".types",
    "ToolCall": ".types",
    "ContentPart": ".types",
    "StreamChunk": ".types",
    "AgentResult": ".types",
    "image_message": ".types",
    "text_content": ".types",
    # agent
    "Agent": ".agent",
    "AgentConfig": ".agent",
    # tools
    "Tool": ".tools",
    "ToolParameter": ".tools",
    "ToolRegistry": ".tools",
    "tool": ".tools",
    # providers (the shipped ones come from the table in providers/_specs.py)
    "Provider": ".providers.base",
    "AsyncProvider": ".providers.base",
    "LLMRequest": ".providers.base",
    "FallbackProvider": ".providers.fallback",
    **{spec.class_name: f".providers.{spec.module}" for spec in PROVIDER_SPECS},
    # observers and traces
    "AgentObserver": ".observer",
    "AsyncAgentObserver": ".observer",
    "LoggingObserver": ".observer",
    "SimpleStepObserver": ".observer",
    "Event": ".observer",
    "AgentTrace": ".trace",
    "TraceStep": ".trace",
    "StepType": ".trace",
    "trace_to_json": ".trace",
    # usage, analytics, models and pricing
    "UsageStats": ".usage",
    "AgentUsage": ".usage",
    "AgentAnalytics": ".analytics",
    "ToolMetrics": ".analytics",
    "ModelInfo": ".models",
    "ModelType": ".models",
    "ALL_MODELS": ".models",
    "MODELS_BY_ID": ".models",
    "PRICING": ".pricing",
    "get_model_pricing": ".pricing",
    "calculate_cost": ".pricing",
    "calculate_embedding_cost": ".pricing",
    # parsing and prompts
    "ToolCallParser": ".parser",
    "PromptBuilder": ".prompt",
    # structured output, caching, memory, tool policy and approval, cancellation
    "ResponseFormat": ".structured",
    "StructuredOutputError": ".structured",
    "RetryConfig": ".agent.config_groups",
    "ToolConfig": ".agent.config_groups",
    "Cache": ".cache",
    "CacheStats": ".cache",
    "CacheKeyBuilder": ".cache",
    "InMemoryCache": ".cache",
    "ConversationMemory": ".memory",
    "ToolPolicy": ".policy",
    "PolicyDecision": ".policy",
    "PolicyResult": ".policy",
    "ApprovalRequest": ".approval",
    "ApprovalDecision": ".approval",
    "ApprovalQueue": ".approval",
    "auto_approve": ".approval",
    "auto_deny": ".approval",
    "CancellationToken": ".cancellation",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext selectools``: registers the magics and display support (see ``selectools.notebook``)."""
    from .notebook import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext selectools``: removes what ``%load_ext selectools`` registered."""
    from .notebook import unload_ipython_extension as unload

    unload(ipython)


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .agent import Agent, AgentConfig
    from .agent.config_groups import RetryConfig, ToolConfig
    from .analytics import AgentAnalytics, ToolMetrics
    from .approval import ApprovalDecision, ApprovalQueue, ApprovalRequest, auto_approve, auto_deny
    from .cache import Cache, CacheKeyBuilder, CacheStats, InMemoryCache
    from .cancellation import CancellationToken
    from .exceptions import (
        MemoryLimitExceededError,
        ProviderConfigurationError,
        ProviderError,
        SelectoolsError,
        ToolExecutionError,
        ToolValidationError,
        UnknownToolError,
    )
    from .memory import ConversationMemory
    from .models import ALL_MODELS, MODELS_BY_ID, ModelInfo, ModelType
    from .observer import (
        AgentObserver,
        AsyncAgentObserver,
        Event,
        LoggingObserver,
        SimpleStepObserver,
    )
    from .parser import ToolCallParser
    from .policy import PolicyDecision, PolicyResult, ToolPolicy
    from .pricing import PRICING, calculate_cost, calculate_embedding_cost, get_model_pricing
    from .prompt import PromptBuilder
    from .providers.anthropic_provider import AnthropicProvider
    from .providers.azure_openai_provider import AzureOpenAIProvider
    from .providers.base import AsyncProvider, LLMRequest, Provider
    from .providers.fallback import FallbackProvider
    from .providers.gemini_provider import GeminiProvider
    from .providers.ollama_provider import OllamaProvider
    from .providers.openai_provider import OpenAIProvider
    from .providers.stubs import LocalProvider
    from .stability import beta, deprecated, stable
    from .structured import ResponseFormat, StructuredOutputError
    from .tools import Tool, ToolParameter, ToolRegistry, tool
    from .trace import AgentTrace, StepType, TraceStep, trace_to_json
    from .types import (
        AgentResult,
        ContentPart,
        Message,
        Role,
        StreamChunk,
        ToolCall,
        image_message,
        text_content,
    )
    from .usage import AgentUsage, UsageStats
