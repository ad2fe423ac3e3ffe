"""Token and cost accounting: one :class:`UsageStats` per LLM call, totals in :class:`AgentUsage`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._display import RichDisplay

__all__ = ["AgentUsage", "UsageStats"]

_RULE = "=" * 60


@dataclass(slots=True)
class UsageStats(RichDisplay):
    """Tokens and cost of a single provider call (or an embedding batch).

    ``prompt_tokens`` counts all input tokens; ``cache_read_tokens`` and
    ``cache_write_tokens`` are the parts of them the provider read from or wrote to its
    prompt cache (billed at their own prices, see :func:`~selectools.pricing.calculate_cost`).
    Every provider's wire format is normalised to this: OpenAI's ``prompt_tokens`` already
    include ``cached_tokens``, Anthropic's ``input_tokens`` do not include its cache counts.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cost_usd: float = 0.0
    model: str = ""
    provider: str = ""
    embedding_tokens: int = 0
    embedding_cost_usd: float = 0.0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __post_init__(self) -> None:
        if not self.total_tokens:
            self.total_tokens = self.prompt_tokens + self.completion_tokens

    @classmethod
    def priced(
        cls,
        model: str,
        provider: str,
        prompt_tokens: int,
        completion_tokens: int,
        *,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
        priced_as: str | None = None,
    ) -> UsageStats:
        """One call's usage with its cost from the price table (``priced_as`` names the
        model to price when it differs from the one reported, e.g. a dated snapshot)."""
        from .pricing import calculate_cost

        return cls(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=prompt_tokens + completion_tokens,
            cost_usd=calculate_cost(
                priced_as or model,
                prompt_tokens,
                completion_tokens,
                cache_read_tokens=cache_read_tokens,
                cache_write_tokens=cache_write_tokens,
            ),
            model=model,
            provider=provider,
            cache_read_tokens=cache_read_tokens,
            cache_write_tokens=cache_write_tokens,
        )

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _USAGE_FIELDS}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> UsageStats:
        return cls(**{name: data[name] for name in _USAGE_FIELDS if name in data})


_USAGE_FIELDS = (
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "cost_usd",
    "model",
    "provider",
    "embedding_tokens",
    "embedding_cost_usd",
    "cache_read_tokens",
    "cache_write_tokens",
)


@dataclass(slots=True)
class AgentUsage(RichDisplay):
    """Running totals across the calls of a run (or of an agent's lifetime).

    ``tool_usage`` counts calls per tool; ``tool_tokens`` attributes the tokens
    of each LLM response that requested a tool to that tool.
    """

    total_prompt_tokens: int = 0
    total_completion_tokens: int = 0
    total_tokens: int = 0
    total_cost_usd: float = 0.0
    total_embedding_tokens: int = 0
    total_embedding_cost_usd: float = 0.0
    total_cache_read_tokens: int = 0
    total_cache_write_tokens: int = 0
    tool_usage: dict[str, int] = field(default_factory=dict)
    tool_tokens: dict[str, int] = field(default_factory=dict)
    iterations: list[UsageStats] = field(default_factory=list)

    def add_usage(self, usage_stats: UsageStats, tool_name: str | None = None) -> None:
        """Add one call's usage; with ``tool_name`` its tokens are attributed to that tool."""
        self.total_prompt_tokens += usage_stats.prompt_tokens
        self.total_completion_tokens += usage_stats.completion_tokens
        self.total_cache_read_tokens += usage_stats.cache_read_tokens
        self.total_cache_write_tokens += usage_stats.cache_write_tokens
        if usage_stats.embedding_tokens or usage_stats.embedding_cost_usd:
            self.total_tokens += usage_stats.total_tokens + usage_stats.embedding_tokens
            self.total_cost_usd += usage_stats.cost_usd + usage_stats.embedding_cost_usd
            self.total_embedding_tokens += usage_stats.embedding_tokens
            self.total_embedding_cost_usd += usage_stats.embedding_cost_usd
        else:  # an LLM call (every call of every run): the same sums without the zeros
            self.total_tokens += usage_stats.total_tokens
            self.total_cost_usd += usage_stats.cost_usd
        self.iterations.append(usage_stats)
        if tool_name is not None:
            self.record_tool_call(tool_name, usage_stats.total_tokens)

    def record_tool_call(self, tool_name: str, tokens: int = 0) -> None:
        self.tool_usage[tool_name] = self.tool_usage.get(tool_name, 0) + 1
        self.tool_tokens[tool_name] = self.tool_tokens.get(tool_name, 0) + tokens

    def merge(self, other: AgentUsage) -> None:
        """Fold another run's totals into this one (agent lifetime totals)."""
        self.total_prompt_tokens += other.total_prompt_tokens
        self.total_completion_tokens += other.total_completion_tokens
        self.total_tokens += other.total_tokens
        self.total_cost_usd += other.total_cost_usd
        self.total_embedding_tokens += other.total_embedding_tokens
        self.total_embedding_cost_usd += other.total_embedding_cost_usd
        self.total_cache_read_tokens += other.total_cache_read_tokens
        self.total_cache_write_tokens += other.total_cache_write_tokens
        for name, count in other.tool_usage.items():
            self.tool_usage[name] = self.tool_usage.get(name, 0) + count
        for name, tokens in other.tool_tokens.items():
            self.tool_tokens[name] = self.tool_tokens.get(name, 0) + tokens
        self.iterations.extend(other.iterations)

    @property
    def llm_cost_usd(self) -> float:
        return self.total_cost_usd - self.total_embedding_cost_usd

    def to_dict(self) -> dict[str, Any]:
        return {
            "total_prompt_tokens": self.total_prompt_tokens,
            "total_completion_tokens": self.total_completion_tokens,
            "total_tokens": self.total_tokens,
            "total_cost_usd": self.total_cost_usd,
            "total_embedding_tokens": self.total_embedding_tokens,
            "total_embedding_cost_usd": self.total_embedding_cost_usd,
            "total_cache_read_tokens": self.total_cache_read_tokens,
            "total_cache_write_tokens": self.total_cache_write_tokens,
            "tool_usage": dict(self.tool_usage),
            "tool_tokens": dict(self.tool_tokens),
            "iterations": [stats.to_dict() for stats in self.iterations],
        }

    def __repr__(self) -> str:
        return (
            f"AgentUsage(total_tokens={self.total_tokens}, "
            f"total_cost_usd={self.total_cost_usd:.6f}, calls={len(self.iterations)})"
        )

    def __str__(self) -> str:
        lines = [_RULE, "📊 Usage Summary", _RULE, f"Total Tokens: {self.total_tokens:,}"]
        lines.append(f"  - Prompt: {self.total_prompt_tokens:,}")
        if self.total_cache_read_tokens or self.total_cache_write_tokens:
            lines.append(
                f"    (cached: {self.total_cache_read_tokens:,} read, "
                f"{self.total_cache_write_tokens:,} written)"
            )
        lines.append(f"  - Completion: {self.total_completion_tokens:,}")
        if self.total_embedding_tokens:
            lines.append(f"  - Embeddings: {self.total_embedding_tokens:,}")
        lines.append(f"Total Cost: ${self.total_cost_usd:.6f}")
        if self.total_embedding_cost_usd:
            lines.append(f"  - LLM: ${self.llm_cost_usd:.6f}")
            lines.append(f"  - Embeddings: ${self.total_embedding_cost_usd:.6f}")
        lines.append(f"Iterations: {len(self.iterations)}")
        if self.tool_usage:
            lines += ["", "Tool Usage:"]
            for name, calls in self.tool_usage.items():
                tokens = self.tool_tokens.get(name, 0)
                lines.append(f"  - {name}: {calls} calls, {tokens:,} tokens")
        lines.append(_RULE)
        return "\n".join(lines)
