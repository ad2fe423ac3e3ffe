"""``from selectools.tools.decorators import tool``: the import path the docs' custom templates use."""

from __future__ import annotations

from ._decorator import tool

__all__ = ["tool"]
