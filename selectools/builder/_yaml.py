"""A workflow as YAML, and back: ``yaml.safe_load`` only, every error pointing at its line."""

from __future__ import annotations

from typing import Any

from ._document import WorkflowError, validate

__all__ = ["from_yaml", "to_yaml"]

#: a YAML text larger than this is refused before parsing (a document has ≤ 200 nodes)
MAX_YAML_CHARS = 2_000_000
_LINE_BREAKS = ("\x85", "\u2028", "\u2029")


def to_yaml(doc: dict[str, Any]) -> str:
    """The document as YAML, keys in their order (everything kept: positions, notes, run state)."""
    yaml = _pyyaml()

    # PyYAML writes NEL and the Unicode line separators raw, then reads them as line breaks
    raw = not _has_line_breaks(doc)
    return str(yaml.safe_dump(doc, sort_keys=False, allow_unicode=raw, width=100))


def _pyyaml() -> Any:
    """PyYAML, or an ImportError that says which extra brings it."""
    try:
        import yaml
    except ImportError:
        from .._install import install_hint

        raise ImportError(
            f"workflows in YAML (and the templates) need PyYAML: {install_hint('serve')}"
        ) from None
    return yaml


def _has_line_breaks(value: Any) -> bool:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if any(ch in item for ch in _LINE_BREAKS):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def _node_lines(text: str) -> dict[str, int]:
    """Node id → the line its entry starts on (1-based), for pointing at a bad node."""
    yaml = _pyyaml()

    lines: dict[str, int] = {}
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return lines
    if not isinstance(root, yaml.MappingNode):
        return lines
    for key, value in root.value:
        if key.value == "nodes" and isinstance(value, yaml.SequenceNode):
            for item in value.value:
                if isinstance(item, yaml.MappingNode):
                    for k, v in item.value:
                        if k.value == "id" and isinstance(v, yaml.ScalarNode):
                            lines.setdefault(str(v.value), item.start_mark.line + 1)
    return lines


def from_yaml(text: str) -> dict[str, Any]:
    """A checked workflow from YAML; :class:`WorkflowError` (with ``line``) when it is not one."""
    yaml = _pyyaml()

    if len(text) > MAX_YAML_CHARS:
        raise WorkflowError(f"the YAML is {len(text)} characters; at most {MAX_YAML_CHARS}")
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):  # a few aliases can expand to gigabytes
                line = event.start_mark.line + 1
                raise WorkflowError(
                    f"line {line}: YAML aliases (*name) are not accepted in a workflow", line=line
                )
        doc = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        what = exc.problem or "not valid YAML"
        raise WorkflowError(f"line {line}: {what}", line=line) from None
    except yaml.YAMLError as exc:
        raise WorkflowError(f"not valid YAML ({exc})") from None
    except RecursionError:
        raise WorkflowError("the YAML nests too deeply") from None
    if not isinstance(doc, dict):
        raise WorkflowError(
            "the YAML is not a workflow: expected a mapping with nodes and edges", line=1
        )
    try:
        return validate(doc)
    except WorkflowError as exc:
        exc.line = _node_lines(text).get(exc.node or "")
        raise
