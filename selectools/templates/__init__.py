"""Agents without Python: YAML/dict configs and five built-in templates.

``from_yaml("agent.yaml")`` / ``from_dict({...})`` build an agent from the
documented config schema; ``load_template(name, provider=...)`` builds one of
:func:`list_templates` (``code_reviewer``, ``customer_support``,
``data_analyst``, ``rag_chatbot``, ``research_assistant``), whose ``**overrides``
are AgentConfig fields or the template's own options. A custom template is a
module with ``build(provider, **overrides) -> Agent``.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._config import from_dict, from_yaml
from ._errors import TemplateConfigError
from ._providers import auto_provider_name, make_provider

__all__ = [
    "TemplateConfigError",
    "auto_provider_name",
    "from_dict",
    "from_yaml",
    "list_templates",
    "load_template",
    "make_provider",
]

_TEMPLATES = (
    "code_reviewer",
    "customer_support",
    "data_analyst",
    "rag_chatbot",
    "research_assistant",
)


def list_templates() -> list[str]:
    """The built-in template names, sorted."""
    return sorted(_TEMPLATES)


def load_template(name: str, provider: Any, **overrides: Any) -> Any:
    """A built-in template as an Agent; ``overrides`` set AgentConfig fields or template options."""
    if name not in _TEMPLATES:
        import difflib

        close = difflib.get_close_matches(name, _TEMPLATES, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise TemplateConfigError(
            f"no template {name!r}{hint}; built-in templates: {', '.join(list_templates())}"
        )
    module = importlib.import_module(f"{__name__}.{name}")
    return module.build(provider, **overrides)
