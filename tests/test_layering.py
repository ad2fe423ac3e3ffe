"""The import direction of the package, checked statically.

The core (everything outside ``selectools/notebook/``) must not depend on the
Jupyter layer: it never imports ``selectools.notebook``, IPython, ipykernel,
ipywidgets or anywidget, not even inside a function, and it imports pandas and
plotly only inside the functions that need them (a ``TYPE_CHECKING`` block is
fine: it never runs). The one exception is the ``%load_ext selectools`` entry
points in ``selectools/__init__.py``, which hand over to the notebook package.

The views (``selectools/_view/``) sit above the core too: a core type shows
itself only through the display port (``selectools/_display.py``) and never
imports a view; only the front doors (the package facade, which installs the
view table into the port, and the ``selectools`` console script) and the
notebook package import ``_view``, so no import circle runs through it. Every
displayable type (a ``RichDisplay`` subclass) has a row in the view table with
a ``text`` and an ``html`` renderer, and no core class writes its own
``_repr_html_``/``_repr_mimebundle_``.

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
    ("selectools", "_builder_editor"),  # AgentGraph.edit(): the builder widget
}
_IMPORT_CALLS = {"import_module", "__import__"}
#: the views: imported only by the modules below, by notebook/ and from inside _view/
VIEWS = ("selectools._view",)
#: the front doors allowed to import the views, and why
VIEW_IMPORTERS = {
    "selectools": "the facade installs the view table into the display port",
    "selectools.serve.cli": "the console script's `selectools view FILE` builds a page",
}
#: the one module that defines display hooks for core types
DISPLAY_PORT = "selectools._display"
_DISPLAY_HOOKS = {
    "_repr_html_",
    "_repr_mimebundle_",
    "_repr_markdown_",
    "_repr_svg_",
    "_repr_png_",
    "_repr_latex_",
    "_repr_json_",
    "_ipython_display_",
}


@dataclass(frozen=True)
class Violation:
    path: str
    line: int
    imported: str
    rule: str
    verb: str = "imports"

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.verb} {self.imported} ({self.rule})"


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


def _display_hooks(tree: ast.Module) -> list[tuple[int, str]]:
    """``(line, name)`` of each IPython display method a class defines."""
    return [
        (item.lineno, item.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for item in node.body
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in _DISPLAY_HOOKS
    ]


def violations(root: Path) -> list[Violation]:
    """Every import in the package at ``root`` that breaks the layering rules."""
    found: list[Violation] = []
    notebook = root / "notebook"
    views = root / "_view"
    for path in sorted(root.rglob("*.py")):
        if notebook in path.parents:
            continue
        module, package = _module_name(path, root)
        visitor = _Imports(package)
        tree = ast.parse(path.read_text(), filename=str(path))
        visitor.visit(tree)
        shown = str(path.relative_to(root.parent))
        in_views = views in path.parents
        if not in_views and module != DISPLAY_PORT:
            found.extend(
                Violation(shown, line, hook, "display hook outside the display port", "defines")
                for line, hook in _display_hooks(tree)
            )
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
            elif _matches(name, VIEWS) and not in_views and module not in VIEW_IMPORTERS:
                found.append(
                    Violation(shown, line, name, "the core reaches views only through _display")
                )
    return found


def test_the_core_never_imports_the_notebook_stack():
    assert [str(v) for v in violations(PACKAGE)] == []


def test_the_view_package_is_core_code():
    """The renderers and charts sit outside notebook/, so the rule above covers them."""
    assert (PACKAGE / "_view" / "core.py").exists()
    assert (PACKAGE / "_view" / "charts.py").exists()
    assert not (PACKAGE / "notebook" / "render.py").exists()


def _import_graph(root: Path) -> dict[str, set[str]]:
    """module -> the package's modules it imports, at any level (lazy and TYPE_CHECKING too)."""
    files = {_module_name(path, root)[0]: path for path in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        visitor = _Imports(_module_name(path, root)[1])
        visitor.visit(ast.parse(path.read_text(), filename=str(path)))
        targets = set()
        for _, name, _, _ in visitor.found:
            while name and name not in files:
                name = name.rpartition(".")[0]
            if name and name != module:
                targets.add(name)
        graph[module] = targets
    return graph


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(component)
    return found


def test_no_import_circle_runs_through_the_views():
    through_views = [
        sorted(circle)
        for circle in _circles(_import_graph(PACKAGE))
        if any(_matches(module, VIEWS) for module in circle)
    ]
    assert through_views == []


def test_a_circle_through_the_views_is_found(tmp_path):
    root = _package(
        tmp_path,
        {
            "trace.py": "def f():\n    from ._view import charts\n",
            "_view/charts.py": "from ..trace import f\n",
        },
    )
    assert [sorted(c) for c in _circles(_import_graph(root))] == [
        ["selectools._view.charts", "selectools.trace"]
    ]


def _displayable_types(root: Path) -> list[str]:
    """Qualified names of the classes that inherit ``RichDisplay`` by name."""
    names = []
    for path in sorted(root.rglob("*.py")):
        module = _module_name(path, root)[0]
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ClassDef) and any(
                (isinstance(base, ast.Name) and base.id == "RichDisplay")
                or (isinstance(base, ast.Attribute) and base.attr == "RichDisplay")
                for base in node.bases
            ):
                names.append(f"{module}.{node.name}")
    return names


def test_every_displayable_type_has_a_view_row_with_text_and_html():
    from selectools._view import VIEWS as ROWS, lookup

    displayable = _displayable_types(PACKAGE)
    assert len(displayable) >= 20 and "selectools.trace.TraceStep" in displayable
    assert [name for name in displayable if name not in ROWS] == []
    for name in displayable:
        renderers = lookup(name)
        assert renderers is not None and {"text", "html"} <= set(renderers), name


def test_every_view_row_resolves_to_renderers():
    from selectools._view import VIEWS as ROWS, lookup

    for name in ROWS:
        renderers = lookup(name)
        assert renderers, name
        assert all(callable(renderer) for renderer in renderers.values()), name


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


@pytest.mark.parametrize(
    "source",
    [
        "def f():\n    from ._view.charts import trace_gantt\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ._view import core\n",
        "from . import _view\n",
        "import importlib\ndef f():\n    importlib.import_module('selectools._view.core')\n",
        "class A:\n    def _repr_html_(self):\n        return ''\n",
        "class A:\n    def _repr_mimebundle_(self, **kw):\n        return {}\n",
    ],
)
def test_a_core_module_reaching_a_view_is_reported(tmp_path, source):
    root = _package(tmp_path, {"trace.py": source})
    assert [v.path for v in violations(root)] == ["selectools/trace.py"]


def test_the_views_and_the_front_door_may_import_views(tmp_path):
    root = _package(
        tmp_path,
        {
            "__init__.py": "def f():\n    from ._view import lookup\n",
            "_view/core.py": "from ._html import esc\nclass A:\n    def _repr_html_(self): ...\n",
        },
    )
    assert violations(root) == []


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
