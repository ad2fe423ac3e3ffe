"""The documented path of the knowledge-graph memory; it lives in :mod:`selectools.memory.knowledge_graph`."""

from __future__ import annotations

from .memory.knowledge_graph import *  # noqa: F403  (every name in the package's __all__)
from .memory.knowledge_graph import __all__ as __all__
