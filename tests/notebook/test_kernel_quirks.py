"""The kernel quirks live in one module, and the notebook modules use it by public names.

``selectools/notebook/_kernel.py`` is the one place that reaches into IPython or
ipykernel internals (shell lookup, the headless rule, subshell routing, ui-poll).
These checks read the package's source, so a second copy of a quirk, or a module
importing another one's private name, fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "selectools" / "notebook"

#: names and attributes only the kernel module may touch
KERNEL_INTERNALS = (
    "get_ipython",
    "_reply_subshell_for",
    "_supports_kernel_subshells",
    "shell_channel_thread",
    "_create_subshell",
    "jupyter_ui_poll",
    "get_parent",
)


def _sources() -> list[Path]:
    return sorted(p for p in NOTEBOOK.glob("*.py") if p.name != "_kernel.py")


def _touches(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in KERNEL_INTERNALS:
            found.add(node.attr)
        elif isinstance(node, ast.Name) and node.id in KERNEL_INTERNALS:
            found.add(node.id)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module.split(".")[0] in KERNEL_INTERNALS:
                found.add(module)
            found.update(a.name for a in node.names if a.name in KERNEL_INTERNALS)
    return found


@pytest.mark.parametrize("path", _sources(), ids=lambda p: p.name)
def test_only_the_kernel_module_touches_ipython_internals(path: Path) -> None:
    assert _touches(ast.parse(path.read_text())) == set()


def test_no_notebook_module_imports_another_ones_private_name() -> None:
    """Names one notebook module takes from another are public in the package."""
    private = []
    for path in sorted(NOTEBOOK.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                private += [
                    f"{path.name}:{node.lineno} {a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert private == []


def test_the_kernel_quirks_answer_outside_a_kernel() -> None:
    """Outside a kernel (this test process) every quirk says so instead of failing."""
    from selectools.notebook import _kernel

    assert _kernel.kernel_shell() is None
    assert _kernel.ui_poll() is None
    assert _kernel.route_to_subshell(object()) is False
    assert _kernel.watched(object()) is True
