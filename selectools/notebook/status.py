"""What ``%selectools`` shows: version, provider and model in use, keys found, tools."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._version import __version__
from .._view import _html as h
from .providers import PROVIDERS, auto_provider, keys_found
from .state import NotebookState

__all__ = ["Status", "describe_provider", "status"]


@dataclass(frozen=True)
class Status:
    """A snapshot of the notebook's selectools settings (key values are never included)."""

    version: str
    provider: str
    model: str
    display: str
    keys: tuple[tuple[str, bool], ...]
    tools: tuple[str, ...]
    mcp: tuple[str, ...] = ()
    #: the ``budget`` setting (shown only when set)
    budget: float | None = None

    def _rows(self) -> list[tuple[str, str]]:
        keys = ", ".join(f"{name} {'set' if found else 'not set'}" for name, found in self.keys)
        mcp = [("MCP servers", ", ".join(self.mcp))] if self.mcp else []
        budget = [("budget", f"${self.budget:g} per %%agent run")] if self.budget else []
        return [
            ("provider", self.provider),
            ("model", self.model),
            ("display", self.display),
            *budget,
            ("API keys", keys),
            ("notebook tools", ", ".join(self.tools) or "none (define them with %%tool)"),
            *mcp,
        ]

    def __repr__(self) -> str:
        lines = [f"selectools {self.version}"]
        lines += [f"  {label}: {value}" for label, value in self._rows()]
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        rows = [[h.esc(label), h.esc(value)] for label, value in self._rows()]
        html = h.box(
            f"<div>{h.badge('selectools', 'info')} {h.esc(self.version)}</div>"
            + h.table(["setting", ""], rows),
            "status",
            "info",
        )
        return {"text/plain": repr(self), "text/html": html}


def describe_provider(spec: str, namespace: Mapping[str, Any], env: Mapping[str, str]) -> str:
    """``spec`` in words, with what stands in its way (a missing key or class)."""
    if spec == "auto":
        chosen = auto_provider(env)
        why = " (offline: no API key found)" if chosen == "local" else ""
        return f"auto → {chosen}{why}"
    choice = PROVIDERS.get(spec)
    if choice is None:
        return f"{spec} ({type(namespace.get(spec)).__name__} variable)"
    if choice.offline:
        return f"{spec} (offline)"
    if choice.env_vars and not any(env.get(var) for var in choice.env_vars):
        return f"{spec} (needs {' or '.join(choice.env_vars)})"
    return spec


def status(
    state: NotebookState, namespace: Mapping[str, Any], env: Mapping[str, str], frontend: str
) -> Status:
    display = state.display if state.display != "auto" else f"auto ({frontend})"
    return Status(
        version=__version__,
        provider=describe_provider(state.provider, namespace, env),
        model=state.model or "the provider's default",
        display=display,
        keys=tuple(keys_found(env).items()),
        tools=tuple(state.tools),
        mcp=tuple(state.mcp),
        budget=state.settings.budget,
    )
