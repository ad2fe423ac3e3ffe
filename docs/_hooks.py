"""MkDocs hooks for the selectools site (see mkdocs.yml).

* The demo notebooks live in ``notebooks/`` (nbval runs them there): they are added to the site
  as they are committed, outputs included; mkdocs-jupyter renders them and never executes them.
* ``<!-- api: selectools.pkg -->`` in a page expands to one mkdocstrings block per name in that
  package's ``__all__``, so the API reference follows ``__all__`` without a hand-kept list. A
  name that an earlier page already documents (same object) is linked instead of rendered again.
  Every name gets the anchor ``selectools.pkg.Name`` (tests/test_docs_site.py checks them).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from pathlib import Path
from typing import Any

import griffe
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
_API_MARK = re.compile(r"^<!-- api: ([\w.]+) -->$", re.MULTILINE)

# object id -> the dotted path it was first rendered under (pages render in nav order)
_rendered: dict[int, str] = {}


@event_priority(100)  # before mkdocs-jupyter looks for notebooks in the file list
def on_files(files: Files, config: Any) -> Files:
    for notebook in sorted(NOTEBOOKS.glob("*.ipynb")):
        # a real file whose source root is the repository (mkdocs-jupyter reads abs_src_path)
        files.append(
            File(
                f"notebooks/{notebook.name}",
                src_dir=str(ROOT),
                dest_dir=config["site_dir"],
                use_directory_urls=config["use_directory_urls"],
            )
        )
    return files


def on_pre_build(config: Any) -> None:
    _rendered.clear()
    _static_package.cache_clear()  # `mkdocs serve` rebuilds after edits


def public_names(package: str) -> list[str]:
    """The names a package exports, as the API pages list them."""
    module = importlib.import_module(package)
    return [name for name in module.__all__ if name != "__version__"]


@functools.cache
def _static_package() -> Any:
    """``selectools`` as static analysis sees it (what mkdocstrings can render), loaded once."""
    return griffe.load("selectools", search_paths=[str(ROOT)])


def _static_members(package: str) -> set[str]:
    module = _static_package()
    for part in package.split(".")[1:]:
        module = module.members[part]
    return set(module.members)


def source_path(package: str, name: str) -> str:
    """The dotted path mkdocstrings renders ``package.name`` from.

    Usually ``package.name`` itself; a name the package only provides at run time (a module
    ``__getattr__`` that static analysis cannot follow) is rendered from where it is defined.
    """
    if name in _static_members(package):
        return f"{package}.{name}"
    value = getattr(importlib.import_module(package), name)
    return f"{value.__module__}.{value.__qualname__}"


def _api_blocks(package: str) -> str:
    module = importlib.import_module(package)
    blocks = []
    for name in public_names(package):
        path = f"{package}.{name}"
        value = getattr(module, name)
        # classes and functions are shared between packages; data (a dict, a string) is not
        shared = inspect.isclass(value) or inspect.isroutine(value)
        first = _rendered.setdefault(id(value) if shared else hash(path), path)
        if first != path:
            blocks.append(f"### `{name}` {{#{path}}}\n\nThe same object as [`{first}`][{first}].\n")
        elif (source := source_path(package, name)) == path:
            blocks.append(f"::: {path}\n")
        else:
            blocks.append(f'<a id="{path}"></a>\n\n::: {source}\n')
    return "\n".join(blocks)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    return _API_MARK.sub(lambda match: _api_blocks(match.group(1)), markdown)
