"""Providers by name for configs and templates, and the choice from the environment.

Names, classes and key variables come from the provider table
(:mod:`selectools.providers._specs`). ``auto`` picks the first provider whose key
is set (OpenAI, then Anthropic, then Gemini) and the offline ``local`` provider
when none is, so a template runs without any key.
"""

from __future__ import annotations

import importlib
from typing import Any

from .._env import env_value
from .._install import install_hint
from ..providers._specs import SPECS

__all__ = ["AUTO_ORDER", "auto_provider_name", "make_provider"]

#: the providers ``auto`` tries, in the order the docs give
AUTO_ORDER = ("openai", "anthropic", "gemini")
#: the names a config may use
CONFIG_PROVIDERS = ("openai", "anthropic", "gemini", "ollama", "local", "auto")


def auto_provider_name() -> str:
    """The first provider whose key is set in the environment (or a ``.env``), else ``local``."""
    for name in AUTO_ORDER:
        if env_value(*SPECS[name].key_env):
            return name
    return "local"


def make_provider(name: str) -> Any:
    """A provider object for a config name; raises ValueError naming the choices."""
    if name == "auto":
        name = auto_provider_name()
    spec = SPECS.get(name)
    if spec is None or name not in CONFIG_PROVIDERS:
        raise ValueError(f"provider must be one of {', '.join(CONFIG_PROVIDERS)}; got {name!r}")
    if spec.key_env and not env_value(*spec.key_env):
        raise ValueError(
            f"provider {name!r} needs {' or '.join(spec.key_env)} in the environment; "
            "set it, or use provider: local (offline) or provider: auto"
        )
    module = importlib.import_module(spec.import_path)
    try:
        return getattr(module, spec.class_name)()
    except ImportError as exc:
        raise ValueError(
            f"provider {name!r} needs its SDK: {install_hint(spec.extra)} ({exc})"
        ) from exc
