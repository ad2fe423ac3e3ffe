"""The provider pages' seed examples (examples.toml) and how to run one against a FakeLLMServer.

Each ``[[example]]`` is a verbatim copy of one fenced Python block of the seed
file, with its ``line`` (the block's first code line). An example runs as
written unless it needs names the page leaves to the reader: then a documented
``prelude`` defines them and ``fill`` lists exact replacements of a placeholder
(``tools=[...]``, ``provider.complete(...)``, a hard-coded Azure endpoint).
``script`` holds the fake model's replies (Python expressions over FakeReply,
FakeToolCall, Fault and tool_call); ``stdout`` is text the output must contain;
``check`` asserts afterwards with ``server`` (the FakeLLMServer) in scope. An
example with a ``reason`` cannot be run meaningfully and is kept for provenance.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from selectools.testing import FakeReply, FakeToolCall, Fault, tool_call

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    try:
        import tomli as tomllib
    except ModuleNotFoundError as exc:  # never a silent, empty parametrisation
        raise ModuleNotFoundError(
            "reading the provider examples on Python 3.10 needs tomli "
            "(it is in the [dev] extra): pip install -e '.[dev]'"
        ) from exc

CATALOG = Path(__file__).with_name("examples.toml")
SCRIPT_NAMES = {
    "FakeReply": FakeReply,
    "FakeToolCall": FakeToolCall,
    "Fault": Fault,
    "tool_call": tool_call,
}


def load_examples() -> list[dict[str, Any]]:
    with CATALOG.open("rb") as handle:
        return list(tomllib.load(handle)["example"])


def filled_code(example: dict[str, Any]) -> str:
    code = example["code"]
    for fill in example.get("fill", []):
        if fill["old"] not in code:
            raise AssertionError(f"{example['id']}: fill {fill['old']!r} is not in the example")
        code = code.replace(fill["old"], fill["new"])
    return code


def run_source(source: str, namespace: dict[str, Any], filename: str) -> None:
    exec(compile(source, filename, "exec", dont_inherit=True), namespace)


def script_items(example: dict[str, Any]) -> list[Any]:
    return [eval(expression, dict(SCRIPT_NAMES)) for expression in example.get("script", [])]
