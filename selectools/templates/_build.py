"""What every built-in template does with its overrides: the custom-template convention."""

from __future__ import annotations

from typing import Any

from ._errors import TemplateConfigError

__all__ = ["build_template"]


def build_template(
    name: str,
    provider: Any,
    tools: list[Any],
    system_prompt: str,
    overrides: dict[str, Any],
    *,
    max_iterations: int,
    model: str = "gpt-4o-mini",
) -> Any:
    """``Agent(provider, tools, AgentConfig(model, max_iterations, system_prompt, **overrides))``."""
    from ..agent.config import AgentConfig
    from ..agent.core import Agent

    kwargs = {
        "name": name,
        "model": overrides.pop("model", model),
        "max_iterations": overrides.pop("max_iterations", max_iterations),
        "system_prompt": overrides.pop("system_prompt", system_prompt),
        **overrides,
    }
    try:
        config = AgentConfig(**kwargs)
    except TypeError as exc:
        raise TemplateConfigError(f"template {name!r}: {exc}") from None
    return Agent(tools=tools, provider=provider, config=config)
