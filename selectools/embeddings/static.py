"""``StaticEmbeddingProvider``: the fast offline tier (WordLlama's 256-d static token vectors).

A static model is a table of one vector per token: a text's vector is the mean
of its tokens' rows, so embedding costs a tokenizer pass and a table lookup,
hundreds of times faster than a transformer such as
:class:`~selectools.embeddings.E5EmbeddingProvider`, for somewhat lower
retrieval quality (``benchmarks/bench_ingest.py`` measures both on one set).

Why WordLlama: its table (``l2_supercat``, 32,000 x 256, 16 MB) ships inside
the ``wordllama`` wheel, so it works with no network; the package is MIT
licensed. Model2Vec's models are as fast but are fetched from a model hub at
run time, which cannot work offline. The table is distilled from the token
embeddings of Llama-2-tokenizer models; users who redistribute it should read
those models' terms as well.

We read the two shipped files (safetensors weights, tokenizer JSON) ourselves
rather than calling ``WordLlama.load()``: that loader looks for the tokenizer
in a folder the wheel does not have and then tries to download it, and
importing ``wordllama`` configures the root logger. The package is never
imported here; only its files are located. Install the ``rag-fast`` extra.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._install import install_hint
from .provider import EmbeddingUsage, batches, check_text, check_texts

__all__ = ["StaticEmbeddingProvider"]

_WEIGHTS = "weights/l2_supercat_256.safetensors"
_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"


def _package_dir() -> Path:
    from ..rag.errors import MissingDependencyError

    spec = importlib.util.find_spec("wordllama")
    locations = list(spec.submodule_search_locations or []) if spec else []
    if not locations:
        raise MissingDependencyError(
            "StaticEmbeddingProvider needs the 'wordllama' package, which is not installed. "
            f"Install it with: {install_hint('rag-fast')}"
        )
    return Path(locations[0])


class StaticEmbeddingProvider(EmbeddingUsage):
    """Offline static embeddings (WordLlama l2_supercat, 256-dimensional, unit length)."""

    name = "wordllama"

    def __init__(self, *, batch_size: int = 256) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        from ..rag.errors import MissingDependencyError, require_extra

        require_extra("numpy", "rag-fast", "StaticEmbeddingProvider")
        safetensors_numpy = require_extra(
            "safetensors.numpy", "rag-fast", "StaticEmbeddingProvider"
        )
        tokenizers = require_extra("tokenizers", "rag-fast", "StaticEmbeddingProvider")
        import numpy

        root = _package_dir()
        weights, tokenizer = root / _WEIGHTS, root / _TOKENIZER
        for path in (weights, tokenizer):
            if not path.is_file():
                raise MissingDependencyError(
                    f"StaticEmbeddingProvider: {path} is missing from the installed 'wordllama' "
                    "package; reinstall it with: pip install --force-reinstall wordllama"
                )
        table = safetensors_numpy.load_file(str(weights))["embedding.weight"]
        self._table: Any = numpy.ascontiguousarray(table, dtype=numpy.float32)
        self._tokenizer: Any = tokenizers.Tokenizer.from_file(str(tokenizer))
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self.model = "wordllama-l2-supercat-256"
        self.dimension = int(self._table.shape[1])
        self.batch_size = batch_size
        self._init_usage()

    def embed_query(self, text: str) -> list[float]:
        text = check_text(text)
        return [float(x) for x in self._embed([text])[0]]

    def embed_texts(self, texts: Sequence[str]) -> list[list[float]]:
        items = check_texts(texts, "embed_texts")
        return [row.tolist() for row in self.embed_array(items)]

    def embed_array(self, texts: Sequence[str]) -> Any:
        """The texts' vectors as one float32 numpy array (rows in order), for bulk ingestion."""
        import numpy

        items = check_texts(texts, "embed_array")
        if not items:
            return numpy.zeros((0, self.dimension), dtype=numpy.float32)
        return numpy.concatenate([self._embed(batch) for batch in batches(items, self.batch_size)])

    def _embed(self, texts: list[str]) -> Any:
        """Mean of each text's token rows, normalised; a text with no tokens gets a zero vector.

        One gather-and-sum per text: measured 25x less CPU than one ``add.reduceat``
        over the batch's gathered rows (numpy's slow path along axis 0).
        """
        import numpy

        encoded = self._tokenizer.encode_batch(texts, add_special_tokens=False)
        out = numpy.zeros((len(texts), self.dimension), dtype=numpy.float32)
        last = self._table.shape[0] - 1
        tokens = 0
        for row, encoding in enumerate(encoded):
            ids = numpy.asarray(encoding.ids, dtype=numpy.int64)
            if ids.size:
                numpy.clip(ids, 0, last, out=ids)
                out[row] = self._table[ids].sum(axis=0)
                tokens += int(ids.size)
        self._record(tokens)
        norms = numpy.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms

    def __repr__(self) -> str:
        return f"StaticEmbeddingProvider(model={self.model!r}, dimension={self.dimension})"
