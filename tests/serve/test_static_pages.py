"""The served pages share their code: one SSE reader module, imported by each page."""

from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "selectools" / "serve" / "_static"
# the modules that read a streamed response, each through the one reader
READERS = ("playground.js", "builder/backend.js")


def test_the_sse_reader_is_written_once_and_imported_by_every_page() -> None:
    scripts = {
        p.relative_to(STATIC).as_posix(): p.read_text()
        for p in STATIC.rglob("*.js")
        if "vendor" not in p.parts
    }
    defining = sorted(n for n, text in scripts.items() if re.search(r"function\*?\s*sseData", text))
    assert defining == ["builder/sse.js"]
    for page in READERS:
        assert 'import { sseData } from "./sse.js";' in scripts[page], page
    parsers = sorted(n for n, text in scripts.items() if "getReader()" in text)
    assert parsers == ["builder/sse.js"]  # no second stream parser


def test_the_builder_modules_import_each_other_without_cycles() -> None:
    """The notebook widget loads the builder's modules one by one (blob: URLs): no import cycles."""
    folder = STATIC / "builder"
    imports = {
        p.relative_to(folder).as_posix(): re.findall(r'from "\./([^"]+)"', p.read_text())
        for p in folder.rglob("*.*js")
    }
    assert "canvas.js" in imports and "vendor/js-yaml.mjs" in imports
    for module, deps in imports.items():
        assert all(dep in imports for dep in deps), module
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join((*path, module))
        if module in done:
            return
        for dep in imports[module]:
            visit(dep, (*path, module))
        done.add(module)

    for module in imports:
        visit(module, ())
