"""``EntityMemory``: the people, organizations, places and things a conversation mentions.

An LLM (any provider; ``provider=None`` means manual updates only) reads each
turn and returns a JSON array of entities; :meth:`EntityMemory.update` merges
them by name (case-insensitive, aliases included): the first name and type
win, attributes merge with new values overwriting old ones, aliases are united,
``mentions`` grows by one and ``last_seen`` moves to now. When more than
``max_entities`` are tracked, the least recently mentioned are evicted (LRU).

With ``AgentConfig(entity_memory=...)`` the agent puts :meth:`build_context`
(``[Known Entities]``) into the system prompt before calling the model, and
after the run extracts entities from the turn (the user's messages and the
answer), tracing an ``entity_extraction`` step and emitting
``on_entity_extraction``. A malformed extraction reply is recorded as an
``error`` step and the run's answer is kept.

Persistence: :meth:`to_dict`/:meth:`from_dict`, and :meth:`save`/:meth:`load`
for a JSON file written atomically; ``save`` merges with what another process
saved to the same file meanwhile, so neither loses entities.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._display import RichDisplay, render
from .._storage import atomic_write_text, file_lock
from ._store import (
    FORMAT_VERSION,
    ExtractionError,
    MemoryStoreError,
    check_version,
    parse_json_array,
)

if TYPE_CHECKING:
    import pandas

    from ..providers.base import AnyProvider, LLMRequest

__all__ = ["ENTITY_TYPES", "Entity", "EntityMemory", "ExtractionError"]

#: The entity types the extraction prompt offers; anything else becomes ``"other"``.
ENTITY_TYPES = ("person", "organization", "location", "product", "concept", "event", "other")

CONTEXT_HEADER = "[Known Entities]"

_SYSTEM = "You extract named entities from text and reply with JSON only."

_PROMPT = """Extract all named entities from the following text.
For each entity, provide:
- name: the canonical name
- entity_type: one of "person", "organization", "location", "product", "concept", "event", "other"
- attributes: key-value pairs of facts mentioned about the entity

Respond as a JSON array.

Text:
\"\"\"
{text}
\"\"\""""


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class Entity:
    """A tracked entity: its canonical name, type, facts and how often it came up."""

    name: str
    entity_type: str
    attributes: dict[str, str] = field(default_factory=dict)
    mentions: int = 0
    first_seen: datetime | None = None
    last_seen: datetime | None = None
    aliases: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"Entity name must be a non-empty string, got {self.name!r}")
        if not isinstance(self.entity_type, str) or not self.entity_type:
            raise ValueError(
                f"Entity entity_type must be a non-empty string, got {self.entity_type!r}"
            )
        if not isinstance(self.attributes, dict):
            raise TypeError(
                f"Entity attributes must be a dict, got {type(self.attributes).__name__}"
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "entity_type": self.entity_type,
            "attributes": dict(self.attributes),
            "mentions": self.mentions,
            "first_seen": self.first_seen.isoformat() if self.first_seen else None,
            "last_seen": self.last_seen.isoformat() if self.last_seen else None,
            "aliases": list(self.aliases),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Entity:
        def when(value: Any) -> datetime | None:
            return datetime.fromisoformat(value) if isinstance(value, str) else None

        return cls(
            name=data["name"],
            entity_type=data.get("entity_type") or "other",
            attributes={str(k): str(v) for k, v in (data.get("attributes") or {}).items()},
            mentions=int(data.get("mentions", 0)),
            first_seen=when(data.get("first_seen")),
            last_seen=when(data.get("last_seen")),
            aliases=[str(a) for a in data.get("aliases") or ()],
        )

    def context_line(self) -> str:
        """``- Alice (person): role=engineer, company=Acme`` (no colon without attributes)."""
        line = f"- {self.name} ({self.entity_type})"
        if self.attributes:
            line += ": " + ", ".join(f"{k}={v}" for k, v in self.attributes.items())
        return line


def _entity_from_reply(item: dict[str, Any]) -> Entity | None:
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        return None
    kind = str(item.get("entity_type") or item.get("type") or "other").strip().lower()
    attributes = item.get("attributes") or {}
    if not isinstance(attributes, dict):
        attributes = {}
    aliases = item.get("aliases") or []
    return Entity(
        name=name.strip(),
        entity_type=kind if kind in ENTITY_TYPES else "other",
        attributes={str(k): str(v) for k, v in attributes.items() if v is not None},
        aliases=[str(a) for a in aliases] if isinstance(aliases, list) else [],
    )


def _merge_saved(ours: Entity, theirs: Entity) -> None:
    """Fold another process's copy of an entity into ours: the later facts win, nothing is lost."""
    epoch = datetime.min.replace(tzinfo=timezone.utc)
    ours_newer = (ours.last_seen or epoch) >= (theirs.last_seen or epoch)
    older, newer = (theirs, ours) if ours_newer else (ours, theirs)
    attributes = dict(older.attributes)
    attributes.update(newer.attributes)
    ours.attributes = attributes
    ours.mentions = max(ours.mentions, theirs.mentions)
    ours.last_seen = newer.last_seen
    ours.first_seen = min(
        (d for d in (ours.first_seen, theirs.first_seen) if d is not None), default=None
    )
    known = {a.lower() for a in ours.aliases}
    for alias in theirs.aliases:
        if alias.lower() not in known:
            ours.aliases.append(alias)
            known.add(alias.lower())


class EntityMemory(RichDisplay):
    """Entities extracted across turns, merged by name, LRU-evicted beyond ``max_entities``."""

    def __init__(
        self,
        max_entities: int = 100,
        provider: AnyProvider | None = None,
        extraction_model: str | None = None,
    ) -> None:
        if isinstance(max_entities, bool) or not isinstance(max_entities, int) or max_entities < 1:
            raise ValueError(
                f"EntityMemory: max_entities must be an int >= 1, got {max_entities!r}"
            )
        self.max_entities = max_entities
        self.provider = provider
        self.extraction_model = extraction_model
        # name.lower() -> entity, least recently mentioned first
        self._entities: OrderedDict[str, Entity] = OrderedDict()
        self._lock = threading.RLock()

    # -- extraction ------------------------------------------------------------
    def extraction_request(self, text: str) -> LLMRequest:
        """The model call :meth:`extract_entities` makes (the agent sends the same one)."""
        from .._side_call import side_request
        from ..types import Message, Role

        prompt = _PROMPT.format(text=text)
        return side_request(
            self.extraction_model or "", _SYSTEM, [Message(role=Role.USER, content=prompt)], 1000
        )

    def parse_extraction(self, reply: str) -> list[Entity]:
        """Entities from a model reply; :class:`ExtractionError` when it is not a JSON array."""
        items = parse_json_array("entity", reply)
        return [e for e in map(_entity_from_reply, items) if e is not None]

    def extract_entities(self, text: str) -> list[Entity]:
        """Ask the provider for the entities in ``text`` (``[]`` without a provider)."""
        if self.provider is None:
            return []
        from .._side_call import ask

        message, _usage = ask(self.provider, self.extraction_request(text))
        return self.parse_extraction(message.text)

    # -- merging ---------------------------------------------------------------
    def _find(self, name: str) -> str | None:
        key = name.strip().lower()
        if key in self._entities:
            return key
        for existing_key, entity in self._entities.items():
            if any(a.lower() == key for a in entity.aliases):
                return existing_key
        return None

    def update(self, entities: Iterable[Entity]) -> None:
        """Merge ``entities`` into the tracked set, then evict beyond ``max_entities``."""
        with self._lock:
            for incoming in entities:
                if not isinstance(incoming, Entity):
                    raise TypeError(
                        f"EntityMemory.update takes Entity objects, got {type(incoming).__name__}"
                    )
                stamp = _now()
                key = self._find(incoming.name)
                if key is None:
                    entity = Entity(
                        name=incoming.name.strip(),
                        entity_type=incoming.entity_type,
                        attributes=dict(incoming.attributes),
                        mentions=incoming.mentions or 1,
                        first_seen=incoming.first_seen or stamp,
                        last_seen=stamp,
                        aliases=list(dict.fromkeys(incoming.aliases)),
                    )
                    self._entities[entity.name.lower()] = entity
                else:
                    entity = self._entities[key]
                    entity.attributes.update(incoming.attributes)
                    entity.mentions += 1
                    entity.last_seen = stamp
                    known = {entity.name.lower(), *(a.lower() for a in entity.aliases)}
                    for alias in [*incoming.aliases, incoming.name.strip()]:
                        if alias.lower() not in known:
                            entity.aliases.append(alias)
                            known.add(alias.lower())
                    self._entities.move_to_end(key)
            while len(self._entities) > self.max_entities:
                self._entities.popitem(last=False)

    # -- reading ---------------------------------------------------------------
    def get_entity(self, name: str) -> Entity | None:
        """The tracked entity called ``name`` (case-insensitive; aliases count)."""
        with self._lock:
            key = self._find(name)
            return None if key is None else self._entities[key]

    def get_all_entities(self) -> list[Entity]:
        """Every tracked entity, most recently mentioned first."""
        with self._lock:
            return list(reversed(self._entities.values()))

    def build_context(self) -> str:
        """The ``[Known Entities]`` block for the system prompt (``""`` when empty)."""
        entities = self.get_all_entities()
        if not entities:
            return ""
        return "\n".join([CONTEXT_HEADER, *(e.context_line() for e in entities)])

    def clear(self) -> None:
        with self._lock:
            self._entities.clear()

    def __len__(self) -> int:
        return len(self._entities)

    def __repr__(self) -> str:
        return f"EntityMemory(entities={len(self)}, max_entities={self.max_entities})"

    # -- persistence -----------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready snapshot (least recently mentioned first, so order survives)."""
        with self._lock:
            return {
                "format": FORMAT_VERSION,
                "max_entities": self.max_entities,
                "extraction_model": self.extraction_model,
                "entities": [e.to_dict() for e in self._entities.values()],
            }

    @classmethod
    def from_dict(cls, data: dict[str, Any], provider: AnyProvider | None = None) -> EntityMemory:
        """Restore a snapshot from :meth:`to_dict` (pass ``provider`` to keep extracting)."""
        if not isinstance(data, dict):
            raise MemoryStoreError(
                f"EntityMemory.from_dict needs a dict, got {type(data).__name__}"
            )
        check_version(data.get("format"), "this entity memory snapshot")
        memory = cls(
            max_entities=int(data.get("max_entities", 100)),
            provider=provider,
            extraction_model=data.get("extraction_model"),
        )
        try:
            for item in data.get("entities", []):
                entity = Entity.from_dict(item)
                memory._entities[entity.name.lower()] = entity
        except (KeyError, TypeError, ValueError) as exc:
            raise MemoryStoreError(f"an entity in the snapshot cannot be read: {exc!r}") from None
        return memory

    def load_dict(self, data: dict[str, Any]) -> None:
        """Replace the tracked entities with a :meth:`to_dict` snapshot (sessions use this)."""
        restored = EntityMemory.from_dict(data)
        with self._lock:
            self._entities = restored._entities
            while len(self._entities) > self.max_entities:
                self._entities.popitem(last=False)

    def save(self, path: str | Path) -> None:
        """Write to ``path`` atomically, merged with what another process saved there."""
        target = Path(path)
        with file_lock(target.with_name(target.name + ".lock")):
            if target.exists():
                on_disk = EntityMemory.load(target)
                with self._lock:
                    # oldest first at the front: walk theirs newest to oldest
                    for key, theirs in reversed(on_disk._entities.items()):
                        ours = self._entities.get(key)
                        if ours is None:
                            self._entities[key] = theirs
                            self._entities.move_to_end(key, last=False)
                        else:
                            _merge_saved(ours, theirs)
                    while len(self._entities) > self.max_entities:
                        self._entities.popitem(last=False)
            atomic_write_text(target, json.dumps(self.to_dict(), ensure_ascii=False, indent=1))

    @classmethod
    def load(cls, path: str | Path, provider: AnyProvider | None = None) -> EntityMemory:
        """Read a file written by :meth:`save`."""
        target = Path(path)
        try:
            data = json.loads(target.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise MemoryStoreError(f"{target} is not an entity memory file: {exc}") from None
        check_version(data.get("format") if isinstance(data, dict) else None, str(target))
        return cls.from_dict(data, provider=provider)

    # -- notebook --------------------------------------------------------------
    def to_dataframe(self) -> pandas.DataFrame:
        """One row per entity (pandas is imported here, on use)."""
        return render(self, "dataframe")
