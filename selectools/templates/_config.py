"""Agent configs: a dict (or YAML file) of AgentConfig fields, tools and a provider.

The documented schema: top-level ``provider``, ``model``, ``temperature``,
``max_tokens``, ``max_iterations`` (default 10), ``system_prompt``, ``verbose``,
``stream``, ``reasoning_strategy`` and any other plain AgentConfig field; the
sections ``tools`` (dotted import paths or ``./file.py`` paths, relative to the
YAML file and never outside its directory), ``retry: {max_retries}``,
``budget: {max_cost_usd, max_tokens}``, ``coherence: {enabled}``,
``compress: {enabled, threshold}`` and ``trace: {enabled}``.

Every mistake raises :class:`TemplateConfigError` naming the file, the line
and what was expected; nothing is half-applied.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._install import install_hint
from ._errors import TemplateConfigError
from ._providers import make_provider

if TYPE_CHECKING:
    from ..agent.core import Agent

__all__ = ["from_dict", "from_yaml", "load_tools"]

_SCALARS: dict[str, tuple[type, ...]] = {
    "model": (str,),
    "temperature": (int, float),
    "max_tokens": (int,),
    "max_iterations": (int,),
    "system_prompt": (str,),
    "verbose": (bool,),
    "stream": (bool,),
    "reasoning_strategy": (str,),
    "name": (str,),
    "max_retries": (int,),
    "retry_backoff_seconds": (int, float),
    "request_timeout": (int, float),
    "tool_timeout_seconds": (int, float),
    "run_timeout": (int, float),
    "max_retry_after_seconds": (int, float),
    "max_cost_usd": (int, float),
    "max_total_tokens": (int,),
    "cost_warning_threshold": (int, float),
    "coherence_check": (bool,),
    "screen_tool_output": (bool,),
    "parallel_tool_execution": (bool,),
    "enable_analytics": (bool,),
    "summarize_on_trim": (bool,),
}
# section -> {key: (AgentConfig field or None when it needs no field, types)}
_SECTIONS: dict[str, dict[str, tuple[str | None, tuple[type, ...]]]] = {
    "retry": {
        "max_retries": ("max_retries", (int,)),
        "backoff_seconds": ("retry_backoff_seconds", (int, float)),
    },
    "budget": {
        "max_cost_usd": ("max_cost_usd", (int, float)),
        "max_tokens": ("max_total_tokens", (int,)),
        "warning_usd": ("cost_warning_threshold", (int, float)),
    },
    "coherence": {"enabled": ("coherence_check", (bool,)), "model": ("coherence_model", (str,))},
    "compress": {"enabled": (None, (bool,)), "threshold": (None, (int,))},
    "trace": {"enabled": (None, (bool,))},
}
_TOP = {"provider", "tools", *_SCALARS, *_SECTIONS}


def _type_names(types: tuple[type, ...]) -> str:
    if set(types) == {int, float}:
        return "a number"
    names = {bool: "true/false", int: "an integer", float: "a number", str: "a string"}
    return " or ".join(names.get(t, t.__name__) for t in types)


def _check_type(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool) and bool not in types:
        return False
    return isinstance(value, types)


class _Where:
    """Line numbers of a YAML document's keys (``key`` or ``section.key``)."""

    def __init__(self, path: str | None = None, lines: dict[str, int] | None = None) -> None:
        self.path = path
        self.lines = lines or {}

    def error(self, key: str, message: str) -> TemplateConfigError:
        line = self.lines.get(key)
        if line is None and "." in key:
            line = self.lines.get(key.split(".")[0])
        return TemplateConfigError(message, path=self.path, line=line)


def _tool_objects(module: Any) -> list[Any]:
    from ..tools import Tool

    return [v for n, v in vars(module).items() if isinstance(v, Tool) and not n.startswith("_")]


def _load_file(spec: str, base: Path, where: _Where, key: str) -> list[Any]:
    root = base.resolve()
    target = (root / spec).resolve()
    if target != root and root not in target.parents:
        raise where.error(
            key,
            f"tool file {spec!r} is outside the config's directory {root}; keep tools beside it",
        )
    if not target.is_file():
        raise where.error(key, f"tool file {spec!r} not found (looked for {target})")
    name = f"_selectools_tools_{abs(hash(str(target)))}"
    module_spec = importlib.util.spec_from_file_location(name, target)
    assert module_spec is not None
    assert module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(name, None)
        raise where.error(key, f"tool file {spec!r} failed to import: {exc!r}") from exc
    found = _tool_objects(module)
    if not found:
        raise where.error(key, f"tool file {spec!r} defines no @tool functions")
    return found


def _load_dotted(spec: str, where: _Where, key: str) -> list[Any]:
    from ..tools import Tool

    module_name, _, attr = spec.rpartition(".")
    if not module_name:
        raise where.error(
            key, f"tool {spec!r}: expected a dotted path (package.module.tool) or ./file.py"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise where.error(key, f"tool {spec!r}: cannot import {module_name} ({exc})") from exc
    value = getattr(module, attr, None)
    if value is None:
        raise where.error(key, f"tool {spec!r}: {module_name} has no {attr!r}")
    if isinstance(value, Tool):
        return [value]
    if callable(value) and hasattr(value, "name") and hasattr(value, "schema"):
        return [value]  # any ToolLike
    raise where.error(key, f"tool {spec!r} is a {type(value).__name__}, not a @tool")


def load_tools(specs: Any, base: Path, where: _Where | None = None) -> list[Any]:
    """Resolve a config's ``tools`` list (dotted paths and ``./file.py`` paths)."""
    where = where or _Where()
    if specs is None:
        return []
    if not isinstance(specs, list):
        raise where.error("tools", "tools must be a list of dotted paths or ./file.py paths")
    tools: list[Any] = []
    for i, spec in enumerate(specs):
        key = f"tools.{i}"
        if not isinstance(spec, str) or not spec.strip():
            raise where.error(key, f"tools[{i}] must be a string, got {spec!r}")
        if spec.endswith(".py") or spec.startswith((".", "/")):
            tools.extend(_load_file(spec, base, where, key))
        else:
            tools.extend(_load_dotted(spec, where, key))
    return tools


def _config_kwargs(config: dict[str, Any], where: _Where) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"max_iterations": 10, "system_prompt": ""}
    for key, value in config.items():
        if key in ("provider", "tools"):
            continue
        if key in _SCALARS:
            if value is None:
                continue
            if not _check_type(value, _SCALARS[key]):
                raise where.error(key, f"{key} must be {_type_names(_SCALARS[key])}, got {value!r}")
            kwargs[key] = value
            continue
        section = _SECTIONS[key]
        if value is None:
            continue
        if not isinstance(value, dict):
            raise where.error(key, f"{key} must be a mapping with keys {', '.join(section)}")
        for sub, sub_value in value.items():
            if sub not in section:
                raise where.error(
                    f"{key}.{sub}", f"unknown key {key}.{sub}; expected one of {', '.join(section)}"
                )
            field, types = section[sub]
            if not _check_type(sub_value, types):
                raise where.error(
                    f"{key}.{sub}", f"{key}.{sub} must be {_type_names(types)}, got {sub_value!r}"
                )
            if field is not None:
                kwargs[field] = sub_value
        if key == "compress" and value.get("enabled"):
            warnings.warn(
                "compress: prompt compression is not available in this selectools version; "
                "the section is accepted and has no effect",
                UserWarning,
                stacklevel=4,
            )
    return kwargs


def build_agent(
    config: Any,
    provider: Any = None,
    *,
    base: Path | None = None,
    where: _Where | None = None,
) -> Agent:
    from ..agent.config import AgentConfig
    from ..agent.core import Agent

    where = where or _Where()
    if not isinstance(config, dict):
        raise where.error(
            "", f"the config must be a mapping of settings, got {type(config).__name__}"
        )
    unknown = [k for k in config if k not in _TOP]
    if unknown:
        known = sorted(_TOP)
        raise where.error(
            str(unknown[0]),
            f"unknown setting {unknown[0]!r}; expected one of: {', '.join(known)}",
        )
    if provider is None:
        name = config.get("provider", "openai")
        if not isinstance(name, str):
            raise where.error("provider", f"provider must be a string, got {name!r}")
        try:
            provider = make_provider(name)
        except ValueError as exc:
            raise where.error("provider", str(exc)) from None
    kwargs = _config_kwargs(config, where)
    tools = load_tools(config.get("tools"), base or Path.cwd(), where)
    try:
        agent_config = AgentConfig(**kwargs)
    except (TypeError, ValueError) as exc:
        raise where.error("", f"invalid agent settings: {exc}") from None
    return Agent(tools=tools, provider=provider, config=agent_config)


def from_dict(config: dict[str, Any], provider: Any = None) -> Agent:
    """An Agent from a config dict (the YAML schema); ``provider`` overrides ``config["provider"]``.

    Relative tool files resolve against the working directory.
    """
    return build_agent(config, provider)


def _key_lines(node: Any, prefix: str = "") -> dict[str, int]:
    import yaml

    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = f"{prefix}{key_node.value}"
            lines[key] = key_node.start_mark.line + 1
            lines.update(_key_lines(value_node, key + "."))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            lines[f"{prefix}{i}"] = item.start_mark.line + 1
    return lines


def from_yaml(path: str | Path, provider: Any = None) -> Agent:
    """An Agent from a YAML config file; ``provider`` overrides the file's ``provider``."""
    try:
        import yaml
    except ImportError as exc:
        raise ImportError(
            f"from_yaml needs PyYAML: pip install pyyaml (or {install_hint('serve')})"
        ) from exc
    file = Path(path)
    shown = str(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TemplateConfigError("config file not found", path=shown) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TemplateConfigError(f"cannot read the config file ({exc})", path=shown) from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise TemplateConfigError(
            f"not valid YAML: {exc.problem or exc.context}", path=shown, line=line
        ) from None
    if data is None:
        raise TemplateConfigError(
            "the file is empty; expected a mapping such as 'provider: local'", path=shown, line=1
        )
    where = _Where(shown, _key_lines(node))
    if not isinstance(data, dict):
        raise where.error(
            "", f"expected a mapping of settings at the top, got a {type(data).__name__}"
        )
    return build_agent(data, provider, base=file.parent, where=where)
