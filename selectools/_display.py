"""The display port: how a core object is shown, without the core naming any view.

A displayable core type inherits :class:`RichDisplay`; its convenience methods
(``to_dataframe()``, ``gantt()``, ``chart()``, ``to_svg()``) are one-line calls to
:func:`render`. The renderers themselves live in :mod:`selectools._view`, in one
table from qualified type name to renderers, and reach this module through
:func:`install`, called once by the package's front door (``selectools/__init__.py``,
which Python always imports before any submodule). So the core depends on this
module only, views depend on the core, and nothing here is imported before a
frontend or a caller asks for a rendering. Standard library only.

Renderer kinds: ``"text"`` and ``"html"`` (every displayable type has both; they
form the ``text/plain`` + ``text/html`` bundle Jupyter asks for), and per type
``"dataframe"``, ``"gantt"``, ``"chart"``, ``"svg"`` and the like.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

__all__ = ["Renderers", "RichDisplay", "install", "mimebundle", "render", "renderers"]

#: renderer kind -> function called as ``renderer(obj, *args, **kwargs)``
Renderers = Mapping[str, Callable[..., Any]]
#: ``"selectools.types.Message"`` -> that type's renderers, or None when it has no row
Loader = Callable[[str], "Renderers | None"]

_loader: Loader | None = None
_found: dict[type, Renderers] = {}


def install(loader: Loader) -> None:
    """Set where renderers come from (the front door passes the view table's lookup)."""
    global _loader
    _loader = loader
    _found.clear()


def renderers(obj: Any) -> Renderers:
    """The renderers of ``obj``'s type, or of the nearest base class that has a row."""
    cls = type(obj)
    found = _found.get(cls)
    if found is not None:
        return found
    if _loader is None:
        raise RuntimeError(
            "no views are installed: import selectools (its front door installs them)"
        )
    for klass in cls.__mro__:
        row = _loader(f"{klass.__module__}.{klass.__qualname__}")
        if row is not None:
            _found[cls] = row
            return row
    raise TypeError(f"{cls.__name__} has no view; add a row for it in selectools/_view/")


def render(obj: Any, kind: str, /, *args: Any, **kwargs: Any) -> Any:
    """``obj`` rendered as ``kind`` (e.g. ``"html"``, ``"dataframe"``, ``"svg"``)."""
    row = renderers(obj)
    renderer = row.get(kind)
    if renderer is None:
        kinds = ", ".join(sorted(row))
        raise TypeError(f"{type(obj).__name__} has no {kind!r} view; it has: {kinds}")
    return renderer(obj, *args, **kwargs)


def mimebundle(
    obj: Any, include: Collection[str] | None = None, exclude: Collection[str] | None = None
) -> dict[str, str]:
    """``{"text/plain": ..., "text/html": ...}`` for ``obj``, filtered as IPython asks."""
    bundle = {"text/plain": render(obj, "text"), "text/html": render(obj, "html")}
    if include:
        bundle = {k: v for k, v in bundle.items() if k in include}
    if exclude:
        bundle = {k: v for k, v in bundle.items() if k not in exclude}
    return bundle


class RichDisplay:
    """Mixin: a deterministic ``text/html`` and ``text/plain`` in any notebook, no extension needed."""

    __slots__ = ()

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None, **kwargs: Any
    ) -> dict[str, str]:
        return mimebundle(self, include, exclude)

    def _repr_html_(self) -> str:
        """The ``text/html`` alone, for tools that know only this hook (IPython uses the bundle)."""
        html: str = render(self, "html")
        return html
