"""The import direction of the package, checked statically.

The core (everything outside ``selectools/notebook/``) must not depend on the
Jupyter layer: it never imports ``selectools.notebook``, IPython, ipykernel,
ipywidgets or anywidget, not even inside a function, and it imports pandas and
plotly only inside the functions that need them (a ``TYPE_CHECKING`` block is
fine: it never runs). The one exception is the ``%load_ext selectools`` entry
points in ``selectools/__init__.py``, which hand over to the notebook package.

``tests/test_import.py`` checks the same promise at runtime for the common
paths; this test catches the imports those paths do not reach.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "selectools"

#: never imported outside selectools/notebook/, at any level
NOTEBOOK_ONLY = ("selectools.notebook", "IPython", "ipykernel", "ipywidgets", "anywidget")
#: imported outside selectools/notebook/ only inside functions
FUNCTION_LEVEL_ONLY = ("pandas", "plotly")
#: (module, function) pairs allowed to import the notebook package
ENTRY_POINTS = {
    ("selectools", "load_ipython_extension"),
    ("selectools", "unload_ipython_extension"),
}
_IMPORT_CALLS = {"import_module", "__import__"}


@dataclass(frozen=True)
class Violation:
    path: str
    line: int
    imported: str
    rule: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} imports {self.imported} ({self.rule})"


def _matches(name: str, roots: tuple[str, ...]) -> bool:
    return any(name == root or name.startswith(root + ".") for root in roots)


def _module_name(path: Path, root: Path) -> tuple[str, str]:
    """``(module, package)`` of a file under ``root`` (the directory named after the package)."""
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


def _resolve(name: str | None, level: int, package: str) -> str:
    if level == 0:
        return name or ""
    base = package.split(".")
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, name] if name else base)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class _Imports(ast.NodeVisitor):
    """Collects ``(line, module, function or None, under TYPE_CHECKING)`` for every import."""

    def __init__(self, package: str) -> None:
        self.package = package
        self.found: list[tuple[int, str, str | None, bool]] = []
        self._function: str | None = None
        self._type_checking = False

    def _add(self, line: int, name: str) -> None:
        self.found.append((line, name, self._function, self._type_checking))

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        outer = self._function
        self._function = outer or getattr(node, "name", "<lambda>")
        self.generic_visit(node)
        self._function = outer

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _visit_function

    def visit_If(self, node: ast.If) -> None:
        if not _is_type_checking(node.test):
            self.generic_visit(node)
            return
        outer, self._type_checking = self._type_checking, True
        for child in node.body:
            self.visit(child)
        self._type_checking = outer
        for child in node.orelse:
            self.visit(child)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(node.lineno, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = _resolve(node.module, node.level, self.package)
        self._add(node.lineno, module)
        for alias in node.names:  # ``from selectools import notebook`` names a module too
            self._add(node.lineno, f"{module}.{alias.name}")

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if called in _IMPORT_CALLS and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                name = first.value
                if name.startswith("."):
                    level = len(name) - len(name.lstrip("."))
                    name = _resolve(name[level:] or None, level, self.package)
                self._add(node.lineno, name)
        self.generic_visit(node)


def violations(root: Path) -> list[Violation]:
    """Every import in the package at ``root`` that breaks the layering rules."""
    found: list[Violation] = []
    notebook = root / "notebook"
    for path in sorted(root.rglob("*.py")):
        if notebook in path.parents:
            continue
        module, package = _module_name(path, root)
        visitor = _Imports(package)
        visitor.visit(ast.parse(path.read_text(), filename=str(path)))
        shown = str(path.relative_to(root.parent))
        for line, name, function, type_checking in visitor.found:
            if found and (found[-1].path, found[-1].line) == (shown, line):
                continue  # one report per import statement
            if _matches(name, NOTEBOOK_ONLY) and (module, function) not in ENTRY_POINTS:
                found.append(
                    Violation(shown, line, name, "notebook stack outside selectools/notebook/")
                )
            elif _matches(name, FUNCTION_LEVEL_ONLY) and function is None and not type_checking:
                found.append(
                    Violation(shown, line, name, "module-level import of an optional extra")
                )
    return found


def test_the_core_never_imports_the_notebook_stack():
    assert [str(v) for v in violations(PACKAGE)] == []


def test_the_view_package_is_core_code():
    """The renderers and charts sit outside notebook/, so the rule above covers them."""
    assert (PACKAGE / "_view" / "render.py").exists()
    assert (PACKAGE / "_view" / "charts.py").exists()
    assert not (PACKAGE / "notebook" / "render.py").exists()


# -- the checker itself catches what it should ----------------------------------------------------


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "selectools"
    for name, text in {"__init__.py": "", "notebook/__init__.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.mark.parametrize(
    "source",
    [
        "import IPython\n",
        "def f():\n    from IPython.display import display\n",
        "from .notebook import run_live\n",
        "from . import notebook\n",
        "def f():\n    from .notebook.live import LiveRun\n",
        "import ipykernel\n",
        "class A:\n    def f(self):\n        import anywidget\n",
        "from ipywidgets import HTML\n",
        "import pandas\n",
        "import plotly.graph_objects as go\n",
        "try:\n    import pandas\nexcept ImportError:\n    pandas = None\n",
        "class A:\n    import plotly\n",
        "import importlib\ndef f():\n    importlib.import_module('selectools.notebook.magics')\n",
    ],
)
def test_a_planted_violation_is_reported(tmp_path, source):
    root = _package(tmp_path, {"trace.py": source})
    assert [v.path for v in violations(root)] == ["selectools/trace.py"]


def test_a_nested_relative_import_is_resolved(tmp_path):
    root = _package(tmp_path, {"agent/core.py": "from ..notebook import magics\n"})
    assert [v.imported for v in violations(root)] == ["selectools.notebook"]


@pytest.mark.parametrize(
    "source",
    [
        "def f():\n    import pandas\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import plotly.graph_objects\n",
        "import pandasql\n",
        "from .notebooks import x\n",
        "def load_ipython_extension(ip):\n    from .notebook import load_ipython_extension\n",
    ],
)
def test_allowed_imports_are_not_reported(tmp_path, source):
    root = _package(tmp_path, {"__init__.py": source})
    assert violations(root) == []


def test_the_entry_point_exception_is_only_for_the_package_root(tmp_path):
    source = "def load_ipython_extension(ip):\n    from ..notebook import load_ipython_extension\n"
    root = _package(tmp_path, {"agent/__init__.py": source})
    assert [v.line for v in violations(root)] == [2]
