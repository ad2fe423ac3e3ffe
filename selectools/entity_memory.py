"""The documented path of entity memory; it lives in :mod:`selectools.memory.entity`."""

from __future__ import annotations

from .memory.entity import ENTITY_TYPES, Entity, EntityMemory, ExtractionError

__all__ = ["ENTITY_TYPES", "Entity", "EntityMemory", "ExtractionError"]
