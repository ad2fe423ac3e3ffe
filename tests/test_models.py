"""Tests for the model registry (selectools.models) and the MODELS.md examples that need no key."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest

from selectools import models
from selectools.models import (
    ALL_MODELS,
    MODELS_BY_ID,
    Anthropic,
    Cohere,
    Gemini,
    ModelInfo,
    ModelType,
    Ollama,
    OpenAI,
)

PROVIDER_CLASSES = {
    "openai": OpenAI,
    "anthropic": Anthropic,
    "gemini": Gemini,
    "ollama": Ollama,
    "cohere": Cohere,
}


# --- ModelType -------------------------------------------------------------------------------


def test_model_type_values_and_string_compat() -> None:
    assert [m.value for m in ModelType] == ["chat", "embedding", "image", "audio", "multimodal"]
    assert ModelType.CHAT == "chat"
    assert isinstance(ModelType.EMBEDDING, str)
    assert str(ModelType.AUDIO) == "audio"
    assert f"{ModelType.IMAGE}" == "image"
    assert ModelType("multimodal") is ModelType.MULTIMODAL


# --- ModelInfo -------------------------------------------------------------------------------


def test_model_info_is_frozen_and_slotted() -> None:
    model = OpenAI.GPT_4O_MINI
    with pytest.raises(dataclasses.FrozenInstanceError):
        model.prompt_cost = 0.0  # type: ignore[misc]
    assert not hasattr(model, "__dict__")
    assert [f.name for f in dataclasses.fields(ModelInfo)] == [
        "id",
        "provider",
        "type",
        "prompt_cost",
        "completion_cost",
        "max_tokens",
        "context_window",
        "cache_read_cost",  # prompt-cache and long-context prices, not compared
        "cache_write_cost",
        "long_context",
    ]


def test_model_info_accepts_plain_string_type() -> None:
    info = ModelInfo("x-1", "openai", "embedding", 0.1, 0.0, 10, 10)  # type: ignore[arg-type]
    assert info.type is ModelType.EMBEDDING
    with pytest.raises(ValueError, match="video"):
        ModelInfo("x-2", "openai", "video", 0.1, 0.0, 10, 10)  # type: ignore[arg-type]


def test_model_info_equality_and_hash() -> None:
    copy = dataclasses.replace(OpenAI.GPT_4O)
    assert copy == OpenAI.GPT_4O
    assert hash(copy) == hash(OpenAI.GPT_4O)
    assert len(set(ALL_MODELS)) == len(ALL_MODELS)


def test_model_info_repr_is_short_and_deterministic() -> None:
    assert repr(OpenAI.GPT_4O_MINI) == (
        "<ModelInfo gpt-4o-mini (openai, chat) $0.15/$0.6 per 1M tokens>"
    )
    assert repr(OpenAI.Embeddings.TEXT_EMBEDDING_3_SMALL) == (
        "<ModelInfo text-embedding-3-small (openai, embedding) $0.02/$0 per 1M tokens>"
    )
    assert all(len(repr(m)) < 120 and "0x" not in repr(m) for m in ALL_MODELS)


# --- registry --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "count"),
    [("openai", 65), ("anthropic", 13), ("gemini", 21), ("ollama", 13), ("cohere", 3)],
)
def test_provider_counts(provider: str, count: int) -> None:
    assert sum(m.provider == provider for m in ALL_MODELS) == count


def test_total_count_and_no_duplicate_ids() -> None:
    assert len(ALL_MODELS) == 115
    duplicates = [i for i, n in Counter(m.id for m in ALL_MODELS).items() if n > 1]
    assert duplicates == []
    assert len(MODELS_BY_ID) == len(ALL_MODELS)
    assert all(MODELS_BY_ID[m.id] is m for m in ALL_MODELS)


def _constants(cls: type) -> dict[str, ModelInfo]:
    found = {n: v for n, v in vars(cls).items() if isinstance(v, ModelInfo)}
    embeddings = vars(cls).get("Embeddings")
    if embeddings is not None:
        found.update(
            {f"Embeddings.{n}": v for n, v in vars(embeddings).items() if isinstance(v, ModelInfo)}
        )
    return found


def test_all_models_is_every_constant_in_definition_order() -> None:
    expected = [m for cls in PROVIDER_CLASSES.values() for m in _constants(cls).values()]
    assert expected == ALL_MODELS
    assert models._collect_all_models() == ALL_MODELS
    assert ALL_MODELS[0] is OpenAI.GPT_5_4
    assert ALL_MODELS[-1] is Cohere.Embeddings.EMBED_V3_LIGHT


@pytest.mark.parametrize(("provider", "cls"), list(PROVIDER_CLASSES.items()))
def test_constants_belong_to_their_provider(provider: str, cls: type) -> None:
    for name, model in _constants(cls).items():
        assert model.provider == provider, name
        in_embeddings = name.startswith("Embeddings.")
        assert (model.type is ModelType.EMBEDDING) == in_embeddings, name


def test_registry_invariants() -> None:
    for m in ALL_MODELS:
        assert isinstance(m.type, ModelType), m
        assert m.id == m.id.strip().lower(), m
        assert " " not in m.id, m
        assert m.prompt_cost >= 0, m
        assert m.completion_cost >= 0, m
        assert 0 <= m.max_tokens <= m.context_window, m
        if m.type is ModelType.CHAT:
            assert m.context_window >= 2048, m
            assert m.max_tokens > 0, m
        if m.type is ModelType.EMBEDDING:
            assert m.completion_cost == 0.0, m
        if m.provider == "ollama":
            assert (m.prompt_cost, m.completion_cost) == (0.0, 0.0), m


# Every constant the docs name, with the documented prompt / completion price per 1M tokens.
DOCUMENTED_PRICES: list[tuple[ModelInfo, float, float]] = [
    (OpenAI.GPT_5_4, 2.50, 15.00),
    (OpenAI.GPT_5_4_PRO, 30.00, 180.00),
    (OpenAI.GPT_5_2, 1.75, 14.00),
    (OpenAI.GPT_5_1, 1.25, 10.00),
    (OpenAI.GPT_5_MINI, 0.25, 2.00),
    (OpenAI.GPT_5_NANO, 0.05, 0.40),
    (OpenAI.GPT_4_1, 2.00, 8.00),
    (OpenAI.GPT_4_1_MINI, 0.40, 1.60),
    (OpenAI.GPT_4_1_NANO, 0.10, 0.40),
    (OpenAI.GPT_4O, 2.50, 10.00),
    (OpenAI.GPT_4O_MINI, 0.15, 0.60),
    (OpenAI.O3_PRO, 20.00, 80.00),
    (OpenAI.O3, 2.00, 8.00),
    (OpenAI.O4_MINI, 1.10, 4.40),
    (OpenAI.O1, 15.00, 60.00),
    (OpenAI.Embeddings.TEXT_EMBEDDING_3_SMALL, 0.02, 0.0),
    (OpenAI.Embeddings.TEXT_EMBEDDING_3_LARGE, 0.13, 0.0),
    (OpenAI.Embeddings.ADA_002, 0.10, 0.0),
    (Anthropic.OPUS_4_6, 5.00, 25.00),
    (Anthropic.SONNET_4_6, 3.00, 15.00),
    (Anthropic.OPUS_4_5, 5.00, 25.00),
    (Anthropic.SONNET_4_5, 3.00, 15.00),
    (Anthropic.HAIKU_4_5, 1.00, 5.00),
    (Anthropic.SONNET_3_5_20241022, 3.00, 15.00),
    (Anthropic.HAIKU_3_5_20241022, 0.80, 4.00),
    (Anthropic.Embeddings.VOYAGE_3, 0.06, 0.0),
    (Anthropic.Embeddings.VOYAGE_3_LITE, 0.02, 0.0),
    (Gemini.PRO_3_1, 2.00, 12.00),
    (Gemini.FLASH_LITE_3_1, 0.25, 1.50),
    (Gemini.PRO_3, 2.00, 12.00),
    (Gemini.FLASH_3_PREVIEW, 0.50, 3.00),
    (Gemini.PRO_2_5, 1.25, 10.00),
    (Gemini.FLASH_2_5, 0.30, 2.50),
    (Gemini.FLASH_LITE_2_5, 0.10, 0.40),
    (Gemini.FLASH_2_0, 0.10, 0.40),
    (Gemini.Embeddings.EMBEDDING_004, 0.0, 0.0),
    (Gemini.Embeddings.EMBEDDING_001, 0.0, 0.0),
    (Ollama.LLAMA_3_2, 0.0, 0.0),
    (Ollama.LLAMA_3_1, 0.0, 0.0),
    (Ollama.MISTRAL, 0.0, 0.0),
    (Ollama.CODELLAMA, 0.0, 0.0),
    (Ollama.PHI, 0.0, 0.0),
    (Cohere.Embeddings.EMBED_V3, 0.10, 0.0),
    (Cohere.Embeddings.EMBED_MULTILINGUAL_V3, 0.10, 0.0),
    (Cohere.Embeddings.EMBED_V3_LIGHT, 0.10, 0.0),
]


@pytest.mark.parametrize(("model", "prompt", "completion"), DOCUMENTED_PRICES, ids=repr)
def test_documented_prices(model: ModelInfo, prompt: float, completion: float) -> None:
    assert (model.prompt_cost, model.completion_cost) == (prompt, completion)


def test_documented_details() -> None:
    mini = OpenAI.GPT_4O_MINI
    assert (mini.id, mini.provider, mini.type) == ("gpt-4o-mini", "openai", ModelType.CHAT)
    assert (mini.max_tokens, mini.context_window) == (16384, 128000)
    assert (OpenAI.GPT_4O.id, OpenAI.GPT_4O.max_tokens, OpenAI.GPT_4O.context_window) == (
        "gpt-4o",
        16384,
        128000,
    )
    small = OpenAI.Embeddings.TEXT_EMBEDDING_3_SMALL
    assert (small.id, small.type, small.max_tokens, small.context_window) == (
        "text-embedding-3-small",
        ModelType.EMBEDDING,
        8191,
        8191,
    )
    assert OpenAI.GPT_REALTIME.type == ModelType.AUDIO
    assert OpenAI.GPT_4_1106_VISION_PREVIEW.type == ModelType.MULTIMODAL
    assert OpenAI.GPT_5_4.context_window == OpenAI.GPT_5_4_PRO.context_window == 1_050_000
    assert OpenAI.GPT_4_1.context_window >= 1_000_000
    assert Gemini.PRO_3_1.context_window >= 1_000_000
    assert Gemini.PRO_3.context_window >= 2_000_000


@pytest.mark.parametrize(
    "model_id",
    [
        "claude-sonnet-4-20250514",
        "claude-3-5-haiku-20241022",
        "claude-opus-4-1-20250805",
        "gpt-4.1-mini",
        "gpt-5-mini",
        "gpt-4-turbo",
        "gpt-3.5-turbo",
        "o1-mini",
        "o3-mini",
        "gpt-4o-audio-preview",
        "dall-e-3",
        "whisper-1",
        "tts-1",
        "gemini-1.5-pro",
        "gemini-1.5-flash",
        "llama3.3",
        "qwen2.5",
        "gemma2",
        "deepseek-r1",
        "nomic-embed-text",
    ],
)
def test_well_known_ids_resolve(model_id: str) -> None:
    assert MODELS_BY_ID[model_id].id == model_id


def test_model_kinds_of_well_known_ids() -> None:
    assert MODELS_BY_ID["dall-e-3"].type is ModelType.IMAGE
    assert MODELS_BY_ID["whisper-1"].type is ModelType.AUDIO
    assert MODELS_BY_ID["tts-1"].type is ModelType.AUDIO
    assert MODELS_BY_ID["nomic-embed-text"].type is ModelType.EMBEDDING


def test_import_is_light() -> None:
    code = (
        "import sys, selectools.models\n"
        "heavy = {'pydantic', 'openai', 'anthropic', 'httpx', 'numpy', 'IPython', 'asyncio'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


# --- the MODELS.md examples that need no API key, copied verbatim ---------------------------
# The examples that build OpenAIProvider / AgentConfig / embedders belong to those modules'
# tests; the ones importing from the top-level package live in test_pricing.py.

REGISTRY_STRUCTURE = r"""
# Typed model constants
OpenAI.GPT_4O              # ModelInfo instance
Anthropic.SONNET_4_6       # ModelInfo instance
Gemini.FLASH_2_5           # ModelInfo instance

# Complete list
ALL_MODELS                 # List[ModelInfo] - all 115 models

# Quick lookup
MODELS_BY_ID               # Dict[str, ModelInfo] - O(1) lookup
"""

OPENAI_MODELS = r"""
from selectools.models import OpenAI

# GPT-5.4 Series (Latest Flagship — 1.05M context)
OpenAI.GPT_5_4              # $2.50 / $15.00 per 1M tokens
OpenAI.GPT_5_4_PRO          # $30.00 / $180.00 per 1M tokens

# GPT-5.x Series
OpenAI.GPT_5_2              # $1.75 / $14.00 per 1M tokens
OpenAI.GPT_5_1              # $1.25 / $10.00 per 1M tokens
OpenAI.GPT_5_MINI           # $0.25 / $2.00 per 1M tokens
OpenAI.GPT_5_NANO           # $0.05 / $0.40 per 1M tokens

# GPT-4.1 Series (1M context)
OpenAI.GPT_4_1              # $2.00 / $8.00 per 1M tokens
OpenAI.GPT_4_1_MINI         # $0.40 / $1.60 per 1M tokens
OpenAI.GPT_4_1_NANO         # $0.10 / $0.40 per 1M tokens

# GPT-4o Series
OpenAI.GPT_4O               # $2.50 / $10.00 per 1M tokens
OpenAI.GPT_4O_MINI          # $0.15 / $0.60 per 1M tokens ⭐ Best value

# o-series (Reasoning)
OpenAI.O3_PRO               # $20.00 / $80.00 per 1M tokens
OpenAI.O3                   # $2.00 / $8.00 per 1M tokens
OpenAI.O4_MINI              # $1.10 / $4.40 per 1M tokens
OpenAI.O1                   # $15.00 / $60.00 per 1M tokens

# Embeddings
OpenAI.Embeddings.TEXT_EMBEDDING_3_SMALL  # $0.02 per 1M tokens ⭐
OpenAI.Embeddings.TEXT_EMBEDDING_3_LARGE  # $0.13 per 1M tokens
OpenAI.Embeddings.ADA_002                 # $0.10 per 1M tokens
"""

ANTHROPIC_MODELS = r"""
from selectools.models import Anthropic

# Claude 4.6 Series (Latest)
Anthropic.OPUS_4_6          # $5.00 / $25.00 per 1M tokens
Anthropic.SONNET_4_6        # $3.00 / $15.00 per 1M tokens

# Claude 4.5 Series
Anthropic.OPUS_4_5          # $5.00 / $25.00 per 1M tokens
Anthropic.SONNET_4_5        # $3.00 / $15.00 per 1M tokens
Anthropic.HAIKU_4_5         # $1.00 / $5.00 per 1M tokens

# Claude 3.5 Series
Anthropic.SONNET_3_5_20241022  # $3.00 / $15.00 per 1M tokens
Anthropic.HAIKU_3_5_20241022   # $0.80 / $4.00 per 1M tokens

# Embeddings (Voyage AI)
Anthropic.Embeddings.VOYAGE_3       # $0.06 per 1M tokens
Anthropic.Embeddings.VOYAGE_3_LITE  # $0.02 per 1M tokens
"""

GEMINI_MODELS = r"""
from selectools.models import Gemini

# Gemini 3.1 Series (Latest)
Gemini.PRO_3_1              # $2.00 / $12.00 per 1M tokens (1M context)
Gemini.FLASH_LITE_3_1          # $0.25 / $1.50 per 1M tokens

# Gemini 3 Series
Gemini.PRO_3                # $2.00 / $12.00 per 1M tokens (2M context)
Gemini.FLASH_3_PREVIEW      # $0.50 / $3.00 per 1M tokens

# Gemini 2.5 Series
Gemini.PRO_2_5              # $1.25 / $10.00 per 1M tokens
Gemini.FLASH_2_5            # $0.30 / $2.50 per 1M tokens
Gemini.FLASH_LITE_2_5       # $0.10 / $0.40 per 1M tokens

# Gemini 2.0 Series
Gemini.FLASH_2_0            # $0.10 / $0.40 per 1M tokens ⭐ Great value

# Embeddings
Gemini.Embeddings.EMBEDDING_004  # FREE ⭐⭐⭐
Gemini.Embeddings.EMBEDDING_001  # FREE
"""

OLLAMA_MODELS = r"""
from selectools.models import Ollama

# All FREE (local execution)
Ollama.LLAMA_3_2            # Local, FREE
Ollama.LLAMA_3_1            # Local, FREE
Ollama.MISTRAL              # Local, FREE
Ollama.CODELLAMA            # Local, FREE ⭐ For coding
Ollama.PHI                  # Local, FREE
"""

COHERE_MODELS = r"""
from selectools.models import Cohere

# Embeddings only
Cohere.Embeddings.EMBED_V3                # $0.10 per 1M tokens
Cohere.Embeddings.EMBED_MULTILINGUAL_V3   # $0.10 per 1M tokens ⭐ 100+ languages
Cohere.Embeddings.EMBED_V3_LIGHT          # $0.10 per 1M tokens
"""

ACCESSING_METADATA = r"""
from selectools.models import OpenAI

model = OpenAI.GPT_4O_MINI

print(f"Model ID: {model.id}")
print(f"Provider: {model.provider}")
print(f"Type: {model.type}")
print(f"Prompt cost: ${model.prompt_cost} per 1M tokens")
print(f"Completion cost: ${model.completion_cost} per 1M tokens")
print(f"Max output: {model.max_tokens:,} tokens")
print(f"Context window: {model.context_window:,} tokens")

# Output:
# Model ID: gpt-4o-mini
# Provider: openai
# Type: chat
# Prompt cost: $0.15 per 1M tokens
# Completion cost: $0.60 per 1M tokens
# Max output: 16,384 tokens
# Context window: 128,000 tokens
"""

CALCULATING_COSTS = r"""
from selectools.pricing import calculate_cost
from selectools.models import OpenAI

cost = calculate_cost(
    model=OpenAI.GPT_4O_MINI.id,
    prompt_tokens=1000,
    completion_tokens=500
)

# Or manually:
model = OpenAI.GPT_4O_MINI
cost = (1000 / 1_000_000 * model.prompt_cost) + (500 / 1_000_000 * model.completion_cost)
"""

QUICK_LOOKUP = r"""
from selectools.models import MODELS_BY_ID

# O(1) lookup
model = MODELS_BY_ID["gpt-4o-mini"]
print(f"Cost: ${model.prompt_cost}/${model.completion_cost}")

# Check if model exists
if "gpt-99" in MODELS_BY_ID:
    print("Model supported")
else:
    print("Model not in registry")
"""

LIST_ALL_MODELS = r"""
from selectools.models import ALL_MODELS

# All 115 models
print(f"Total models: {len(ALL_MODELS)}")

# Filter by provider
openai_models = [m for m in ALL_MODELS if m.provider == "openai"]
print(f"OpenAI models: {len(openai_models)}")

# Filter by type
embedding_models = [m for m in ALL_MODELS if m.type == "embedding"]
print(f"Embedding models: {len(embedding_models)}")

# Sort by cost
cheapest = sorted(ALL_MODELS, key=lambda m: m.prompt_cost)[:5]
for model in cheapest:
    print(f"{model.id}: ${model.prompt_cost}")
"""

COMPLETE_EXAMPLE = r"""
from selectools.models import OpenAI

model = OpenAI.GPT_4O

# Core identification
model.id                # "gpt-4o"
model.provider          # "openai"
model.type              # "chat"

# Pricing (USD per 1M tokens)
model.prompt_cost       # 2.50
model.completion_cost   # 10.00

# Capabilities
model.max_tokens        # 16384 (max output)
model.context_window    # 128000 (max input+output)

# Example calculation
input_tokens = 50000
output_tokens = 5000

input_cost = input_tokens / 1_000_000 * model.prompt_cost
output_cost = output_tokens / 1_000_000 * model.completion_cost
total_cost = input_cost + output_cost

print(f"Total cost: ${total_cost:.6f}")  # $0.175000
"""

MODELTYPE_COMPARISONS = r"""
# Chat models
OpenAI.GPT_4O.type == "chat"               # True
OpenAI.GPT_4O.type == ModelType.CHAT        # True

# Embedding models
OpenAI.Embeddings.TEXT_EMBEDDING_3_SMALL.type == "embedding"       # True
OpenAI.Embeddings.TEXT_EMBEDDING_3_SMALL.type == ModelType.EMBEDDING  # True

# Audio models
OpenAI.GPT_REALTIME.type == ModelType.AUDIO           # True

# Multimodal models
OpenAI.GPT_4_1106_VISION_PREVIEW.type == ModelType.MULTIMODAL  # True
"""

MODEL_DEFINITION = r"""
# In models.py

class OpenAI:
    GPT_4O_MINI = ModelInfo(
        id="gpt-4o-mini",
        provider="openai",
        type="chat",
        prompt_cost=0.15,
        completion_cost=0.60,
        max_tokens=16384,
        context_window=128000,
    )

    class Embeddings:
        TEXT_EMBEDDING_3_SMALL = ModelInfo(
            id="text-embedding-3-small",
            provider="openai",
            type="embedding",
            prompt_cost=0.02,
            completion_cost=0.0,  # Embeddings don't have completion cost
            max_tokens=8191,
            context_window=8191,
        )
"""

REGISTRY_GENERATION = r'''
def _collect_all_models() -> List[ModelInfo]:
    """Collect all model definitions from provider classes."""
    models = []

    for provider_class in [OpenAI, Anthropic, Gemini, Ollama, Cohere]:
        for attr_name in dir(provider_class):
            if attr_name.startswith("_"):
                continue

            attr = getattr(provider_class, attr_name)

            if isinstance(attr, ModelInfo):
                models.append(attr)
            elif isinstance(attr, type) and attr_name == "Embeddings":
                # Nested Embeddings class
                for embed_attr_name in dir(attr):
                    if embed_attr_name.startswith("_"):
                        continue
                    embed_attr = getattr(attr, embed_attr_name)
                    if isinstance(embed_attr, ModelInfo):
                        models.append(embed_attr)

    return models

ALL_MODELS = _collect_all_models()
MODELS_BY_ID = {model.id: model for model in ALL_MODELS}
'''

USE_MODEL_CONSTANTS = r"""
# ✅ Good - Type-safe, autocomplete
from selectools.models import OpenAI
model = OpenAI.GPT_4O_MINI.id

# ❌ Bad - String literals (typo-prone)
model = "gpt-4o-mini"
"""

CHECK_MODEL_COSTS = r"""
from selectools.models import OpenAI

model = OpenAI.O1  # Expensive reasoning model
print(f"Warning: This model costs ${model.prompt_cost}/${model.completion_cost} per 1M tokens")

if model.prompt_cost > 10.0:
    print("Consider using a cheaper alternative")
"""

VALIDATE_MODEL_IDS = r"""
from selectools.models import MODELS_BY_ID

user_model = "gpt-4o-super"  # User input

if user_model not in MODELS_BY_ID:
    raise ValueError(f"Unknown model: {user_model}")

model_info = MODELS_BY_ID[user_model]
"""

MODEL_COMPARISON = r"""
from selectools.models import OpenAI, Anthropic, Gemini

# Budget options
print("Budget chat models:")
print(f"  OpenAI GPT-4o-mini: ${OpenAI.GPT_4O_MINI.prompt_cost}/${OpenAI.GPT_4O_MINI.completion_cost}")
print(f"  Gemini Flash 2.5: ${Gemini.FLASH_2_5.prompt_cost}/${Gemini.FLASH_2_5.completion_cost}")
print(f"  Anthropic Haiku 4.5: ${Anthropic.HAIKU_4_5.prompt_cost}/${Anthropic.HAIKU_4_5.completion_cost}")

# Output:
# Budget chat models:
#   OpenAI GPT-4o-mini: $0.15/$0.60
#   Gemini Flash 2.0: $0.10/$0.40
#   Anthropic Haiku 3.5: $0.80/$4.00
"""

EMBEDDING_COSTS = r"""
from selectools.models import OpenAI, Anthropic, Gemini, Cohere

print("Embedding costs:")
print(f"  Gemini: ${Gemini.Embeddings.EMBEDDING_001.prompt_cost} per 1M tokens")
print(f"  OpenAI small: ${OpenAI.Embeddings.TEXT_EMBEDDING_3_SMALL.prompt_cost}")
print(f"  Voyage lite: ${Anthropic.Embeddings.VOYAGE_3_LITE.prompt_cost}")
print(f"  Cohere: ${Cohere.Embeddings.EMBED_V3.prompt_cost}")

# Output:
# Embedding costs:
#   Gemini: $0.0 (FREE)
#   OpenAI small: $0.02
#   Voyage lite: $0.02
#   Cohere: $0.1
"""

DOC_TESTING = r"""
def test_model_registry():
    from selectools.models import OpenAI, ALL_MODELS, MODELS_BY_ID

    # Test model constant
    model = OpenAI.GPT_4O_MINI
    assert model.id == "gpt-4o-mini"
    assert model.provider == "openai"
    assert model.type == "chat"
    assert model.prompt_cost > 0
    assert model.context_window > 0

    # Test registry
    assert len(ALL_MODELS) >= 115
    assert "gpt-4o-mini" in MODELS_BY_ID

    # Test lookup
    looked_up = MODELS_BY_ID["gpt-4o-mini"]
    assert looked_up.id == model.id

def test_pricing_calculation():
    from selectools.models import OpenAI
    from selectools.pricing import calculate_cost

    model = OpenAI.GPT_4O_MINI
    cost = calculate_cost(model.id, prompt_tokens=1000, completion_tokens=500)

    # Manual calculation
    expected = (1000 / 1_000_000 * model.prompt_cost) + (500 / 1_000_000 * model.completion_cost)

    assert abs(cost - expected) < 0.000001
"""

UPDATING_MODELS = r"""
class OpenAI:
    NEW_MODEL = ModelInfo(
        id="gpt-99",
        provider="openai",
        type="chat",
        prompt_cost=1.0,
        completion_cost=5.0,
        max_tokens=32768,
        context_window=256000,
    )
"""


def run_doc(code: str, name: str, **namespace: Any) -> dict[str, Any]:
    """Execute a docs example as written, in a fresh namespace (plus what the page assumes)."""
    namespace.setdefault("__name__", f"doc_{name}")
    exec(compile(code, f"<MODELS.md {name}>", "exec"), namespace)
    return namespace


def expected_output(code: str) -> list[str]:
    """The lines of a docs example's trailing ``# Output:`` comment."""
    lines = code.split("# Output:\n", 1)[1].splitlines()
    return [line.removeprefix("# ") for line in lines if line.startswith("#")]


def without_trailing_zeros(lines: list[str]) -> list[str]:
    """The docs write prices as ``$0.60``; Python prints the float 0.60 as ``0.6``."""
    return [re.sub(r"(\.\d*?)0+\b", r"\1", line) for line in lines]


@pytest.mark.parametrize(
    "name",
    [
        "OPENAI_MODELS",
        "ANTHROPIC_MODELS",
        "GEMINI_MODELS",
        "OLLAMA_MODELS",
        "COHERE_MODELS",
        "CALCULATING_COSTS",
        "USE_MODEL_CONSTANTS",
        "CHECK_MODEL_COSTS",
        "MODEL_COMPARISON",
        "EMBEDDING_COSTS",
    ],
)
def test_doc_example_runs(name: str) -> None:
    run_doc(globals()[name], name)


def test_doc_registry_structure() -> None:
    # A fragment: the page assumes the names are already imported.
    run_doc(
        REGISTRY_STRUCTURE,
        "REGISTRY_STRUCTURE",
        OpenAI=OpenAI,
        Anthropic=Anthropic,
        Gemini=Gemini,
        ALL_MODELS=ALL_MODELS,
        MODELS_BY_ID=MODELS_BY_ID,
    )


def test_doc_accessing_metadata_prints_documented_output(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run_doc(ACCESSING_METADATA, "ACCESSING_METADATA")
    printed = capsys.readouterr().out.splitlines()
    assert printed == without_trailing_zeros(expected_output(ACCESSING_METADATA))
    assert "Completion cost: $0.6 per 1M tokens" in printed


def test_doc_quick_lookup(capsys: pytest.CaptureFixture[str]) -> None:
    run_doc(QUICK_LOOKUP, "QUICK_LOOKUP")
    assert capsys.readouterr().out.splitlines() == ["Cost: $0.15/$0.6", "Model not in registry"]


def test_doc_list_all_models(capsys: pytest.CaptureFixture[str]) -> None:
    run_doc(LIST_ALL_MODELS, "LIST_ALL_MODELS")
    out = capsys.readouterr().out.splitlines()
    embedding_count = sum(m.type == "embedding" for m in ALL_MODELS)
    assert out[:3] == [
        "Total models: 115",
        "OpenAI models: 65",
        f"Embedding models: {embedding_count}",
    ]
    assert len(out) == 8
    assert all(line.endswith("$0.0") for line in out[3:])


def test_doc_complete_example(capsys: pytest.CaptureFixture[str]) -> None:
    ns = run_doc(COMPLETE_EXAMPLE, "COMPLETE_EXAMPLE")
    assert capsys.readouterr().out == "Total cost: $0.175000\n"
    assert ns["total_cost"] == pytest.approx(0.175)


def test_doc_model_type_comparisons_are_all_true() -> None:
    expressions = [
        line.split("#", 1)[0].strip()
        for line in MODELTYPE_COMPARISONS.splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert len(expressions) == 6
    for expression in expressions:
        assert eval(expression, {"OpenAI": OpenAI, "ModelType": ModelType}) is True, expression


def test_doc_model_definition_matches_the_registry() -> None:
    ns = run_doc(MODEL_DEFINITION, "MODEL_DEFINITION", ModelInfo=ModelInfo)
    assert ns["OpenAI"].GPT_4O_MINI == OpenAI.GPT_4O_MINI
    small = ns["OpenAI"].Embeddings.TEXT_EMBEDDING_3_SMALL
    assert small == OpenAI.Embeddings.TEXT_EMBEDDING_3_SMALL


def test_doc_registry_generation_finds_the_same_models() -> None:
    ns = run_doc(
        REGISTRY_GENERATION,
        "REGISTRY_GENERATION",
        List=list,  # the page's snippet assumes `from typing import List`
        ModelInfo=ModelInfo,
        **{cls.__name__: cls for cls in PROVIDER_CLASSES.values()},
    )
    assert len(ns["ALL_MODELS"]) == 115
    assert set(ns["ALL_MODELS"]) == set(ALL_MODELS)
    assert ns["MODELS_BY_ID"] == MODELS_BY_ID


def test_doc_validate_model_ids_rejects_unknown_id() -> None:
    with pytest.raises(ValueError, match="Unknown model: gpt-4o-super"):
        run_doc(VALIDATE_MODEL_IDS, "VALIDATE_MODEL_IDS")


def test_doc_testing_section() -> None:
    ns = run_doc(DOC_TESTING, "DOC_TESTING")
    ns["test_model_registry"]()
    ns["test_pricing_calculation"]()


def test_doc_updating_models() -> None:
    ns = run_doc(UPDATING_MODELS, "UPDATING_MODELS", ModelInfo=ModelInfo)
    new = ns["OpenAI"].NEW_MODEL
    assert (new.id, new.type, new.context_window) == ("gpt-99", ModelType.CHAT, 256000)
