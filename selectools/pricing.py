"""Token prices and cost arithmetic, derived from the model registry.

Why here and not in the providers: every provider reports token counts, but the price of a
call depends only on the model id, so one table (built from :mod:`selectools.models`) serves
them all. The functions are called after every LLM call, so they never raise and a repeated
lookup is a single dict hit.

Resolving ids that are not in the registry
------------------------------------------
Providers often report a more specific id than the one configured (``gpt-4o-2024-08-06``
for ``gpt-4o``, ``models/gemini-2.5-flash``, ``llama3.2:3b``), and users write aliases
(``claude-3-5-haiku-latest``, ``claude-haiku-4-5``). When an id has no exact entry in
:data:`PRICING`, it is resolved in this order, and the first hit wins:

1. the id lower-cased and trimmed, with any path prefix dropped
   (``models/gemini-2.5-flash`` -> ``gemini-2.5-flash``, ``openai/gpt-4o`` -> ``gpt-4o``),
   any Ollama tag dropped (``llama3.2:3b`` -> ``llama3.2``) and the few provider aliases no
   rule derives mapped (``claude-sonnet-4-0`` -> ``claude-sonnet-4-20250514``);
2. that id with its version suffixes stripped one at a time from the end, checking each
   step: dates (``-2024-08-06``, ``-20241022``, ``-0613``, ``-05-20``, ``-09-2025``),
   ``-latest``, ``-exp`` and ``-preview`` (``gpt-4o-2024-08-06`` -> ``gpt-4o``;
   ``gpt-4o-audio-preview-2024-12-17`` -> ``gpt-4o-audio-preview``, found before ``-preview``
   would be stripped; ``claude-3-5-haiku-latest`` -> ``claude-3-5-haiku``);
3. each of those ids matched against the registry's ids with *their* version suffixes
   stripped, so an undated alias finds its dated model (``claude-haiku-4-5`` ->
   ``claude-haiku-4-5-20251001``). An undated registry id wins over a dated one with the same
   base; otherwise the first in registry order wins.

Prompt caching and long prompts
-------------------------------
``prompt_tokens`` counts every input token, including those read from or written to the
provider's prompt cache (:class:`~selectools.usage.UsageStats` normalises each provider's
wire format to that); ``cache_read_tokens`` and ``cache_write_tokens`` say how many of them
were cached, and are billed at the registry's ``cache_read_cost`` / ``cache_write_cost``.
A prompt above the model's ``long_context.above`` tokens bills the whole request at the ``*_long``
prices, as the providers do.

Anything still unknown costs 0.0 (and :func:`get_model_pricing` returns ``None``): an
unpriced model must not break a run. Fine-tuned ids (``ft:...``) are not resolved, because
fine-tuned models are priced differently from their base model.
"""

from __future__ import annotations

import re

from .models import ALL_MODELS, MODELS_BY_ID

__all__ = [
    "PRICING",
    "calculate_cost",
    "calculate_embedding_cost",
    "get_model_pricing",
]


PRICING: dict[str, dict[str, float]] = {
    model.id: {"prompt": model.prompt_cost, "completion": model.completion_cost}
    for model in ALL_MODELS
}
"""Model id -> ``{"prompt": usd_per_1m, "completion": usd_per_1m}`` for every registry model.

Entries added at run time (a private deployment's id, say) are used by the cost functions;
cache and long-context prices come from the registry's :class:`~selectools.models.ModelInfo`,
so a model added here alone bills cached tokens as ordinary input.
"""

_PER_TOKENS = 1_000_000

# One version suffix at the end of an id: a date in any of the providers' spellings,
# "-latest", "-exp" or "-preview".
_SUFFIX = re.compile(
    r"-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{2}-\d{4}|\d{2}-\d{2}|\d{4}|latest|exp|preview)$"
)

# Provider aliases that no suffix rule can derive.
_ALIASES: dict[str, str] = {
    "claude-opus-4-0": "claude-opus-4-20250514",
    "claude-sonnet-4-0": "claude-sonnet-4-20250514",
}

_CACHE_LIMIT = 4096
_UNSEEN = "\0unseen"  # cache-miss marker; no model id contains a NUL
# Resolved id (a PRICING key) for each id seen that is not itself a PRICING key; None = unknown.
_resolved: dict[str, str | None] = {}
# Registry id for each registry id with its version suffixes stripped; built on first need.
_by_base: dict[str, str] | None = None


def _strip_one(model_id: str) -> str | None:
    stripped = _SUFFIX.sub("", model_id)
    return stripped if stripped != model_id else None


def _base(model_id: str) -> str:
    while (shorter := _strip_one(model_id)) is not None:
        model_id = shorter
    return model_id


def _base_index() -> dict[str, str]:
    global _by_base
    if _by_base is None:
        index: dict[str, str] = {}
        for model in ALL_MODELS:
            base = _base(model.id)
            # First in registry order, except that an undated id always owns its base.
            if base == model.id or base not in index:
                index[base] = model.id
        _by_base = index
    return _by_base


def _resolve_uncached(model: str) -> str | None:
    candidate = model.strip().lower()
    if candidate.startswith("ft:"):
        return None
    candidate = candidate.rsplit("/", 1)[-1].split(":", 1)[0]
    candidate = _ALIASES.get(candidate, candidate)
    steps = [candidate]
    while (shorter := _strip_one(steps[-1])) is not None:
        steps.append(shorter)
    for step in steps:
        if step in PRICING:
            return step
    index = _base_index()
    for step in steps:
        found = index.get(step)
        if found is not None and found in PRICING:
            return found
    return None


def _resolved_key(model: str) -> str:
    """The PRICING key ``model`` resolved to (after :func:`_price` has seen it)."""
    if model in PRICING:
        return model
    return _resolved.get(model) or ""


def _price(model: object) -> dict[str, float] | None:
    """The PRICING entry for ``model``, resolving and caching ids that are not keys."""
    if not isinstance(model, str):
        return None
    entry = PRICING.get(model)
    if entry is not None:
        return entry
    key = _resolved.get(model, _UNSEEN)
    if key is _UNSEEN:
        key = _resolve_uncached(model)
        if len(_resolved) < _CACHE_LIMIT:  # bounded: ids can come from user input
            _resolved[model] = key
    return PRICING.get(key) if key is not None else None


def get_model_pricing(model_id: str) -> dict[str, float] | None:
    """Prices of ``model_id`` as ``{"prompt": ..., "completion": ...}`` (USD per 1M tokens).

    Returns a copy, so callers can't change the shared table by accident; ``None`` when the
    model is unknown even after resolving it (see the module docstring).
    """
    entry = _price(model_id)
    return dict(entry) if entry is not None else None


def calculate_cost(
    model: str,
    prompt_tokens: int,
    completion_tokens: int,
    *,
    cache_read_tokens: int = 0,
    cache_write_tokens: int = 0,
) -> float:
    """USD cost of one call, with cached input and long-context tiers priced as billed.

    ``prompt_tokens`` is all input, cached included; ``cache_read_tokens`` and
    ``cache_write_tokens`` are the parts of it read from / written to the prompt cache.
    Without either, and below any long-context tier, this is
    ``(prompt * prompt_price + completion * completion_price) / 1M``. Unknown models cost
    0.0 rather than raising, because cost tracking runs on every call.
    """
    entry = _price(model)
    if entry is None:
        return 0.0
    prompt_price, completion_price = entry["prompt"], entry["completion"]
    read_price = write_price = prompt_price
    info = MODELS_BY_ID.get(_resolved_key(model))
    if info is not None and info.prompt_cost == prompt_price:  # the registry's own prices
        if info.cache_read_cost is not None:
            read_price = info.cache_read_cost
        if info.cache_write_cost is not None:
            write_price = info.cache_write_cost
        tier = info.long_context
        if tier is not None and prompt_tokens > tier.above:
            prompt_price *= tier.prompt_factor
            read_price *= tier.prompt_factor
            write_price *= tier.prompt_factor
            completion_price *= tier.completion_factor
    cached = min(cache_read_tokens + cache_write_tokens, prompt_tokens)
    total = (
        (prompt_tokens - cached) * prompt_price
        + cache_read_tokens * read_price
        + cache_write_tokens * write_price
        + completion_tokens * completion_price
    )
    return total / _PER_TOKENS


def calculate_embedding_cost(model: str, tokens: int) -> float:
    """USD cost of embedding ``tokens`` input tokens with ``model`` (0.0 when unknown)."""
    entry = _price(model)
    if entry is None:
        return 0.0
    return tokens * entry["prompt"] / _PER_TOKENS
