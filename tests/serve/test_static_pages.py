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
