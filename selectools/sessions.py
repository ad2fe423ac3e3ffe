"""The documented path of the sessions stores; it lives in :mod:`selectools.memory.sessions`."""

from __future__ import annotations

from .memory.sessions import *  # noqa: F403  (every name in the package's __all__)
from .memory.sessions import __all__ as __all__
