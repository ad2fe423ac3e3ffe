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
   40 minutes; the projection for 10 MB is printed. Both figures are the best of
   ``--rounds`` alternating runs (model load is timed apart).

The corpus is the Python standard library's own ``.py`` files (source, comments
and docstrings: text that ships with every Python), copied in sorted order into
a temporary folder until it holds ``--megabytes`` (10 MB = 10,000,000 bytes),
chunked by ``RecursiveTextSplitter(1000, 200)``. Run:
``python benchmarks/bench_ingest.py [--megabytes 10] [--e5-megabytes 0.05] [--rounds 3] [--skip-e5]``.
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


def pipeline(root: Path, embedder: Any) -> tuple[float, int]:
    """(seconds, chunks) for ``ingest`` (load, chunk, embed, store) into a fresh in-memory store."""
    started = time.perf_counter()
    report = ingest(
        root, InMemoryVectorStore(embedder=embedder), splitter=splitter(), progress=False
    )
    return time.perf_counter() - started, report.chunks


def model_only(root: Path, embedder: Any) -> tuple[float, int]:
    """(seconds, chunks) for the embedder alone on the same chunks, loaded and split beforehand,
    in the batches ``ingest`` uses."""
    texts = [c.text for c in splitter().split_documents(DocumentLoader.from_directory(root))]
    size = InMemoryVectorStore.EMBED_BATCH
    started = time.perf_counter()
    for start in range(0, len(texts), size):
        embedder.embed_array(texts[start : start + size])
    return time.perf_counter() - started, len(texts)


def best_of(rounds: int, root: Path, make_embedder: Any) -> tuple[float, float, float, int]:
    """(model load s, model-only s, pipeline s, chunks), the best of ``rounds`` alternating
    runs of each: other processes on the machine only ever slow a run down."""
    started = time.perf_counter()
    embedder = make_embedder()
    load_s = time.perf_counter() - started
    model_s, pipe_s, chunks = [], [], 0
    for _ in range(rounds):
        seconds, chunks = model_only(root, embedder)
        model_s.append(seconds)
        seconds, piped = pipeline(root, embedder)
        assert piped == chunks
        pipe_s.append(seconds)
    return load_s, min(model_s), min(pipe_s), chunks


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
    parser.add_argument("--e5-megabytes", type=float, default=0.05)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skip-e5", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        size, files = write_corpus(root, args.megabytes)
        print(f"corpus: {size / 1e6:.1f} MB of Python stdlib sources in {files} files")
        fast_load, fast_model_s, fast_pipe_s, chunks = best_of(
            args.rounds, root, StaticEmbeddingProvider
        )
        fast_s = fast_load + fast_pipe_s
    fast = StaticEmbeddingProvider()
    fast_q = quality(fast)
    print(
        f"\nfast tier ({fast.model}, {fast.dimension}-d), {chunks:,} chunks of <= 1000 characters"
    )
    print(
        f"  ingest {fast_pipe_s:.1f} s ({chunks / fast_pipe_s:,.0f} chunks/s) after a {fast_load:.1f} s "
        f"model load; model alone {chunks / fast_model_s:,.0f} chunks/s; "
        f"pipeline/model {fast_model_s / fast_pipe_s:.2f}"
    )
    print(
        f"  {size / 1e6:.0f} MB in {fast_s:.0f} s on {_cores()} cores, model load included "
        f"(budget <= {FAST_BUDGET_S:.0f} s: {verdict(fast_s <= FAST_BUDGET_S)})"
    )
    print(f"  retrieval set ({len(QUESTIONS)} questions): {show(fast_q)}")
    if args.skip_e5:
        return

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        e5_size, _ = write_corpus(root, args.e5_megabytes)
        e5_load, e5_model_s, e5_s, e5_chunks = best_of(args.rounds, root, E5EmbeddingProvider)
    e5 = E5EmbeddingProvider()
    e5_q = quality(e5)
    ratio = e5_model_s / e5_s
    per_chunk = e5_s / e5_chunks
    print(
        f"\nE5 tier ({e5.model}, {e5.dimension}-d), sample of {e5_size / 1e6:.2f} MB = {e5_chunks:,} chunks"
    )
    print(
        f"  ingest {e5_chunks / e5_s:.1f} chunks/s (after a {e5_load:.1f} s model load); "
        f"model alone {e5_chunks / e5_model_s:.1f} chunks/s; "
        f"pipeline/model {ratio:.2f} (target >= {PIPELINE_TARGET}: {verdict(ratio >= PIPELINE_TARGET)})"
    )
    print(
        f"  projected for {size / 1e6:.0f} MB ({chunks:,} chunks): {chunks * per_chunk / 60:.0f} min"
    )
    print(f"  retrieval set: {show(e5_q)}")
    print(
        f"\nfast vs E5: E5 would take {chunks * per_chunk / fast_s:,.0f}x as long for "
        f"{size / 1e6:.0f} MB"
    )
    for mode in ("vector", "hybrid"):  # like for like: each tier searched the same way
        gap = 100 * (e5_q[mode][0] - fast_q[mode][0])
        print(
            f"  {mode} search: fast recall@5 {gap:+.1f} points behind E5's "
            f"(budget <= {RECALL_BUDGET_POINTS:.0f}: {verdict(gap <= RECALL_BUDGET_POINTS)}; "
            f"one question is {100 / len(QUESTIONS):.1f} points), "
            f"MRR {fast_q[mode][1] / e5_q[mode][1]:.2f}x"
        )


def _cores() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


if __name__ == "__main__":
    sys.exit(main())
