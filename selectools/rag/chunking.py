"""Chunkers: ``TextSplitter`` (one separator) and ``RecursiveTextSplitter`` (a ladder of them).

``chunk_size`` and ``chunk_overlap`` count characters. Pieces are merged up to
``chunk_size``; the next chunk starts with the last pieces of the previous one
that fit in ``chunk_overlap``, so context carries across a boundary. A piece
longer than ``chunk_size`` with no separator left is cut by characters.
``split_documents`` keeps each document's metadata and adds ``chunk`` (index)
and ``total_chunks``. ``SemanticChunker`` splits at topic changes instead
(neighbouring sentences whose embeddings stop being similar).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..stability import stable
from .document import Document

__all__ = ["RecursiveTextSplitter", "SemanticChunker", "TextSplitter"]


class _Splitter:
    def __init__(self, chunk_size: int, chunk_overlap: int) -> None:
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
        if not 0 <= chunk_overlap < chunk_size:
            raise ValueError(
                f"chunk_overlap must be >= 0 and smaller than chunk_size ({chunk_size}), got {chunk_overlap}"
            )
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap

    def split_text(self, text: str) -> list[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def split_documents(self, documents: Sequence[Document]) -> list[Document]:
        """Every document's chunks, each with the document's metadata plus ``chunk``/``total_chunks``."""
        out: list[Document] = []
        for doc in documents:
            pieces = self.split_text(doc.text)
            for index, piece in enumerate(pieces):
                meta = dict(doc.metadata)
                meta["chunk"] = index
                meta["total_chunks"] = len(pieces)
                out.append(Document(text=piece, metadata=meta))
        return out

    def _cut(self, text: str) -> list[str]:
        step = self.chunk_size - self.chunk_overlap
        return [text[start : start + self.chunk_size] for start in range(0, len(text), step)]

    def _merge(self, pieces: list[str], separator: str) -> list[str]:
        chunks: list[str] = []
        current: list[str] = []
        length = 0
        sep = len(separator)
        for piece in pieces:
            added = len(piece) + (sep if current else 0)
            if current and length + added > self.chunk_size:
                chunks.append(separator.join(current))
                while current and (
                    length > self.chunk_overlap or length + len(piece) + sep > self.chunk_size
                ):
                    length -= len(current[0]) + (sep if len(current) > 1 else 0)
                    current.pop(0)
                added = len(piece) + (sep if current else 0)
            current.append(piece)
            length += added
        if current:
            chunks.append(separator.join(current))
        return [c for c in chunks if c.strip()]


@stable
class TextSplitter(_Splitter):
    """Split on ``separator`` (paragraphs by default), merging pieces up to ``chunk_size`` characters."""

    def __init__(
        self, chunk_size: int = 1000, chunk_overlap: int = 200, separator: str = "\n\n"
    ) -> None:
        super().__init__(chunk_size, chunk_overlap)
        self.separator = separator

    def split_text(self, text: str) -> list[str]:
        if not text.strip():
            return []
        raw = text.split(self.separator) if self.separator else [text]
        pieces: list[str] = []
        for piece in raw:
            if not piece.strip():
                continue
            pieces.extend(self._cut(piece) if len(piece) > self.chunk_size else [piece])
        return self._merge(pieces, self.separator)


class RecursiveTextSplitter(_Splitter):
    """Try ``separators`` in order (paragraph, line, sentence, word, character) until pieces fit."""

    def __init__(
        self,
        chunk_size: int = 1000,
        chunk_overlap: int = 200,
        separators: Sequence[str] = ("\n\n", "\n", ". ", " ", ""),
    ) -> None:
        super().__init__(chunk_size, chunk_overlap)
        self.separators = list(separators)

    def split_text(self, text: str) -> list[str]:
        if not text.strip():
            return []
        return self._split(text, self.separators)

    def _split(self, text: str, separators: list[str]) -> list[str]:
        if len(text) <= self.chunk_size:
            return [text]
        for level, separator in enumerate(separators):
            if separator == "":
                return self._cut(text)
            if separator not in text:
                continue
            pieces: list[str] = []
            for piece in text.split(separator):
                if not piece.strip():
                    continue
                if len(piece) > self.chunk_size:
                    pieces.extend(self._split(piece, separators[level + 1 :]))
                else:
                    pieces.append(piece)
            return self._merge(pieces, separator)
        return self._cut(text)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n{2,}")


class SemanticChunker(_Splitter):
    """Split where the topic changes: sentences are embedded and a chunk ends where
    the similarity of neighbouring sentences drops below ``similarity_threshold``.

    A chunk also ends before it would exceed ``chunk_size`` characters (a single
    longer sentence is cut by characters). Use it with a real embedder (e.g.
    :class:`~selectools.embeddings.E5EmbeddingProvider`); ``split_documents``
    carries metadata like the other splitters.
    """

    def __init__(
        self, embedder: Any, similarity_threshold: float = 0.8, chunk_size: int = 1000
    ) -> None:
        super().__init__(chunk_size, 0)
        if not -1.0 <= similarity_threshold <= 1.0:
            raise ValueError(
                f"similarity_threshold must be between -1 and 1, got {similarity_threshold}"
            )
        self.embedder = embedder
        self.similarity_threshold = similarity_threshold

    def split_text(self, text: str) -> list[str]:
        import numpy

        sentences: list[str] = []
        for piece in _SENTENCE_END.split(text):
            piece = piece.strip()
            if piece:
                sentences.extend(self._cut(piece) if len(piece) > self.chunk_size else [piece])
        if len(sentences) <= 1:
            return sentences
        vectors = numpy.asarray(self.embedder.embed_texts(sentences), dtype=numpy.float32)
        norms = numpy.linalg.norm(vectors, axis=1, keepdims=True)
        unit = vectors / numpy.where(norms == 0, 1.0, norms)
        similar = (unit[:-1] * unit[1:]).sum(axis=1)
        chunks: list[str] = []
        current = [sentences[0]]
        for sentence, score in zip(sentences[1:], similar.tolist(), strict=True):
            size = sum(len(s) + 1 for s in current) + len(sentence)
            if score < self.similarity_threshold or size > self.chunk_size:
                chunks.append(" ".join(current))
                current = [sentence]
            else:
                current.append(sentence)
        chunks.append(" ".join(current))
        return chunks
