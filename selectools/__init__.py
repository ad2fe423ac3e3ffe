"""selectools: AI agents that call tools through LLM providers, made for Jupyter.

Public names are loaded lazily (:mod:`selectools._lazy`) so ``import selectools`` stays fast and
pulls in no provider SDK and nothing from the notebook stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _display
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
    "CostWarning": ".exceptions",
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
    "ToolLike": ".tools",
    "ToolOptions": ".tools",
    # providers (the shipped ones come from the table in providers/_specs.py)
    "Provider": ".providers.base",
    "AsyncProvider": ".providers.base",
    "LLMRequest": ".providers.base",
    "FallbackProvider": ".providers.fallback",
    **{spec.class_name: f".providers.{spec.module}" for spec in PROVIDER_SPECS},
    # scheduled agents
    "AgentScheduler": ".scheduler",
    "ScheduledJob": ".scheduler",
    "JobResult": ".scheduler",
    "cron": ".scheduler",
    "every": ".scheduler",
    # observers and traces
    "AgentObserver": ".observer",
    "AsyncAgentObserver": ".observer",
    "LoggingObserver": ".observer",
    "SimpleStepObserver": ".observer",
    "Event": ".observer",
    "EventName": ".observer",
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
    "ConversationMemory": ".memory.conversation",
    "Memory": ".memory.conversation",
    "Entity": ".memory.entity",
    "EntityMemory": ".memory.entity",
    "Triple": ".memory.knowledge_graph",
    "KnowledgeGraphMemory": ".memory.knowledge_graph",
    "InMemoryTripleStore": ".memory.knowledge_graph",
    "SQLiteTripleStore": ".memory.knowledge_graph",
    "KnowledgeMemory": ".memory.knowledge",
    "KnowledgeEntry": ".memory.knowledge",
    "ToolPolicy": ".policy",
    "PolicyDecision": ".policy",
    "PolicyResult": ".policy",
    "ApprovalRequest": ".approval",
    "ApprovalDecision": ".approval",
    "ApprovalQueue": ".approval",
    "auto_approve": ".approval",
    "auto_deny": ".approval",
    "CancellationToken": ".cancellation",
    # orchestration
    "AgentGraph": ".orchestration",
    "GraphState": ".orchestration",
    "GraphNode": ".orchestration",
    "GraphResult": ".orchestration",
    "GraphEvent": ".orchestration",
    "GraphEventType": ".orchestration",
    "ContextMode": ".orchestration",
    "MergePolicy": ".orchestration",
    "ErrorPolicy": ".orchestration",
    "InterruptRequest": ".orchestration",
    "Scatter": ".orchestration",
    "STATE_KEY_LAST_OUTPUT": ".orchestration",
    "InMemoryCheckpointStore": ".orchestration",
    "FileCheckpointStore": ".orchestration",
    "SQLiteCheckpointStore": ".orchestration",
    "PostgresCheckpointStore": ".orchestration",
    "GraphExecutionError": ".exceptions",
    "SupervisorAgent": ".orchestration",
    "SupervisorStrategy": ".orchestration",
    "ModelSplit": ".orchestration",
    # multi-agent patterns
    "PlanAndExecuteAgent": ".patterns",
    "PlanStep": ".patterns",
    "ReflectiveAgent": ".patterns",
    "ReflectiveResult": ".patterns",
    "ReflectionRound": ".patterns",
    "DebateAgent": ".patterns",
    "DebateResult": ".patterns",
    "DebateRound": ".patterns",
    "TeamLeadAgent": ".patterns",
    "TeamLeadResult": ".patterns",
    "Subtask": ".patterns",
    "RunHandle": ".agent.background",
    # guardrails, audit log, tool-output screening
    "GuardrailsPipeline": ".guardrails",
    "GuardrailError": ".guardrails",
    "AuditLogger": ".audit",
    "PrivacyLevel": ".audit",
    "screen_output": ".security",
    # composable pipelines
    "Pipeline": ".pipeline",
    "Step": ".pipeline",
    "StepResult": ".pipeline",
    "step": ".pipeline",
    "parallel": ".pipeline",
    "branch": ".pipeline",
    "retry": ".pipeline",
    "cache_step": ".pipeline",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


def _views(qualname: str) -> _display.Renderers | None:
    """The view table's row for a type (``selectools._view`` is imported on the first display).

    ``AgentGraph`` also gets its ``"editor"``: ``graph.edit()`` reaches the notebook's builder
    widget through this port, as the core may not import the notebook package.
    """
    from ._view import lookup

    row = lookup(qualname)
    if row is not None and qualname == "selectools.orchestration.graph.AgentGraph":
        return {**row, "editor": _builder_editor}
    return row


def _builder_editor(graph: Any, var: str = "graph", provider: Any = None) -> Any:
    """``AgentGraph.edit()``: the visual builder bound to ``graph`` (``selectools.notebook``)."""
    from .notebook.builder_widget import edit_graph

    return edit_graph(graph, var, provider)


_display.install(_views)  # the one wiring point: core types reach their views through the port


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext selectools``: registers the magics and display support (see ``selectools.notebook``)."""
    from .notebook import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext selectools``: removes what ``%load_ext selectools`` registered."""
    from .notebook import unload_ipython_extension as unload

    unload(ipython)


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .agent import (
        Agent as Agent,
        AgentConfig as AgentConfig,
    )
    from .agent.background import RunHandle as RunHandle
    from .agent.config_groups import (
        RetryConfig as RetryConfig,
        ToolConfig as ToolConfig,
    )
    from .analytics import (
        AgentAnalytics as AgentAnalytics,
        ToolMetrics as ToolMetrics,
    )
    from .approval import (
        ApprovalDecision as ApprovalDecision,
        ApprovalQueue as ApprovalQueue,
        ApprovalRequest as ApprovalRequest,
        auto_approve as auto_approve,
        auto_deny as auto_deny,
    )
    from .audit import (
        AuditLogger as AuditLogger,
        PrivacyLevel as PrivacyLevel,
    )
    from .cache import (
        Cache as Cache,
        CacheKeyBuilder as CacheKeyBuilder,
        CacheStats as CacheStats,
        InMemoryCache as InMemoryCache,
    )
    from .cancellation import (
        CancellationToken as CancellationToken,
    )
    from .exceptions import (
        CostWarning as CostWarning,
        GraphExecutionError as GraphExecutionError,
        MemoryLimitExceededError as MemoryLimitExceededError,
        ProviderConfigurationError as ProviderConfigurationError,
        ProviderError as ProviderError,
        SelectoolsError as SelectoolsError,
        ToolExecutionError as ToolExecutionError,
        ToolValidationError as ToolValidationError,
        UnknownToolError as UnknownToolError,
    )
    from .guardrails import (
        GuardrailError as GuardrailError,
        GuardrailsPipeline as GuardrailsPipeline,
    )
    from .memory.conversation import (
        ConversationMemory as ConversationMemory,
        Memory as Memory,
    )
    from .memory.entity import Entity as Entity, EntityMemory as EntityMemory
    from .memory.knowledge import (
        KnowledgeEntry as KnowledgeEntry,
        KnowledgeMemory as KnowledgeMemory,
    )
    from .memory.knowledge_graph import (
        InMemoryTripleStore as InMemoryTripleStore,
        KnowledgeGraphMemory as KnowledgeGraphMemory,
        SQLiteTripleStore as SQLiteTripleStore,
        Triple as Triple,
    )
    from .models import (
        ALL_MODELS as ALL_MODELS,
        MODELS_BY_ID as MODELS_BY_ID,
        ModelInfo as ModelInfo,
        ModelType as ModelType,
    )
    from .observer import (
        AgentObserver as AgentObserver,
        AsyncAgentObserver as AsyncAgentObserver,
        Event as Event,
        EventName as EventName,
        LoggingObserver as LoggingObserver,
        SimpleStepObserver as SimpleStepObserver,
    )
    from .orchestration import (
        STATE_KEY_LAST_OUTPUT as STATE_KEY_LAST_OUTPUT,
        AgentGraph as AgentGraph,
        ContextMode as ContextMode,
        ErrorPolicy as ErrorPolicy,
        FileCheckpointStore as FileCheckpointStore,
        GraphEvent as GraphEvent,
        GraphEventType as GraphEventType,
        GraphNode as GraphNode,
        GraphResult as GraphResult,
        GraphState as GraphState,
        InMemoryCheckpointStore as InMemoryCheckpointStore,
        InterruptRequest as InterruptRequest,
        MergePolicy as MergePolicy,
        ModelSplit as ModelSplit,
        PostgresCheckpointStore as PostgresCheckpointStore,
        Scatter as Scatter,
        SQLiteCheckpointStore as SQLiteCheckpointStore,
        SupervisorAgent as SupervisorAgent,
        SupervisorStrategy as SupervisorStrategy,
    )
    from .parser import (
        ToolCallParser as ToolCallParser,
    )
    from .patterns import (
        DebateAgent as DebateAgent,
        DebateResult as DebateResult,
        DebateRound as DebateRound,
        PlanAndExecuteAgent as PlanAndExecuteAgent,
        PlanStep as PlanStep,
        ReflectionRound as ReflectionRound,
        ReflectiveAgent as ReflectiveAgent,
        ReflectiveResult as ReflectiveResult,
        Subtask as Subtask,
        TeamLeadAgent as TeamLeadAgent,
        TeamLeadResult as TeamLeadResult,
    )
    from .pipeline import (
        Pipeline as Pipeline,
        Step as Step,
        StepResult as StepResult,
        branch as branch,
        cache_step as cache_step,
        parallel as parallel,
        retry as retry,
        step as step,
    )
    from .policy import (
        PolicyDecision as PolicyDecision,
        PolicyResult as PolicyResult,
        ToolPolicy as ToolPolicy,
    )
    from .pricing import (
        PRICING as PRICING,
        calculate_cost as calculate_cost,
        calculate_embedding_cost as calculate_embedding_cost,
        get_model_pricing as get_model_pricing,
    )
    from .prompt import (
        PromptBuilder as PromptBuilder,
    )
    from .providers.anthropic_provider import (
        AnthropicProvider as AnthropicProvider,
    )
    from .providers.azure_openai_provider import (
        AzureOpenAIProvider as AzureOpenAIProvider,
    )
    from .providers.base import (
        AsyncProvider as AsyncProvider,
        LLMRequest as LLMRequest,
        Provider as Provider,
    )
    from .providers.fallback import (
        FallbackProvider as FallbackProvider,
    )
    from .providers.gemini_provider import (
        GeminiProvider as GeminiProvider,
    )
    from .providers.ollama_provider import (
        OllamaProvider as OllamaProvider,
    )
    from .providers.openai_provider import (
        OpenAIProvider as OpenAIProvider,
    )
    from .providers.stubs import (
        LocalProvider as LocalProvider,
    )
    from .scheduler import (
        AgentScheduler as AgentScheduler,
        JobResult as JobResult,
        ScheduledJob as ScheduledJob,
        cron as cron,
        every as every,
    )
    from .security import (
        screen_output as screen_output,
    )
    from .stability import (
        beta as beta,
        deprecated as deprecated,
        stable as stable,
    )
    from .structured import (
        ResponseFormat as ResponseFormat,
        StructuredOutputError as StructuredOutputError,
    )
    from .tools import (
        Tool as Tool,
        ToolLike as ToolLike,
        ToolOptions as ToolOptions,
        ToolParameter as ToolParameter,
        ToolRegistry as ToolRegistry,
        tool as tool,
    )
    from .trace import (
        AgentTrace as AgentTrace,
        StepType as StepType,
        TraceStep as TraceStep,
        trace_to_json as trace_to_json,
    )
    from .types import (
        AgentResult as AgentResult,
        ContentPart as ContentPart,
        Message as Message,
        Role as Role,
        StreamChunk as StreamChunk,
        ToolCall as ToolCall,
        image_message as image_message,
        text_content as text_content,
    )
    from .usage import (
        AgentUsage as AgentUsage,
        UsageStats as UsageStats,
    )
