"""Memory is one package, and every documented import path still gives the same objects.

``selectools.memory`` holds the conversation, entity, knowledge-graph and knowledge memory and
the session stores; the paths the docs and the seed pages use (``selectools.entity_memory``,
``selectools.knowledge``, ``selectools.knowledge_graph``, ``selectools.sessions``,
``from selectools.memory import ConversationMemory``, the front door) re-export from it.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import selectools
import selectools.memory

ROOT = Path(__file__).resolve().parents[2]

#: documented path -> where it lives now
MOVED = {
    "selectools.entity_memory": "selectools.memory.entity",
    "selectools.knowledge": "selectools.memory.knowledge",
    "selectools.knowledge_graph": "selectools.memory.knowledge_graph",
    "selectools.sessions": "selectools.memory.sessions",
}


@pytest.mark.parametrize(("old", "new"), MOVED.items())
def test_every_name_of_a_documented_path_is_the_object_in_the_package(old, new) -> None:
    before, after = importlib.import_module(old), importlib.import_module(new)
    assert set(before.__all__) == set(after.__all__)
    for name in before.__all__:
        assert getattr(before, name) is getattr(after, name), f"{old}.{name}"


def test_the_package_and_the_front_door_give_the_same_classes() -> None:
    from selectools.memory.conversation import ConversationMemory, Memory

    assert (
        selectools.memory.ConversationMemory is ConversationMemory is selectools.ConversationMemory
    )
    assert selectools.memory.Memory is Memory
    for name in selectools.memory.__all__:
        value = getattr(selectools.memory, name)
        if name in selectools.__all__:
            assert getattr(selectools, name) is value, name


def test_importing_the_package_loads_no_memory_kind() -> None:
    """Names load on first use: ``import selectools.memory`` costs a lazy table, nothing more."""
    script = (
        "import sys, json, selectools.memory\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('selectools.memory'))))"
    )
    output = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    ).stdout
    assert json.loads(output.splitlines()[-1]) == ["selectools.memory"]


def test_the_library_itself_imports_the_package_not_the_old_paths() -> None:
    """The old paths are for users; inside selectools every import names the real module."""
    import ast

    shims = {*MOVED, "selectools.cache_redis"}
    package = ROOT / "selectools"
    found = []
    for path in package.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if module in shims:
            continue
        where = ".".join(parts[:-1])  # the package a relative import starts from
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = where.split(".")[: len(where.split(".")) - node.level + 1]
                name = node.module or ""
                target = ".".join([*base, name]) if node.level else name
                if target in shims or any(f"{target}.{a.name}" in shims for a in node.names):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {target}")
            elif isinstance(node, ast.Import):
                found += [
                    f"{path.relative_to(ROOT)}:{node.lineno}" for a in node.names if a.name in shims
                ]
    assert found == []
