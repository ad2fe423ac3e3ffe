"""LLM providers. Network providers are imported lazily, so their SDKs load only when used."""

from __future__ import annotations

import importlib
from typing import Any

from .base import Provider, ProviderError
from .stubs import LocalProvider

__all__ = ["LocalProvider", "Provider", "ProviderError"]

_LAZY: dict[str, str] = {}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'selectools.providers' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name, __name__), name)
    globals()[name] = value
    return value
