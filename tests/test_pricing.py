"""Tests for selectools.pricing: the price table, cost arithmetic, id resolution and caching."""

from __future__ import annotations

from typing import Any

import pytest

import selectools
from selectools import pricing
from selectools.models import ALL_MODELS, MODELS_BY_ID, OpenAI
from selectools.pricing import (
    PRICING,
    calculate_cost,
    calculate_embedding_cost,
    get_model_pricing,
)


@pytest.fixture(autouse=True)
def fresh_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with an empty resolution cache (and leaves the shared one alone)."""
    monkeypatch.setattr(pricing, "_resolved", {})


# --- the table -------------------------------------------------------------------------------


def test_pricing_table_mirrors_the_registry() -> None:
    assert list(PRICING) == [m.id for m in ALL_MODELS]
    for model in ALL_MODELS:
        assert PRICING[model.id] == {
            "prompt": model.prompt_cost,
            "completion": model.completion_cost,
        }


def test_documented_entries() -> None:
    assert PRICING["gpt-4o"] == {"prompt": 2.5, "completion": 10.0}
    assert get_model_pricing("gpt-4o-mini") == {"prompt": 0.15, "completion": 0.60}
    assert get_model_pricing("nope") is None


def test_get_model_pricing_returns_a_copy() -> None:
    entry = get_model_pricing("gpt-4o")
    assert entry is not None
    entry["prompt"] = 999.0
    assert PRICING["gpt-4o"]["prompt"] == 2.5


# --- arithmetic ------------------------------------------------------------------------------


def test_worked_examples() -> None:
    assert calculate_cost("gpt-4o", 1000, 500) == 0.0075
    assert calculate_cost("gpt-4o", prompt_tokens=1500, completion_tokens=300) == pytest.approx(
        0.00675
    )
    assert f"${calculate_cost('gpt-4o', 1500, 300):.6f}" == "$0.006750"
    assert calculate_cost("gpt-4o", 50_000, 5_000) == pytest.approx(0.175)
    assert calculate_embedding_cost("text-embedding-3-small", 1000) == pytest.approx(0.00002)
    assert calculate_embedding_cost("text-embedding-3-small", tokens=10000) == pytest.approx(0.0002)
    assert f"${calculate_embedding_cost('text-embedding-3-small', 10000):.6f}" == "$0.000200"


@pytest.mark.parametrize("model", ALL_MODELS, ids=lambda m: m.id)
def test_cost_formula_for_every_model(model: Any) -> None:
    expected = 1234 / 1e6 * model.prompt_cost + 567 / 1e6 * model.completion_cost
    assert calculate_cost(model.id, 1234, 567) == pytest.approx(expected)
    assert calculate_embedding_cost(model.id, 890) == pytest.approx(890 / 1e6 * model.prompt_cost)


def test_free_and_zero_token_calls_cost_nothing() -> None:
    assert calculate_cost("llama3.2", 10_000, 10_000) == 0.0
    assert calculate_embedding_cost("text-embedding-004", 10_000) == 0.0
    assert calculate_cost("gpt-4o", 0, 0) == 0.0


@pytest.mark.parametrize("model", ["nope", "", "gpt-99", "ft:gpt-4o-mini-2024-07-18:acme::abc"])
def test_unknown_models_cost_nothing(model: str) -> None:
    assert calculate_cost(model, 1000, 1000) == 0.0
    assert calculate_embedding_cost(model, 1000) == 0.0
    assert get_model_pricing(model) is None


def test_non_string_model_never_raises() -> None:
    assert calculate_cost(None, 10, 10) == 0.0  # type: ignore[arg-type]
    assert calculate_embedding_cost(OpenAI.GPT_4O, 10) == 0.0  # type: ignore[arg-type]
    assert get_model_pricing(42) is None  # type: ignore[arg-type]


# --- resolving ids that are not in the registry ---------------------------------------------


@pytest.mark.parametrize(
    ("query", "resolved"),
    [
        ("gpt-4o-2024-08-06", "gpt-4o-2024-08-06"),  # exact entries win
        ("gpt-4o-2024-05-13", "gpt-4o-2024-05-13"),
        ("gpt-4o-2099-01-01", "gpt-4o"),  # a new snapshot: the undated model, not a sibling
        ("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),
        ("gpt-5-mini-2025-08-07", "gpt-5-mini"),
        ("o3-2025-04-16", "o3"),
        ("gpt-4-0613", "gpt-4"),
        ("gpt-4o-audio-preview-2024-12-17", "gpt-4o-audio-preview"),
        ("GPT-4o", "gpt-4o"),
        (" gpt-4o-mini ", "gpt-4o-mini"),
        ("openai/gpt-4o", "gpt-4o"),
        ("claude-3-5-haiku-latest", "claude-3-5-haiku-20241022"),
        ("claude-3-7-sonnet-latest", "claude-3-7-sonnet-20250219"),
        ("claude-haiku-4-5", "claude-haiku-4-5-20251001"),
        ("claude-sonnet-4-5", "claude-sonnet-4-5-20250929"),
        ("claude-opus-4-1", "claude-opus-4-1-20250805"),
        ("claude-sonnet-4-0", "claude-sonnet-4-20250514"),
        ("models/gemini-2.5-flash", "gemini-2.5-flash"),
        ("gemini-2.5-flash-preview-05-20", "gemini-2.5-flash"),
        ("gemini-2.5-flash-lite-preview-09-2025", "gemini-2.5-flash-lite"),
        ("gemini-2.0-flash-exp", "gemini-2.0-flash"),
        ("gemini-3-pro", "gemini-3-pro-preview"),
        ("llama3.2:3b", "llama3.2"),
        ("nomic-embed-text:latest", "nomic-embed-text"),
    ],
)
def test_resolution(query: str, resolved: str) -> None:
    assert get_model_pricing(query) == PRICING[resolved]
    model = MODELS_BY_ID[resolved]
    expected = (1000 * model.prompt_cost + 500 * model.completion_cost) / 1e6
    assert calculate_cost(query, 1000, 500) == pytest.approx(expected)


def test_exact_ids_skip_the_resolver(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(model: str) -> None:
        raise AssertionError(f"resolver called for {model}")

    monkeypatch.setattr(pricing, "_resolve_uncached", boom)
    assert calculate_cost("gpt-4o", 1000, 500) == 0.0075
    assert pricing._resolved == {}


def test_resolved_ids_are_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    assert calculate_cost("gpt-4o-2099-01-01", 1000, 500) == 0.0075
    assert calculate_cost("no-such-model", 1, 1) == 0.0
    assert pricing._resolved == {"gpt-4o-2099-01-01": "gpt-4o", "no-such-model": None}

    def boom(model: str) -> None:
        raise AssertionError(f"resolver called again for {model}")

    monkeypatch.setattr(pricing, "_resolve_uncached", boom)
    assert calculate_cost("gpt-4o-2099-01-01", 1000, 500) == 0.0075
    assert get_model_pricing("no-such-model") is None


def test_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pricing, "_CACHE_LIMIT", 10)
    for i in range(50):
        assert calculate_cost(f"user-typed-{i}", 1, 1) == 0.0
    assert len(pricing._resolved) == 10
    assert calculate_cost("gpt-4o-2099-01-01", 1000, 500) == 0.0075  # still resolves


def test_entries_added_at_run_time_are_priced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PRICING, "my-deployment", {"prompt": 1.0, "completion": 2.0})
    assert calculate_cost("my-deployment", 1_000_000, 1_000_000) == 3.0
    assert get_model_pricing("my-deployment") == {"prompt": 1.0, "completion": 2.0}


# --- the docs examples, copied verbatim ------------------------------------------------------
# MODELS.md "Programmatic Pricing API" (these import from the top-level package) and the
# USAGE.md "Pricing System" section.

PRICING_DICT = r"""
from selectools import PRICING

# Look up GPT-4o pricing
pricing = PRICING["gpt-4o"]
print(pricing)
# {"prompt": 2.50, "completion": 10.00}

# Calculate cost for 1000 prompt + 500 completion tokens
cost = (1000 * pricing["prompt"] + 500 * pricing["completion"]) / 1_000_000
print(f"${cost:.6f}")
"""

GET_MODEL_PRICING = r"""
from selectools import get_model_pricing

pricing = get_model_pricing("gpt-4o-mini")
if pricing:
    print(f"Prompt: ${pricing['prompt']}/M tokens")
    print(f"Completion: ${pricing['completion']}/M tokens")
else:
    print("Unknown model")
"""

CALCULATE_COST = r"""
from selectools import calculate_cost

cost = calculate_cost("gpt-4o", prompt_tokens=1500, completion_tokens=300)
print(f"${cost:.6f}")  # $0.006750
"""

CALCULATE_EMBEDDING_COST = r"""
from selectools import calculate_embedding_cost

cost = calculate_embedding_cost("text-embedding-3-small", tokens=10000)
print(f"${cost:.6f}")  # $0.000200
"""

LISTING_ALL_MODELS = r"""
from selectools import ALL_MODELS, MODELS_BY_ID

# All 115 ModelInfo objects
for model in ALL_MODELS:
    print(f"{model.id:40s} ${model.prompt_cost:>8.2f} / ${model.completion_cost:>8.2f}")

# Look up by ID
model = MODELS_BY_ID.get("claude-sonnet-4-20250514")
if model:
    print(f"Context: {model.context_window:,} tokens")
"""

USAGE_REGISTRY_INTEGRATION = r"""
from selectools.models import OpenAI, Anthropic, Gemini

# Model info includes pricing
model = OpenAI.GPT_4O
print(f"Prompt: ${model.prompt_cost}/1M tokens")
print(f"Completion: ${model.completion_cost}/1M tokens")
"""

USAGE_COST_CALCULATION = r"""
from selectools.pricing import calculate_cost

cost = calculate_cost(
    model="gpt-4o",
    prompt_tokens=1000,
    completion_tokens=500
)

# Formula:
# cost = (prompt_tokens / 1M * prompt_cost) + (completion_tokens / 1M * completion_cost)
# cost = (1000 / 1M * 2.50) + (500 / 1M * 10.00)
# cost = 0.0025 + 0.005 = $0.0075
"""

USAGE_EMBEDDING_COST = r"""
from selectools.pricing import calculate_embedding_cost

cost = calculate_embedding_cost(
    model="text-embedding-3-small",
    tokens=1000
)

# Formula:
# cost = tokens / 1M * prompt_cost
# cost = 1000 / 1M * 0.02 = $0.00002
"""

TOP_LEVEL_NAMES = (
    "PRICING",
    "get_model_pricing",
    "calculate_cost",
    "calculate_embedding_cost",
    "ALL_MODELS",
    "MODELS_BY_ID",
)


def test_pricing_and_registry_names_are_exported_at_top_level():
    missing = [name for name in TOP_LEVEL_NAMES if not hasattr(selectools, name)]
    assert missing == [], f"selectools does not export {missing}"


def run_doc(code: str, name: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": f"doc_{name}"}
    exec(compile(code, f"<docs {name}>", "exec"), namespace)
    return namespace


def test_doc_pricing_dict(capsys: pytest.CaptureFixture[str]) -> None:
    ns = run_doc(PRICING_DICT, "PRICING_DICT")
    assert capsys.readouterr().out.splitlines() == [
        "{'prompt': 2.5, 'completion': 10.0}",
        "$0.007500",
    ]
    assert ns["cost"] == pytest.approx(0.0075)


def test_doc_get_model_pricing(capsys: pytest.CaptureFixture[str]) -> None:
    run_doc(GET_MODEL_PRICING, "GET_MODEL_PRICING")
    assert capsys.readouterr().out.splitlines() == [
        "Prompt: $0.15/M tokens",
        "Completion: $0.6/M tokens",
    ]


def test_doc_calculate_cost(capsys: pytest.CaptureFixture[str]) -> None:
    run_doc(CALCULATE_COST, "CALCULATE_COST")
    assert capsys.readouterr().out == "$0.006750\n"


def test_doc_calculate_embedding_cost(capsys: pytest.CaptureFixture[str]) -> None:
    run_doc(CALCULATE_EMBEDDING_COST, "CALCULATE_EMBEDDING_COST")
    assert capsys.readouterr().out == "$0.000200\n"


def test_doc_listing_all_models(capsys: pytest.CaptureFixture[str]) -> None:
    run_doc(LISTING_ALL_MODELS, "LISTING_ALL_MODELS")
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 116
    assert out[0].startswith(f"{ALL_MODELS[0].id:40s} $")
    assert out[-1] == "Context: 200,000 tokens"


def test_doc_usage_registry_integration(capsys: pytest.CaptureFixture[str]) -> None:
    run_doc(USAGE_REGISTRY_INTEGRATION, "USAGE_REGISTRY_INTEGRATION")
    assert capsys.readouterr().out.splitlines() == [
        "Prompt: $2.5/1M tokens",
        "Completion: $10.0/1M tokens",
    ]


def test_doc_usage_cost_calculation() -> None:
    ns = run_doc(USAGE_COST_CALCULATION, "USAGE_COST_CALCULATION")
    assert ns["cost"] == 0.0075


def test_doc_usage_embedding_cost() -> None:
    ns = run_doc(USAGE_EMBEDDING_COST, "USAGE_EMBEDDING_COST")
    assert ns["cost"] == pytest.approx(0.00002)


# --- the registry against a maintained price source ------------------------------------------
# genai-prices (pydantic's price data) prices the same usage; every registry chat model it
# knows must cost the same, cached and long-context usage included. The few ids where the
# two tables knowingly differ are listed, so a new difference fails here.

_GENAI_PROVIDER = {"openai": "openai", "anthropic": "anthropic", "gemini": "google"}
# Rolling aliases genai-prices maps to a newer model than the one our registry prices.
_KNOWN_DIFFERENCES = {"gemini-flash-latest", "gemini-flash-lite-latest", "gemini-1.5-flash-8b"}
_SHAPES = [
    # (prompt, completion, cache read, cache write)
    (10_000, 500, 0, 0),
    (10_000, 500, 8_000, 0),
    (10_000, 500, 2_000, 6_000),
    (300_000, 2_000, 240_000, 0),
]


def _chat_models_genai_prices_knows():
    genai_prices = pytest.importorskip("genai_prices")
    known = []
    for model in ALL_MODELS:
        provider = _GENAI_PROVIDER.get(model.provider)
        if provider is None or model.type.value != "chat" or model.id in _KNOWN_DIFFERENCES:
            continue
        try:
            genai_prices.calc_price(
                genai_prices.Usage(input_tokens=1, output_tokens=1),
                model_ref=model.id,
                provider_id=provider,
            )
        except LookupError:
            continue
        known.append((model, provider))
    return genai_prices, known


def test_registry_prices_match_genai_prices():
    genai_prices, known = _chat_models_genai_prices_knows()
    assert len(known) >= 60  # the comparison covers the registry, not a handful
    mismatches = []
    for model, provider in known:
        for prompt, completion, read, write in _SHAPES:
            if write and model.provider != "anthropic":
                continue  # only Anthropic bills cache writes
            theirs = genai_prices.calc_price(
                genai_prices.Usage(
                    input_tokens=prompt,
                    output_tokens=completion,
                    cache_read_tokens=read,
                    cache_write_tokens=write,
                ),
                model_ref=model.id,
                provider_id=provider,
            ).total_price
            ours = calculate_cost(
                model.id, prompt, completion, cache_read_tokens=read, cache_write_tokens=write
            )
            if abs(float(theirs) - ours) > 1e-9 + 1e-9 * ours:
                mismatches.append((model.id, (prompt, completion, read, write), ours, theirs))
    assert mismatches == []
