"""Vector stores over real engines: numpy, SQLite, FAISS, Qdrant, Chroma, pgvector and Pinecone (HTTP).

Each store's engine loads only when the store is used; a missing optional
package raises :class:`~selectools.rag.errors.MissingDependencyError` naming
the extra to install.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import lazy_exports

__all__ = [
    "ChromaVectorStore",
    "FAISSVectorStore",
    "InMemoryVectorStore",
    "PgVectorStore",
    "PineconeVectorStore",
    "QdrantVectorStore",
    "SQLiteVectorStore",
]

_LAZY = {
    "ChromaVectorStore": ".chroma",
    "InMemoryVectorStore": ".memory",
    "SQLiteVectorStore": ".sqlite",
    "FAISSVectorStore": ".faiss",
    "QdrantVectorStore": ".qdrant",
    "PgVectorStore": ".pgvector",
    "PineconeVectorStore": ".pinecone",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

if TYPE_CHECKING:  # pragma: no cover
    from .chroma import ChromaVectorStore
    from .faiss import FAISSVectorStore
    from .memory import InMemoryVectorStore
    from .pgvector import PgVectorStore
    from .pinecone import PineconeVectorStore
    from .qdrant import QdrantVectorStore
    from .sqlite import SQLiteVectorStore
