"""Providers by name for the magics: which keys are set, which provider to use, building it.

The names, classes and key variables come from the provider table
(:mod:`selectools.providers._specs`); classes are imported only when a provider
is built, so this module imports no SDK. A provider spec is a registered name
(``openai``, ``anthropic``, ``gemini``, ``ollama``, ``local``, ``scripted``, ...),
``auto``, or the name of a notebook variable holding a provider object. Keys are reported as set or not,
never shown.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._install import install_hint
from .._view._components import error_line
from ..exceptions import SelectoolsError
from ..providers._adapt import is_provider
from ..providers._specs import PROVIDER_SPECS
from .errors import NotebookUsageError

__all__ = [
    "PROVIDERS",
    "ProviderChoice",
    "auto_provider",
    "build_provider",
    "keys_found",
    "provider_variables",
]


@dataclass(frozen=True)
class ProviderChoice:
    """A provider the magics know by name."""

    name: str
    class_name: str
    env_vars: tuple[str, ...] = ()
    extra: str = ""
    offline: bool = False


PROVIDERS: dict[str, ProviderChoice] = {
    spec.name: ProviderChoice(spec.name, spec.class_name, spec.key_env, spec.extra, spec.offline)
    for spec in PROVIDER_SPECS
}
PROVIDERS["scripted"] = ProviderChoice("scripted", "ScriptedProvider", offline=True)
#: the providers ``auto`` tries, in order, before falling back to ``local``
_AUTO_ORDER = ("openai", "anthropic", "gemini")


def keys_found(environ: Mapping[str, str] | None = None) -> dict[str, bool]:
    """Every API-key variable the providers read, and whether it is set (never its value)."""
    env = os.environ if environ is None else environ
    return {var: bool(env.get(var)) for c in PROVIDERS.values() for var in c.env_vars}


def _has_key(choice: ProviderChoice, env: Mapping[str, str]) -> bool:
    return not choice.env_vars or any(env.get(var) for var in choice.env_vars)


def auto_provider(environ: Mapping[str, str] | None = None) -> str:
    """The first provider with a key set; ``local`` when none."""
    env = os.environ if environ is None else environ
    for name in _AUTO_ORDER:
        choice = PROVIDERS[name]
        if choice.env_vars and _has_key(choice, env):
            return name
    return "local"


def provider_variables(namespace: Mapping[str, Any]) -> list[str]:
    """Names of notebook variables holding provider objects."""
    return sorted(
        name for name, value in namespace.items() if not name.startswith("_") and is_provider(value)
    )


def _scripted(namespace: Mapping[str, Any]) -> Any:
    from ..testing import ScriptedProvider

    found = sorted(n for n, v in namespace.items() if isinstance(v, ScriptedProvider))
    if len(found) == 1:
        return namespace[found[0]]
    if not found:
        raise NotebookUsageError(
            "provider 'scripted' needs a ScriptedProvider in the notebook: create one "
            "(demo = ScriptedProvider([...])) or pass its variable name instead"
        )
    raise NotebookUsageError(
        f"provider 'scripted' is ambiguous: the notebook has {', '.join(found)}; "
        "pass one of those variable names instead"
    )


def _network(choice: ProviderChoice, env: Mapping[str, str]) -> Any:
    if not _has_key(choice, env):
        keys = " or ".join(choice.env_vars)
        raise NotebookUsageError(
            f"provider '{choice.name}' needs {keys}; set it in the environment "
            f"(os.environ['{choice.env_vars[0]}'] = ...) or use provider=local offline"
        )
    import selectools

    try:
        return getattr(selectools, choice.class_name)()
    except ImportError as exc:
        raise NotebookUsageError(
            f"provider '{choice.name}' needs an SDK that is not installed ({exc.name or exc}): "
            f"{install_hint(choice.extra)}"
        ) from exc
    except SelectoolsError as exc:
        raise NotebookUsageError(
            f"provider '{choice.name}' could not start: {error_line(exc)}"
        ) from exc


def build_provider(
    spec: str | None, namespace: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> Any:
    """A provider object for ``spec`` (a name, ``auto``/``None``, or a notebook variable)."""
    env = os.environ if environ is None else environ
    name = auto_provider(env) if spec in (None, "", "auto") else str(spec)
    choice = PROVIDERS.get(name)
    if choice is not None:
        if name == "local":
            from ..providers.stubs import LocalProvider

            return LocalProvider()
        if name == "scripted":
            return _scripted(namespace)
        return _network(choice, env)
    if name in namespace:
        value = namespace[name]
        if not is_provider(value):
            raise NotebookUsageError(
                f"'{name}' is a {type(value).__name__}, not a provider "
                "(a provider has complete() or acomplete())"
            )
        return value
    known = [*PROVIDERS, *provider_variables(namespace)]
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    raise NotebookUsageError(
        f"unknown provider '{name}'{hint}; use one of {', '.join(PROVIDERS)}, auto, "
        "or the name of a provider variable"
    )
