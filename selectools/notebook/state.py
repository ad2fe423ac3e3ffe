"""What ``%load_ext selectools`` keeps per shell: defaults, the notebook's tools, memories."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..tools import Tool

__all__ = ["NotebookState"]


@dataclass
class NotebookState:
    """Settings made with ``%selectools``, tools made with ``%%tool``, ``--memory`` conversations.

    ``provider`` is a provider spec (see :mod:`.providers`), ``model`` ``None``
    for the provider's default, ``display`` one of ``auto``, ``live``, ``text``.
    """

    provider: str = "auto"
    model: str | None = None
    display: str = "auto"
    tools: dict[str, Tool] = field(default_factory=dict)
    memories: dict[str, Any] = field(default_factory=dict)
