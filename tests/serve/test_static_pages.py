"""The served pages share their code: one SSE reader module, imported by each page."""

from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "selectools" / "serve" / "_static"
PAGES = ("playground.js", "builder.js")


def test_the_sse_reader_is_written_once_and_imported_by_every_page() -> None:
    scripts = {p.name: p.read_text() for p in STATIC.glob("*.js")}
    defining = sorted(n for n, text in scripts.items() if re.search(r"function\*?\s*sseData", text))
    assert defining == ["sse.js"]
    for page in PAGES:
        assert 'import { sseData } from "./sse.js";' in scripts[page], page
        assert "getReader()" not in scripts[page], page  # no second stream parser
