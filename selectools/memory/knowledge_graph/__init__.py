"""Knowledge-graph memory: subject-relation-object triples extracted from conversation.

``from selectools.knowledge_graph import KnowledgeGraphMemory, InMemoryTripleStore,
SQLiteTripleStore, Triple, TripleStore``. See :class:`KnowledgeGraphMemory`.
With ``AgentConfig(knowledge_graph=...)`` the agent puts the triples relevant to
the user's message (``[Known Relationships]``) into the system prompt before
calling the model and extracts new triples from the turn after the run
(``kg_extraction`` step, ``on_kg_extraction``).
"""

from __future__ import annotations

from .._store import ExtractionError, StoreVersionError, UnknownBackendError
from ._memory import KnowledgeGraphMemory, keywords_of
from ._stores import InMemoryTripleStore, SQLiteTripleStore
from ._triple import Triple, TripleStore

__all__ = [
    "ExtractionError",
    "InMemoryTripleStore",
    "KnowledgeGraphMemory",
    "SQLiteTripleStore",
    "StoreVersionError",
    "Triple",
    "TripleStore",
    "UnknownBackendError",
    "keywords_of",
]
