"""``ToolOptions``: the options of ``@tool``, as one value passed through unchanged.

``@tool(...)``, ``@registry.tool(...)`` and the ``%%tool`` magic all build one
``ToolOptions`` and hand it on; a new option is one field here (plus one row
in :data:`ToolKeywords` so type checkers see the keyword, and a ``%%tool``
option row if the magic should offer it).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from ..stability import beta

__all__ = ["ConfigInjector", "ToolOptions", "tool_options"]

ConfigInjector = Callable[[], Mapping[str, Any] | None]


@beta
@dataclass(frozen=True)
class ToolOptions:
    """How ``@tool`` builds a tool; every field is optional.

    ``name`` (default: the function's name), ``description`` (default: the
    docstring before its ``Args:`` section, else one generated from the name
    and parameters; ``""`` is an error), ``param_metadata``
    (``{"x": {"description": ..., "enum": [...]}}``), ``streaming`` (default:
    True for generator functions), ``terminal`` (a successful call ends the
    run), ``requires_approval`` (calls go through the approval handler),
    ``screen_output`` (results are screened for prompt injection before the
    model reads them, see :mod:`selectools.security`),
    ``injected_kwargs`` (fixed arguments hidden from the model),
    ``config_injector`` (a callable returning hidden arguments at each call;
    probed once at definition unless ``injected`` names its keys).
    """

    name: str | None = None
    description: str | None = None
    param_metadata: Mapping[str, Any] | None = None
    streaming: bool | None = None
    terminal: bool = False
    requires_approval: bool = False
    screen_output: bool = False
    config_injector: ConfigInjector | None = None
    injected: Collection[str] | str | None = None
    injected_kwargs: Mapping[str, Any] | None = None


if TYPE_CHECKING:  # only type checkers need the keyword spelling (it costs import time)
    from typing import TypedDict

    class ToolKeywords(TypedDict, total=False):
        """The keyword spelling of :class:`ToolOptions` (for ``**options: Unpack[ToolKeywords]``)."""

        name: str | None
        description: str | None
        param_metadata: Mapping[str, Any] | None
        streaming: bool | None
        terminal: bool
        requires_approval: bool
        screen_output: bool
        config_injector: ConfigInjector | None
        injected: Collection[str] | str | None
        injected_kwargs: Mapping[str, Any] | None


_NAMES = tuple(f.name for f in fields(ToolOptions))


def tool_options(caller: str, keywords: Mapping[str, Any]) -> ToolOptions:
    """``ToolOptions(**keywords)``, with an error naming the options when one is unknown."""
    unknown = [k for k in keywords if k not in _NAMES]
    if unknown:
        raise TypeError(
            f"{caller} got unexpected option(s) {', '.join(map(repr, unknown))}; "
            f"its options are: {', '.join(_NAMES)}"
        )
    return ToolOptions(**keywords)
