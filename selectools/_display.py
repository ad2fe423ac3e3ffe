"""Rich display hook shared by the core value types.

Jupyter asks an object for ``_repr_mimebundle_``; the rendering itself lives in
:mod:`selectools._view.render` (plain string building, no IPython import) and
is loaded only when a frontend asks, so importing a core type stays cheap.
"""

from __future__ import annotations

from typing import Any

__all__ = ["RichDisplay"]


class RichDisplay:
    """Mixin: deterministic ``text/html`` and ``text/plain`` for notebooks."""

    __slots__ = ()

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None, **kwargs: Any
    ) -> dict[str, Any]:
        from ._view.render import mimebundle

        return mimebundle(self, include=include, exclude=exclude)
