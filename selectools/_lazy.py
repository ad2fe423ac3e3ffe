"""Lazy package exports (PEP 562), written once for every package that needs them.

A package lists ``name -> module`` and calls :func:`lazy_exports`; the returned
``__getattr__`` imports a name's module on first access and caches the value in
the package, so later lookups are plain attribute reads. Type checkers and IDEs
do not run ``__getattr__``: each package also imports its lazy names under
``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``; ``exports`` maps names to relative modules."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
