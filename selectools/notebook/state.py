"""What ``%load_ext selectools`` keeps per shell: the settings, the notebook's tools, memories."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import pandas

    from ..run_ledger import Ledger
    from ..tools import ToolLike
    from .mcp_attach import MCPAttachment

__all__ = ["NotebookSettings", "NotebookState", "current_state", "ledger"]


class NotebookSettings(Protocol):
    """The configurable defaults: the traits of :class:`~.magics.SelectoolsMagics`."""

    @property
    def provider(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def display(self) -> str: ...
    @property
    def approval(self) -> str: ...
    @property
    def budget(self) -> float | None: ...
    @property
    def context_limit(self) -> int: ...


def _new_ledger() -> Ledger:
    from ..run_ledger import Ledger

    return Ledger()


@dataclass
class NotebookState:
    """The settings (the magics' traits: ``%config SelectoolsMagics`` and ``%selectools k=v``
    set the same values), tools made with ``%%tool``, ``--memory`` conversations, MCP servers
    attached with ``%selectools mcp`` (their tools are in ``tools`` too) and the session's
    run ledger.

    ``provider`` is a provider spec (see :mod:`.providers`), ``model`` ``None``
    for the provider's default, ``display`` one of ``auto``, ``live``, ``text``, ``widget``.
    """

    settings: NotebookSettings
    tools: dict[str, ToolLike] = field(default_factory=dict)
    memories: dict[str, Any] = field(default_factory=dict)
    mcp: dict[str, MCPAttachment] = field(default_factory=dict)
    ledger: Ledger = field(default_factory=_new_ledger)

    @property
    def provider(self) -> str:
        return self.settings.provider

    @property
    def model(self) -> str | None:
        return self.settings.model or None

    @property
    def display(self) -> str:
        return self.settings.display


def current_state() -> NotebookState:
    """The state of the running IPython shell's ``%load_ext selectools``."""
    from ._kernel import current_shell
    from .errors import NotebookUsageError

    shell = current_shell()
    magics = shell.magics_manager.registry.get("SelectoolsMagics") if shell else None
    if magics is None:
        raise NotebookUsageError(
            "this needs a notebook with selectools loaded: run %load_ext selectools"
        )
    state: NotebookState = magics.state
    return state


def ledger() -> pandas.DataFrame:
    """Every agent, graph and eval run of this notebook session, one row each (a DataFrame).

    The columns are :data:`selectools.run_ledger.COLUMNS`; ``%selectools ledger``
    shows the same runs as a table.
    """
    return current_state().ledger.to_dataframe()
