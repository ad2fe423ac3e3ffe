"""The documented path of the knowledge memory; it lives in :mod:`selectools.memory.knowledge`."""

from __future__ import annotations

from .memory.knowledge import *  # noqa: F403  (every name in the package's __all__)
from .memory.knowledge import __all__ as __all__
