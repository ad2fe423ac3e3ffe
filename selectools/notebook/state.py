"""What ``%load_ext selectools`` keeps per shell: defaults, the notebook's tools, memories."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..tools import ToolLike
    from .mcp_attach import MCPAttachment

__all__ = ["NotebookState"]


@dataclass
class NotebookState:
    """Settings made with ``%selectools``, tools made with ``%%tool``, ``--memory`` conversations,
    MCP servers attached with ``%selectools mcp`` (their tools are in ``tools`` too).

    ``provider`` is a provider spec (see :mod:`.providers`), ``model`` ``None``
    for the provider's default, ``display`` one of ``auto``, ``live``, ``text``.
    """

    provider: str = "auto"
    model: str | None = None
    display: str = "auto"
    tools: dict[str, ToolLike] = field(default_factory=dict)
    memories: dict[str, Any] = field(default_factory=dict)
    mcp: dict[str, MCPAttachment] = field(default_factory=dict)
