"""Each copy in examples.toml is still verbatim in its seed at the recorded line, and every
Python block of the PROVIDERS, MULTIMODAL and AZURE_OPENAI pages is catalogued.

Reads the seeds from $SELECTOOLS_SEEDS (.ci/run sets it when ../shared/seeds exists): not run
when it is unset, and failing (never skipping) when it is set but a seed is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ._catalog import load_examples

# The seed docs folder. Unset: these checks are not run here; set: every check runs and a
# missing folder, seed file or block is a failure, never a skip.
SEEDS_SET = bool(os.environ.get("SELECTOOLS_SEEDS"))
SEEDS = Path(os.environ.get("SELECTOOLS_SEEDS", ""))
EXAMPLES = load_examples()
# page -> (first line, last line) in 004_36549ee0d6c5d6f0.txt
WHOLE_PAGES = {
    "PROVIDERS": (7129, 7941),
    "MULTIMODAL": (18499, 18629),
    "AZURE_OPENAI": (18768, 18923),
}

pytestmark = pytest.mark.skipif(
    not SEEDS_SET,
    reason="SELECTOOLS_SEEDS is not set (.ci/run sets it when ../shared/seeds exists)",
)


def _lines(seed: str) -> list[str]:
    return (SEEDS / seed).read_text(encoding="utf-8").split("\n")


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_copy_is_verbatim_at_its_line(example):
    lines = _lines(example["seed"])
    code = example["code"].rstrip("\n").split("\n")
    start = example["line"] - 1
    assert lines[start - 1].startswith("```python"), "the line before is not a python fence"
    assert lines[start : start + len(code)] == code
    assert lines[start + len(code)] == "```", "the copy stops before the block ends"


def test_whole_pages_are_catalogued():
    lines = _lines("004_36549ee0d6c5d6f0.txt")
    catalogued = {e["line"] for e in EXAMPLES}
    for page, (first, last) in WHOLE_PAGES.items():
        starts = [n + 2 for n in range(first - 1, last) if lines[n].startswith("```python")]
        missing = [n for n in starts if n not in catalogued]
        assert missing == [], f"{page}: python blocks at lines {missing} are not in examples.toml"
