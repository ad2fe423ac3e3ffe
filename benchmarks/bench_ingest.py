"""Offline ingestion: the fast tier (WordLlama static vectors) and the E5 tier, speed and quality.

Budgets (issue 25), checked in the same run:

1. The fast tier (``StaticEmbeddingProvider``) ingests 10 MB with
   :func:`selectools.rag.ingest` (load -> chunk -> embed -> store, model load
   included) in <= 3 minutes on this 2-core machine.
2. Its recall@5 on the labelled set of ``benchmarks/retrieval_set.py`` (questions
   about selectools' own docs, each answered by one known section) is within
   10 points of E5's, measured on the same chunks; both with vector search alone
   and fused with BM25 (``HybridSearcher``, offline and as fast).
3. The E5 tier's pipeline runs at the model's own limit: ``ingest`` chunks/s
   against the model alone (``embed_array`` on the same, pre-chunked texts).
   E5 runs on a sample (``--e5-megabytes``), as its 10 MB would take about
   40 minutes; the projection for 10 MB is printed.

The corpus is the Python standard library's own ``.py`` files (source, comments
and docstrings: text that ships with every Python), copied in sorted order into
a temporary folder until it holds ``--megabytes`` (10 MB = 10,000,000 bytes),
chunked by ``RecursiveTextSplitter(1000, 200)``. Run:
``python benchmarks/bench_ingest.py [--megabytes 10] [--e5-megabytes 0.1] [--skip-e5]``.
"""

from __future__ import annotations

import argparse
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

from retrieval_set import QUESTIONS, corpus, ranked_sections, score

from selectools.embeddings import E5EmbeddingProvider, StaticEmbeddingProvider
from selectools.rag import (
    DocumentLoader,
    HybridSearcher,
    RecursiveTextSplitter,
    TextSplitter,
    ingest,
)
from selectools.rag.stores import InMemoryVectorStore

FAST_BUDGET_S = 180.0
RECALL_BUDGET_POINTS = 10.0
PIPELINE_TARGET = 0.9  # E5 ingest chunks/s >= 0.9x the model alone


def write_corpus(root: Path, megabytes: float) -> tuple[int, int]:
    """Copy stdlib sources into ``root`` until it holds ``megabytes``; (bytes, files)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    target, written, files = int(megabytes * 1_000_000), 0, 0
    for path in sorted(stdlib.rglob("*.py")):
        if "site-packages" in path.parts or "test" in path.parts:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        text = text[: target - written]
        (root / f"{files:05d}_{path.stem}.txt").write_text(text, encoding="utf-8")
        written += len(text.encode("utf-8"))
        files += 1
        if written >= target:
            return written, files
    raise SystemExit(f"the standard library holds less than {megabytes} MB of sources")


def splitter() -> RecursiveTextSplitter:
    return RecursiveTextSplitter(chunk_size=1000, chunk_overlap=200)


def pipeline(root: Path, make_embedder: Any) -> tuple[float, int]:
    """(seconds, chunks) for ``ingest`` into a fresh in-memory store, model load included."""
    started = time.perf_counter()
    store = InMemoryVectorStore(embedder=make_embedder())
    report = ingest(root, store, splitter=splitter(), progress=True)
    return time.perf_counter() - started, report.chunks


def model_only(root: Path, embedder: Any) -> tuple[float, int]:
    """(seconds, chunks) for the embedder alone on the same chunks, loaded and split beforehand."""
    texts = [c.text for c in splitter().split_documents(DocumentLoader.from_directory(root))]
    started = time.perf_counter()
    embedder.embed_array(texts)
    return time.perf_counter() - started, len(texts)


def quality(embedder: Any) -> dict[str, tuple[float, float]]:
    """(recall@5, MRR) of vector search alone, and fused with BM25 (``HybridSearcher``, RRF)."""
    store = InMemoryVectorStore(embedder=embedder)
    store.add_documents(TextSplitter(1000, 200).split_documents(corpus()), progress=False)
    hybrid = HybridSearcher(vector_store=store)
    hybrid.index_existing_documents()
    return {
        "vector": score(ranked_sections(store, QUESTIONS), QUESTIONS),
        "hybrid": score(ranked_sections(hybrid, QUESTIONS), QUESTIONS),
    }


def show(scores: dict[str, tuple[float, float]]) -> str:
    (r, m), (hr, hm) = scores["vector"], scores["hybrid"]
    return (
        f"recall@5 {r:.3f}, MRR {m:.3f}; with BM25 (HybridSearcher) recall@5 {hr:.3f}, MRR {hm:.3f}"
    )


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=10.0)
    parser.add_argument("--e5-megabytes", type=float, default=0.1)
    parser.add_argument("--skip-e5", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        size, files = write_corpus(root, args.megabytes)
        print(f"corpus: {size / 1e6:.1f} MB of Python stdlib sources in {files} files")
        fast = StaticEmbeddingProvider()
        fast_model_s, chunks = model_only(root, fast)
        fast_s, fast_chunks = pipeline(root, StaticEmbeddingProvider)
    assert fast_chunks == chunks
    fast_q = quality(fast)
    print(
        f"\nfast tier ({fast.model}, {fast.dimension}-d), {chunks:,} chunks of <= 1000 characters"
    )
    print(
        f"  ingest {fast_s:.1f} s ({chunks / fast_s:,.0f} chunks/s); model alone "
        f"{chunks / fast_model_s:,.0f} chunks/s; pipeline/model {fast_model_s / fast_s:.2f}"
    )
    print(
        f"  {size / 1e6:.0f} MB in {fast_s:.0f} s on {_cores()} cores "
        f"(budget <= {FAST_BUDGET_S:.0f} s: {verdict(fast_s <= FAST_BUDGET_S)})"
    )
    print(f"  retrieval set ({len(QUESTIONS)} questions): {show(fast_q)}")
    if args.skip_e5:
        return

    e5 = E5EmbeddingProvider()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        e5_size, _ = write_corpus(root, args.e5_megabytes)
        e5_model_s, e5_chunks = model_only(root, e5)
        e5_s, _ = pipeline(root, E5EmbeddingProvider)
    e5_q = quality(e5)
    ratio = e5_model_s / e5_s
    per_chunk = e5_s / e5_chunks
    print(
        f"\nE5 tier ({e5.model}, {e5.dimension}-d), sample of {e5_size / 1e6:.2f} MB = {e5_chunks:,} chunks"
    )
    print(
        f"  ingest {e5_chunks / e5_s:.1f} chunks/s; model alone {e5_chunks / e5_model_s:.1f} chunks/s; "
        f"pipeline/model {ratio:.2f} (target >= {PIPELINE_TARGET}: {verdict(ratio >= PIPELINE_TARGET)})"
    )
    print(
        f"  projected for {size / 1e6:.0f} MB ({chunks:,} chunks): {chunks * per_chunk / 60:.0f} min"
    )
    print(f"  retrieval set: {show(e5_q)}")
    print(f"\nfast vs E5: {fast_s / (chunks * per_chunk):.3f}x the E5 time for {size / 1e6:.0f} MB")
    for mode in ("vector", "hybrid"):
        gap = 100 * (e5_q["vector"][0] - fast_q[mode][0])
        print(
            f"  fast {mode} search: recall@5 {gap:+.1f} points behind E5 vector search "
            f"(budget <= {RECALL_BUDGET_POINTS:.0f}: {verdict(gap <= RECALL_BUDGET_POINTS)}), "
            f"MRR {fast_q[mode][1] / e5_q['vector'][1]:.2f}x"
        )


def _cores() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


if __name__ == "__main__":
    sys.exit(main())
