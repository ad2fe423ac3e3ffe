"""``ingest(source, store)``: load, chunk, embed and store a corpus, overlapped and resumable.

A loader thread reads and chunks the files while the calling thread embeds and
stores, so the embedder is never idle waiting for the disk or the splitter: the
pipeline runs at the embedder's own speed (``benchmarks/bench_ingest.py`` shows
both figures). Chunks are stored a batch at a time (``VectorStore.EMBED_BATCH``
texts; each batch one ``add_documents`` call, a transaction in the SQLite
store), so an interruption loses at most the batch in flight.

Each chunk carries ``metadata["content_hash"]``, a hash of its text and
metadata (source path and chunk number included). A later ``ingest`` into the
same store reads the hashes already stored and embeds only the chunks that are
missing: re-running after a crash or a Ctrl-C costs only what was not stored,
and new files cost only themselves. It adds, it never deletes: the chunks of a
file that was edited or removed stay until you delete them. Two ``ingest`` calls
into one store at the same time may both embed a chunk that was missing and
store it twice; run one at a time per store.
"""

from __future__ import annotations

import hashlib
import json
import queue
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._progress import ProgressArg, progress_bar
from .chunking import RecursiveTextSplitter
from .document import Document
from .errors import DocumentLoadError, DocumentNotFoundError
from .loaders import DocumentLoader
from .vector_store import VectorStore

__all__ = ["IngestReport", "content_hash", "ingest"]

HASH_KEY = "content_hash"
_QUEUE_BATCHES = 4  # chunk batches the loader may run ahead of the embedder


@dataclass(frozen=True)
class IngestReport:
    """What one ``ingest`` call did."""

    sources: int  #: files (or documents) read
    chunks: int  #: chunks they split into
    embedded: int  #: chunks embedded and stored now
    skipped: int  #: chunks already in the store (not embedded again)
    seconds: float

    @property
    def chunks_per_second(self) -> float:
        return self.chunks / self.seconds if self.seconds > 0 else 0.0


def content_hash(document: Document) -> str:
    """A stable hash of a chunk's text and metadata (without any earlier ``content_hash``)."""
    meta = {k: v for k, v in document.metadata.items() if k != HASH_KEY}
    payload = json.dumps(meta, sort_keys=True, ensure_ascii=False, default=str)
    digest = hashlib.sha256(document.text.encode("utf-8", "surrogatepass"))
    digest.update(b"\0" + payload.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def ingest(
    source: str | Path | Sequence[Document],
    store: VectorStore,
    *,
    glob_pattern: str = "**/*",
    splitter: Any = None,
    progress: ProgressArg = True,
) -> IngestReport:
    """Chunk ``source`` (a directory or documents), embed what ``store`` lacks, store it.

    ``splitter`` is anything with ``split_documents`` (default
    ``RecursiveTextSplitter(1000, 200)``). ``progress`` shows a bar over the
    sources (files or documents); a callable gets ``(done, total)``.
    """
    if not isinstance(store, VectorStore):
        raise TypeError(f"ingest: store must be a VectorStore, got {type(store).__name__}")
    if store.embedder is None:
        from .vector_store import NoEmbedderError

        raise NoEmbedderError()
    splitter = splitter if splitter is not None else RecursiveTextSplitter(1000, 200)
    units = _sources(source, glob_pattern)
    started = time.perf_counter()
    stored = {
        doc.metadata.get(HASH_KEY) for _, doc in store.documents() if HASH_KEY in doc.metadata
    }
    counts = {"chunks": 0, "embedded": 0, "skipped": 0}
    batch = store.EMBED_BATCH
    with progress_bar(progress, len(units), "ingesting") as bar:
        pending: list[Document] = []
        ended = 0  # sources whose chunks have all been seen
        for chunk in _load_ahead(units, splitter, batch):
            if chunk is None:
                ended += 1
            elif chunk.metadata[HASH_KEY] in stored:
                counts["chunks"] += 1
                counts["skipped"] += 1
            else:
                counts["chunks"] += 1
                pending.append(chunk)
            if len(pending) >= batch:
                _flush(store, pending, counts)
            if bar is not None and not pending:
                bar(ended, len(units))
        _flush(store, pending, counts)
        if bar is not None:
            bar(ended, len(units))
    return IngestReport(
        sources=len(units),
        chunks=counts["chunks"],
        embedded=counts["embedded"],
        skipped=counts["skipped"],
        seconds=time.perf_counter() - started,
    )


def _flush(store: VectorStore, pending: list[Document], counts: dict[str, int]) -> None:
    """Embed and store ``pending`` as one batch, then empty it."""
    if pending:
        store.add_documents(pending, progress=False)
        counts["embedded"] += len(pending)
        pending.clear()


def _sources(source: str | Path | Sequence[Document], glob_pattern: str) -> list[Any]:
    """Files under a directory (sorted), or the documents themselves."""
    if isinstance(source, (str, Path)):
        root = Path(source)
        if not root.exists():
            raise DocumentNotFoundError(str(root), "no such directory")
        if not root.is_dir():
            raise DocumentLoadError(str(root), "not a directory")
        return sorted(p for p in root.glob(glob_pattern) if p.is_file())
    docs = list(source)
    for index, doc in enumerate(docs):
        if not isinstance(doc, Document):
            raise TypeError(f"ingest: item {index} is {type(doc).__name__}, not Document")
    return docs


def _load_ahead(units: list[Any], splitter: Any, batch: int) -> Iterator[Document | None]:
    """Chunks from a loader thread, each source's followed by ``None``.

    The loader stops when the consumer stops (an error or an interruption in
    the embedder) and its own errors are raised here, in the caller's thread.
    """
    out: queue.Queue[Any] = queue.Queue(maxsize=_QUEUE_BATCHES * batch)
    stop = threading.Event()
    done = object()

    def put(item: Any) -> bool:
        while not stop.is_set():
            try:
                out.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def load() -> None:
        try:
            for unit in units:
                docs = DocumentLoader.from_file(unit) if isinstance(unit, Path) else [unit]
                for chunk in splitter.split_documents(docs):
                    chunk.metadata[HASH_KEY] = content_hash(chunk)
                    if not put(chunk):
                        return
                if not put(None):
                    return
            put(done)
        except BaseException as exc:  # handed to the consumer, raised there
            put(exc)

    thread = threading.Thread(target=load, name="selectools-ingest-loader", daemon=True)
    thread.start()
    try:
        while True:
            item = out.get()
            if item is done:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        thread.join()
