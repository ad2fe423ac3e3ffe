"""Rich display hook shared by the core value types.

Jupyter asks an object for ``_repr_mimebundle_``; the rendering itself lives in
:mod:`selectools.notebook.render` (plain string building, no IPython import) and
is loaded only when a frontend asks, so the core never imports the notebook stack.
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
        from .notebook.render import mimebundle

        return mimebundle(self, include=include, exclude=exclude)
