"""``rag_chatbot``: searches a knowledge base before answering, and cites what it used.

The knowledge base is ``documents=`` (a list of texts, or a mapping of source
name to text) or ``docs_dir=`` (the ``.md``/``.txt`` files in a folder). Search
is a small keyword (BM25-style) ranking over paragraphs, so the template runs
offline with no extra packages; swap in a vector store retriever for large
corpora by adding your own search tool.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

from ..tools import tool
from ._build import build_template

SYSTEM_PROMPT = """You answer questions from the knowledge base only.
Always call search_knowledge_base before answering. Quote the source of every
fact in [brackets]. If the knowledge base does not contain the answer, say so
instead of guessing."""

_TOKEN = re.compile(r"[a-z0-9]+")


def _passages(documents: dict[str, str]) -> list[tuple[str, str]]:
    out = []
    for source, text in documents.items():
        for part in re.split(r"\n\s*\n", text):
            if part.strip():
                out.append((source, part.strip()))
    return out


def _rank(passages: list[tuple[str, str]], query: str, k: int) -> list[tuple[str, str]]:
    docs = [Counter(_TOKEN.findall(text.lower())) for _, text in passages]
    if not docs:
        return []
    avg = sum(sum(d.values()) for d in docs) / len(docs)
    scores = []
    for i, doc in enumerate(docs):
        length = sum(doc.values())
        score = 0.0
        for term in set(_TOKEN.findall(query.lower())):
            df = sum(1 for d in docs if term in d)
            if not df or term not in doc:
                continue
            idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
            tf = doc[term]
            score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / (avg or 1)))
        scores.append((score, i))
    scores.sort(reverse=True)
    return [passages[i] for score, i in scores[:k] if score > 0]


def build(
    provider: Any,
    *,
    documents: list[str] | dict[str, str] | None = None,
    docs_dir: str | None = None,
    top_k: int = 3,
    **overrides: Any,
) -> Any:
    corpus: dict[str, str] = {}
    if isinstance(documents, dict):
        corpus.update(documents)
    elif documents:
        corpus.update({f"doc{i + 1}": text for i, text in enumerate(documents)})
    if docs_dir is not None:
        for path in sorted(Path(docs_dir).glob("*")):
            if path.suffix in {".md", ".txt"} and path.is_file():
                corpus[path.name] = path.read_text(encoding="utf-8")
    passages = _passages(corpus)

    @tool
    def search_knowledge_base(query: str) -> str:
        """Search the knowledge base; returns the most relevant passages with their source."""
        hits = _rank(passages, query, top_k)
        if not hits:
            return f"Nothing in the knowledge base matches {query!r}"
        return "\n\n".join(f"[{source}] {text}" for source, text in hits)

    return build_template(
        "rag_chatbot",
        provider,
        [search_knowledge_base],
        SYSTEM_PROMPT,
        overrides,
        max_iterations=5,
    )
