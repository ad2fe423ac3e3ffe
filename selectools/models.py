"""The model registry: one typed constant per supported model, with prices and limits.

Why a registry: model ids are strings that are easy to mistype, and cost tracking needs the
price of every call. Each model is a :class:`ModelInfo` constant on its provider's class
(``OpenAI.GPT_4O_MINI``), so editors autocomplete it and the pricing module
(:mod:`selectools.pricing`) derives its table from the same numbers.

Conventions:

- Costs are USD per 1M tokens, input (``prompt_cost``) and output (``completion_cost``).
  Embedding models have no output, so their ``completion_cost`` is 0.0.
- ``max_tokens`` is the most output tokens one request may ask for; ``context_window``
  is the whole context (input plus output).
- Image and audio models list their per-token prices where the provider bills per token
  (the output price is the image/audio output price). Models billed per image, per
  minute or per character have no token price here, so their costs are 0.0 (``dall-e-3``,
  ``whisper-1``) or the character price stands in for the input price (``tts-1``).
- Local models (Ollama) cost nothing.
- Prompt caching: ``cache_read_cost`` is the price of input tokens read from the provider's
  prompt cache and ``cache_write_cost`` of tokens written to it (Anthropic bills writes
  above the input price); ``None`` means the provider bills them as ordinary input.
- Long-context tiers: when a request's input is above ``long_context.above`` tokens, the
  provider bills the *whole* request at higher prices (Gemini 2.5 Pro above 200K,
  Claude Sonnet 4.5 above 200K, GPT-5.4 above 272K); ``long_context`` holds the factors.

The prices are checked against genai-prices (a maintained price source) in the tests.

Adding a model is one line in the right class: :data:`ALL_MODELS` and :data:`MODELS_BY_ID`
are collected from the classes at import time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import partial

__all__ = [
    "ALL_MODELS",
    "MODELS_BY_ID",
    "Anthropic",
    "Cohere",
    "Gemini",
    "LongContextPrice",
    "ModelInfo",
    "ModelType",
    "Ollama",
    "OpenAI",
]


class ModelType(str, Enum):
    """What a model produces; a ``str`` enum so ``ModelType.CHAT == "chat"`` holds."""

    CHAT = "chat"
    EMBEDDING = "embedding"
    IMAGE = "image"
    AUDIO = "audio"
    MULTIMODAL = "multimodal"

    def __str__(self) -> str:
        # Print "chat", not "ModelType.CHAT", in f-strings and logs.
        return self.value


@dataclass(frozen=True, slots=True)
class LongContextPrice:
    """A long-context tier: above ``above`` input tokens the whole request costs more.

    ``prompt_factor`` multiplies every input price (plain, cache read, cache write) and
    ``completion_factor`` the output price.
    """

    above: int
    prompt_factor: float
    completion_factor: float


@dataclass(frozen=True, slots=True, repr=False)
class ModelInfo:
    """Metadata for one model: id, provider, kind, prices (USD per 1M tokens) and limits.

    ``type`` also accepts the plain strings ``"chat"``, ``"embedding"``, ... (as older code
    and the docs write it); they are stored as :class:`ModelType` members.
    """

    id: str
    provider: str
    type: ModelType
    prompt_cost: float
    completion_cost: float
    max_tokens: int
    context_window: int
    # Billing details beyond the documented seven fields; left out of equality so a model
    # written as the docs write it (seven fields) equals the registry's.
    cache_read_cost: float | None = field(default=None, compare=False)
    cache_write_cost: float | None = field(default=None, compare=False)
    long_context: LongContextPrice | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.type, ModelType):
            object.__setattr__(self, "type", ModelType(self.type))

    def __repr__(self) -> str:
        return (
            f"<ModelInfo {self.id} ({self.provider}, {self.type.value}) "
            f"${self.prompt_cost:g}/${self.completion_cost:g} per 1M tokens>"
        )


_CHAT = ModelType.CHAT
_EMBEDDING = ModelType.EMBEDDING
_IMAGE = ModelType.IMAGE
_AUDIO = ModelType.AUDIO
_MULTIMODAL = ModelType.MULTIMODAL


def _read_discounted(
    provider: str,
    type_: ModelType,
    id_: str,
    prompt: float,
    completion: float,
    max_out: int,
    context: int,
    *,
    cached: float | None = None,
    tier: LongContextPrice | None = None,
) -> ModelInfo:
    # OpenAI and Gemini cache prompts themselves and bill no writes: ``cached`` is the
    # cache-read price as a fraction of the input price (Gemini's hourly storage fee for
    # explicit caches is not a per-call price).
    read = None if cached is None else round(prompt * cached, 6)
    return ModelInfo(id_, provider, type_, prompt, completion, max_out, context, read, None, tier)


_openai = partial(_read_discounted, "openai")
_gemini = partial(_read_discounted, "gemini")


def _anthropic(
    type_: ModelType,
    id_: str,
    prompt: float,
    completion: float,
    max_out: int,
    context: int,
    *,
    tier: LongContextPrice | None = None,
) -> ModelInfo:
    # Anthropic prices every chat model's cache alike: reads 0.1x, (5-minute) writes 1.25x input.
    read, write = (None, None)
    if type_ is _CHAT:
        read, write = round(prompt * 0.1, 6), round(prompt * 1.25, 6)
    return ModelInfo(
        id_, "anthropic", type_, prompt, completion, max_out, context, read, write, tier
    )


def _ollama(type_: ModelType, id_: str, context: int) -> ModelInfo:
    # Local models are free; the output limit is the context (Ollama has no separate cap).
    return ModelInfo(id_, "ollama", type_, 0.0, 0.0, context, context)


def _cohere(
    type_: ModelType, id_: str, prompt: float, completion: float, max_out: int, context: int
) -> ModelInfo:
    return ModelInfo(id_, "cohere", type_, prompt, completion, max_out, context)


_1M = 1_048_576  # Google's and OpenAI's "1M" context windows
_2M = 2_097_152

# Long-context tiers (whole-request prices above the threshold).
_ABOVE_200K = LongContextPrice(200_000, 2.0, 1.5)
_ABOVE_272K = LongContextPrice(272_000, 2.0, 1.5)
_ABOVE_128K = LongContextPrice(128_000, 2.0, 2.0)


class OpenAI:
    """OpenAI models (65): GPT-5.x, GPT-4.1, GPT-4o, o-series, audio, image, embeddings."""

    # columns: type, id, prompt $/1M, completion $/1M, max output, context window

    # GPT-5.4 (flagship, 1.05M context)
    GPT_5_4 = _openai(
        _CHAT, "gpt-5.4", 2.50, 15.00, 128_000, 1_050_000, cached=0.1, tier=_ABOVE_272K
    )
    GPT_5_4_PRO = _openai(_CHAT, "gpt-5.4-pro", 30.00, 180.00, 128_000, 1_050_000, tier=_ABOVE_272K)

    # GPT-5.2
    GPT_5_2 = _openai(_CHAT, "gpt-5.2", 1.75, 14.00, 128_000, 400_000, cached=0.1)
    GPT_5_2_PRO = _openai(_CHAT, "gpt-5.2-pro", 21.00, 168.00, 128_000, 400_000)
    GPT_5_2_CHAT_LATEST = _openai(
        _CHAT, "gpt-5.2-chat-latest", 1.75, 14.00, 16_384, 128_000, cached=0.1
    )

    # GPT-5.1
    GPT_5_1 = _openai(_CHAT, "gpt-5.1", 1.25, 10.00, 128_000, 400_000, cached=0.1)
    GPT_5_1_CHAT_LATEST = _openai(
        _CHAT, "gpt-5.1-chat-latest", 1.25, 10.00, 16_384, 128_000, cached=0.1
    )
    GPT_5_1_CODEX = _openai(_CHAT, "gpt-5.1-codex", 1.25, 10.00, 128_000, 400_000, cached=0.1)
    GPT_5_1_CODEX_MINI = _openai(
        _CHAT, "gpt-5.1-codex-mini", 0.25, 2.00, 128_000, 400_000, cached=0.1
    )
    GPT_5_1_CODEX_MAX = _openai(
        _CHAT, "gpt-5.1-codex-max", 1.25, 10.00, 128_000, 400_000, cached=0.1
    )

    # GPT-5
    GPT_5 = _openai(_CHAT, "gpt-5", 1.25, 10.00, 128_000, 400_000, cached=0.1)
    GPT_5_MINI = _openai(_CHAT, "gpt-5-mini", 0.25, 2.00, 128_000, 400_000, cached=0.1)
    GPT_5_NANO = _openai(_CHAT, "gpt-5-nano", 0.05, 0.40, 128_000, 400_000, cached=0.1)
    GPT_5_PRO = _openai(_CHAT, "gpt-5-pro", 15.00, 120.00, 272_000, 400_000)
    GPT_5_CHAT_LATEST = _openai(
        _CHAT, "gpt-5-chat-latest", 1.25, 10.00, 16_384, 128_000, cached=0.1
    )
    GPT_5_CODEX = _openai(_CHAT, "gpt-5-codex", 1.25, 10.00, 128_000, 400_000, cached=0.1)
    CODEX_MINI_LATEST = _openai(
        _CHAT, "codex-mini-latest", 1.50, 6.00, 100_000, 200_000, cached=0.25
    )

    # GPT-4.1 (1M context)
    GPT_4_1 = _openai(_CHAT, "gpt-4.1", 2.00, 8.00, 32_768, 1_047_576, cached=0.25)
    GPT_4_1_MINI = _openai(_CHAT, "gpt-4.1-mini", 0.40, 1.60, 32_768, 1_047_576, cached=0.25)
    GPT_4_1_NANO = _openai(_CHAT, "gpt-4.1-nano", 0.10, 0.40, 32_768, 1_047_576, cached=0.25)

    # GPT-4o
    GPT_4O = _openai(_CHAT, "gpt-4o", 2.50, 10.00, 16_384, 128_000, cached=0.5)
    GPT_4O_2024_11_20 = _openai(
        _CHAT, "gpt-4o-2024-11-20", 2.50, 10.00, 16_384, 128_000, cached=0.5
    )
    GPT_4O_2024_08_06 = _openai(
        _CHAT, "gpt-4o-2024-08-06", 2.50, 10.00, 16_384, 128_000, cached=0.5
    )
    GPT_4O_2024_05_13 = _openai(_CHAT, "gpt-4o-2024-05-13", 5.00, 15.00, 4_096, 128_000)
    CHATGPT_4O_LATEST = _openai(_CHAT, "chatgpt-4o-latest", 5.00, 15.00, 16_384, 128_000)
    GPT_4O_MINI = _openai(_CHAT, "gpt-4o-mini", 0.15, 0.60, 16_384, 128_000, cached=0.5)
    GPT_4O_MINI_2024_07_18 = _openai(
        _CHAT, "gpt-4o-mini-2024-07-18", 0.15, 0.60, 16_384, 128_000, cached=0.5
    )
    GPT_4O_SEARCH_PREVIEW = _openai(_CHAT, "gpt-4o-search-preview", 2.50, 10.00, 16_384, 128_000)
    GPT_4O_MINI_SEARCH_PREVIEW = _openai(
        _CHAT, "gpt-4o-mini-search-preview", 0.15, 0.60, 16_384, 128_000, cached=0.5
    )

    # o-series (reasoning)
    O1 = _openai(_CHAT, "o1", 15.00, 60.00, 100_000, 200_000, cached=0.5)
    O1_2024_12_17 = _openai(_CHAT, "o1-2024-12-17", 15.00, 60.00, 100_000, 200_000, cached=0.5)
    O1_PRO = _openai(_CHAT, "o1-pro", 150.00, 600.00, 100_000, 200_000)
    O1_MINI = _openai(_CHAT, "o1-mini", 1.10, 4.40, 65_536, 128_000, cached=0.5)
    O3_PRO = _openai(_CHAT, "o3-pro", 20.00, 80.00, 100_000, 200_000)
    O3 = _openai(_CHAT, "o3", 2.00, 8.00, 100_000, 200_000, cached=0.25)
    O3_MINI = _openai(_CHAT, "o3-mini", 1.10, 4.40, 100_000, 200_000, cached=0.5)
    O3_DEEP_RESEARCH = _openai(
        _CHAT, "o3-deep-research", 10.00, 40.00, 100_000, 200_000, cached=0.25
    )
    O4_MINI = _openai(_CHAT, "o4-mini", 1.10, 4.40, 100_000, 200_000, cached=0.25)
    O4_MINI_DEEP_RESEARCH = _openai(
        _CHAT, "o4-mini-deep-research", 2.00, 8.00, 100_000, 200_000, cached=0.25
    )

    # Realtime and audio (text-token prices)
    GPT_REALTIME = _openai(_AUDIO, "gpt-realtime", 4.00, 16.00, 4_096, 32_000)
    GPT_REALTIME_MINI = _openai(_AUDIO, "gpt-realtime-mini", 0.60, 2.40, 4_096, 32_000)
    GPT_4O_REALTIME_PREVIEW = _openai(
        _AUDIO, "gpt-4o-realtime-preview", 5.00, 20.00, 4_096, 128_000
    )
    GPT_4O_MINI_REALTIME_PREVIEW = _openai(
        _AUDIO, "gpt-4o-mini-realtime-preview", 0.60, 2.40, 4_096, 128_000
    )
    GPT_AUDIO = _openai(_AUDIO, "gpt-audio", 2.50, 10.00, 16_384, 128_000)
    GPT_AUDIO_MINI = _openai(_AUDIO, "gpt-audio-mini", 0.60, 2.40, 16_384, 128_000)
    GPT_4O_AUDIO_PREVIEW = _openai(_AUDIO, "gpt-4o-audio-preview", 2.50, 10.00, 16_384, 128_000)
    GPT_4O_MINI_AUDIO_PREVIEW = _openai(
        _AUDIO, "gpt-4o-mini-audio-preview", 0.15, 0.60, 16_384, 128_000
    )
    GPT_4O_TRANSCRIBE = _openai(_AUDIO, "gpt-4o-transcribe", 2.50, 10.00, 2_000, 16_000)
    GPT_4O_MINI_TRANSCRIBE = _openai(_AUDIO, "gpt-4o-mini-transcribe", 1.25, 5.00, 2_000, 16_000)
    GPT_4O_MINI_TTS = _openai(_AUDIO, "gpt-4o-mini-tts", 0.60, 12.00, 2_000, 2_000)
    WHISPER_1 = _openai(_AUDIO, "whisper-1", 0.0, 0.0, 0, 0)  # billed per minute of audio
    TTS_1 = _openai(_AUDIO, "tts-1", 15.00, 0.0, 4_096, 4_096)  # per 1M input characters
    TTS_1_HD = _openai(_AUDIO, "tts-1-hd", 30.00, 0.0, 4_096, 4_096)  # per 1M input characters

    # GPT-4 Turbo and GPT-4 (legacy)
    GPT_4_TURBO = _openai(_CHAT, "gpt-4-turbo", 10.00, 30.00, 4_096, 128_000)
    GPT_4_TURBO_2024_04_09 = _openai(_CHAT, "gpt-4-turbo-2024-04-09", 10.00, 30.00, 4_096, 128_000)
    GPT_4_1106_VISION_PREVIEW = _openai(
        _MULTIMODAL, "gpt-4-1106-vision-preview", 10.00, 30.00, 4_096, 128_000
    )
    GPT_4 = _openai(_CHAT, "gpt-4", 30.00, 60.00, 8_192, 8_192)

    # GPT-3.5 Turbo (legacy)
    GPT_3_5_TURBO = _openai(_CHAT, "gpt-3.5-turbo", 0.50, 1.50, 4_096, 16_385)
    GPT_3_5_TURBO_0125 = _openai(_CHAT, "gpt-3.5-turbo-0125", 0.50, 1.50, 4_096, 16_385)
    GPT_3_5_TURBO_INSTRUCT = _openai(_CHAT, "gpt-3.5-turbo-instruct", 1.50, 2.00, 4_096, 4_096)

    # Images (gpt-image-1: text input / image output tokens; DALL·E is billed per image)
    GPT_IMAGE_1 = _openai(_IMAGE, "gpt-image-1", 5.00, 40.00, 4_096, 32_000)
    DALL_E_3 = _openai(_IMAGE, "dall-e-3", 0.0, 0.0, 0, 4_000)

    class Embeddings:
        """OpenAI embedding models (input tokens only)."""

        TEXT_EMBEDDING_3_SMALL = _openai(
            _EMBEDDING, "text-embedding-3-small", 0.02, 0.0, 8191, 8191
        )
        TEXT_EMBEDDING_3_LARGE = _openai(
            _EMBEDDING, "text-embedding-3-large", 0.13, 0.0, 8191, 8191
        )
        ADA_002 = _openai(_EMBEDDING, "text-embedding-ada-002", 0.10, 0.0, 8191, 8191)


class Anthropic:
    """Anthropic Claude models (11) plus Voyage AI embeddings (2), Anthropic's recommended pairing."""

    # Claude 4.6
    OPUS_4_6 = _anthropic(_CHAT, "claude-opus-4-6", 5.00, 25.00, 128_000, 200_000)
    SONNET_4_6 = _anthropic(_CHAT, "claude-sonnet-4-6", 3.00, 15.00, 64_000, 200_000)

    # Claude 4.5
    OPUS_4_5 = _anthropic(_CHAT, "claude-opus-4-5-20251101", 5.00, 25.00, 64_000, 200_000)
    SONNET_4_5 = _anthropic(
        _CHAT, "claude-sonnet-4-5-20250929", 3.00, 15.00, 64_000, 200_000, tier=_ABOVE_200K
    )
    HAIKU_4_5 = _anthropic(_CHAT, "claude-haiku-4-5-20251001", 1.00, 5.00, 64_000, 200_000)

    # Claude 4.1 and 4
    OPUS_4_1 = _anthropic(_CHAT, "claude-opus-4-1-20250805", 15.00, 75.00, 32_000, 200_000)
    OPUS_4 = _anthropic(_CHAT, "claude-opus-4-20250514", 15.00, 75.00, 32_000, 200_000)
    SONNET_4 = _anthropic(_CHAT, "claude-sonnet-4-20250514", 3.00, 15.00, 64_000, 200_000)

    # Claude 3.7 and 3.5
    SONNET_3_7 = _anthropic(_CHAT, "claude-3-7-sonnet-20250219", 3.00, 15.00, 64_000, 200_000)
    SONNET_3_5_20241022 = _anthropic(
        _CHAT, "claude-3-5-sonnet-20241022", 3.00, 15.00, 8_192, 200_000
    )
    HAIKU_3_5_20241022 = _anthropic(_CHAT, "claude-3-5-haiku-20241022", 0.80, 4.00, 8_192, 200_000)

    class Embeddings:
        """Voyage AI embedding models (Anthropic has no embeddings API of its own)."""

        VOYAGE_3 = _anthropic(_EMBEDDING, "voyage-3", 0.06, 0.0, 32_000, 32_000)
        VOYAGE_3_LITE = _anthropic(_EMBEDDING, "voyage-3-lite", 0.02, 0.0, 32_000, 32_000)


class Gemini:
    """Google Gemini models (19) and embeddings (2, free)."""

    # Gemini 3.1
    PRO_3_1 = _gemini(
        _CHAT, "gemini-3.1-pro-preview", 2.00, 12.00, 65_536, _1M, cached=0.1, tier=_ABOVE_200K
    )
    FLASH_LITE_3_1 = _gemini(
        _CHAT, "gemini-3.1-flash-lite-preview", 0.25, 1.50, 65_536, _1M, cached=0.1
    )

    # Gemini 3
    PRO_3 = _gemini(
        _CHAT, "gemini-3-pro-preview", 2.00, 12.00, 65_536, _2M, cached=0.1, tier=_ABOVE_200K
    )
    FLASH_3_PREVIEW = _gemini(_CHAT, "gemini-3-flash-preview", 0.50, 3.00, 65_536, _1M, cached=0.1)
    PRO_3_IMAGE_PREVIEW = _gemini(
        _IMAGE, "gemini-3-pro-image-preview", 2.00, 120.00, 32_768, 65_536
    )

    # Gemini 2.5
    PRO_2_5 = _gemini(
        _CHAT, "gemini-2.5-pro", 1.25, 10.00, 65_536, _1M, cached=0.1, tier=_ABOVE_200K
    )
    FLASH_2_5 = _gemini(_CHAT, "gemini-2.5-flash", 0.30, 2.50, 65_536, _1M, cached=0.1)
    FLASH_LITE_2_5 = _gemini(_CHAT, "gemini-2.5-flash-lite", 0.10, 0.40, 65_536, _1M, cached=0.1)
    FLASH_IMAGE_2_5 = _gemini(_IMAGE, "gemini-2.5-flash-image", 0.30, 30.00, 32_768, 32_768)
    FLASH_TTS_2_5 = _gemini(_AUDIO, "gemini-2.5-flash-preview-tts", 0.50, 10.00, 16_384, 24_576)
    PRO_TTS_2_5 = _gemini(_AUDIO, "gemini-2.5-pro-preview-tts", 1.00, 20.00, 16_384, 24_576)

    # Rolling aliases (currently the 2.5 Flash family)
    FLASH_LATEST = _gemini(_CHAT, "gemini-flash-latest", 0.30, 2.50, 65_536, _1M, cached=0.1)
    FLASH_LITE_LATEST = _gemini(
        _CHAT, "gemini-flash-lite-latest", 0.10, 0.40, 65_536, _1M, cached=0.1
    )

    # Gemini 2.0
    FLASH_2_0 = _gemini(_CHAT, "gemini-2.0-flash", 0.10, 0.40, 8_192, _1M, cached=0.25)
    FLASH_LITE_2_0 = _gemini(_CHAT, "gemini-2.0-flash-lite", 0.075, 0.30, 8_192, _1M)

    # Gemini 1.5 (legacy; prices for prompts up to 128K tokens)
    PRO_1_5 = _gemini(_CHAT, "gemini-1.5-pro", 1.25, 5.00, 8_192, _2M, tier=_ABOVE_128K)
    FLASH_1_5 = _gemini(
        _CHAT, "gemini-1.5-flash", 0.075, 0.30, 8_192, _1M, cached=0.25, tier=_ABOVE_128K
    )
    FLASH_8B_1_5 = _gemini(_CHAT, "gemini-1.5-flash-8b", 0.0375, 0.15, 8_192, _1M)

    # Gemma (open weights, free on the Gemini API)
    GEMMA_3_27B = _gemini(_CHAT, "gemma-3-27b-it", 0.0, 0.0, 8_192, 131_072)

    class Embeddings:
        """Gemini embedding models (free)."""

        EMBEDDING_004 = _gemini(_EMBEDDING, "text-embedding-004", 0.0, 0.0, 2_048, 2_048)
        EMBEDDING_001 = _gemini(_EMBEDDING, "embedding-001", 0.0, 0.0, 2_048, 2_048)


class Ollama:
    """Models run locally by Ollama (13); all free. Ids are Ollama library names."""

    LLAMA_3_3 = _ollama(_CHAT, "llama3.3", 131_072)
    LLAMA_3_2 = _ollama(_CHAT, "llama3.2", 131_072)
    LLAMA_3_1 = _ollama(_CHAT, "llama3.1", 131_072)
    MISTRAL = _ollama(_CHAT, "mistral", 32_768)
    MIXTRAL = _ollama(_CHAT, "mixtral", 32_768)
    CODELLAMA = _ollama(_CHAT, "codellama", 16_384)
    PHI = _ollama(_CHAT, "phi", 2_048)
    PHI_3 = _ollama(_CHAT, "phi3", 131_072)
    QWEN_2_5 = _ollama(_CHAT, "qwen2.5", 32_768)
    GEMMA_2 = _ollama(_CHAT, "gemma2", 8_192)
    DEEPSEEK_R1 = _ollama(_CHAT, "deepseek-r1", 131_072)
    LLAVA = _ollama(_MULTIMODAL, "llava", 32_768)

    class Embeddings:
        """Local embedding models."""

        NOMIC_EMBED_TEXT = _ollama(_EMBEDDING, "nomic-embed-text", 8_192)


class Cohere:
    """Cohere embedding models (3)."""

    class Embeddings:
        """Cohere Embed v3 models."""

        EMBED_V3 = _cohere(_EMBEDDING, "embed-english-v3.0", 0.10, 0.0, 512, 512)
        EMBED_MULTILINGUAL_V3 = _cohere(_EMBEDDING, "embed-multilingual-v3.0", 0.10, 0.0, 512, 512)
        EMBED_V3_LIGHT = _cohere(_EMBEDDING, "embed-english-light-v3.0", 0.10, 0.0, 512, 512)


_PROVIDER_CLASSES: tuple[type, ...] = (OpenAI, Anthropic, Gemini, Ollama, Cohere)


def _models_in(cls: type) -> list[ModelInfo]:
    """The ModelInfo attributes of ``cls`` (then of its nested classes), in definition order."""
    found: list[ModelInfo] = []
    nested: list[type] = []
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, ModelInfo):
            found.append(value)
        elif isinstance(value, type):
            nested.append(value)
    for inner in nested:
        found.extend(_models_in(inner))
    return found


def _collect_all_models() -> list[ModelInfo]:
    """Every model of every provider class, providers in a fixed order, definitions in order.

    Walking the classes (instead of keeping a second list by hand) means a new constant is
    registered the moment it is written.
    """
    models: list[ModelInfo] = []
    for provider_class in _PROVIDER_CLASSES:
        models.extend(_models_in(provider_class))
    return models


ALL_MODELS: list[ModelInfo] = _collect_all_models()
"""Every model in the registry, with its provider, type, prices and context window."""
MODELS_BY_ID: dict[str, ModelInfo] = {model.id: model for model in ALL_MODELS}
"""The registry's models by model id."""
