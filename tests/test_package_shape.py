"""The package's shape, checked statically: long modules say why, and one module drives generators.

- A module longer than ``LONG`` lines carries a paragraph starting "Why this
  module is long" in its docstring (a long module is a question worth answering
  where the reader meets it).
- Effect programs (generators that yield effects and are sent the outcomes)
  are stepped only by ``selectools/_driver.py``: no other module throws into a
  generator or steps an async one by hand, so the technique is written once.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "selectools"
LONG = 600
REASON = "Why this module is long"
#: the generator-stepping calls only the driver makes
STEPPING = {"throw", "athrow", "asend"}


def long_modules_without_a_reason(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text()
        lines = text.count("\n")
        if lines > LONG and REASON not in (ast.get_docstring(ast.parse(text)) or ""):
            found.append(f"{path.relative_to(root)}: {lines} lines")
    return found


def generator_stepping_outside_the_driver(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.relative_to(root) == Path("_driver.py"):
            continue
        calls = [
            node
            for node in ast.walk(ast.parse(path.read_text(), filename=str(path)))
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in STEPPING
        ]
        for call in sorted(calls, key=lambda c: c.lineno):
            assert isinstance(call.func, ast.Attribute)
            found.append(f"{path.relative_to(root)}:{call.lineno} .{call.func.attr}()")
    return found


def test_every_long_module_says_why_in_its_docstring():
    assert long_modules_without_a_reason(PACKAGE) == []


def test_a_long_module_without_a_reason_is_reported(tmp_path):
    body = "x = 1\n" * (LONG + 1)
    (tmp_path / "plain.py").write_text('"""A module."""\n' + body)
    (tmp_path / "explained.py").write_text(f'"""A module.\n\n{REASON}: a table."""\n' + body)
    (tmp_path / "short.py").write_text('"""A module."""\nx = 1\n')
    assert [entry.split(":")[0] for entry in long_modules_without_a_reason(tmp_path)] == [
        "plain.py"
    ]


def test_only_the_driver_steps_generators():
    assert generator_stepping_outside_the_driver(PACKAGE) == []


def test_stepping_a_generator_by_hand_is_reported(tmp_path):
    (tmp_path / "_driver.py").write_text("def drive(g, e):\n    return g.throw(e)\n")
    (tmp_path / "engine.py").write_text(
        "async def step(g, v):\n    return await g.asend(v)\n\ndef fail(g, e):\n    g.throw(e)\n"
    )
    assert generator_stepping_outside_the_driver(tmp_path) == [
        "engine.py:2 .asend()",
        "engine.py:5 .throw()",
    ]
