"""Every catalogued example is still a verbatim copy of its seed doc, and none is missing.

Reads the seed docs from the folder named by ``SELECTOOLS_SEEDS`` (``.ci/run`` sets
it to ``../shared/seeds`` when that folder exists; locally
``SELECTOOLS_SEEDS=/work/shared/seeds``). Not run when the variable is unset; when it
is set, a missing seed file or block fails.
Copies from the fenced ``004_...`` doc set must match the seed lines exactly;
the ``000_...`` AGENT page was scraped from the web with fences and
indentation stripped, so it is compared with whitespace normalised.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

import pytest

from ._catalog import EXAMPLES, load_covered

# The seed docs folder. Unset: these checks are not run here; set: every check runs and a
# missing folder, seed file or block is a failure, never a skip.
SEEDS_SET = bool(os.environ.get("SELECTOOLS_SEEDS"))
SEEDS = Path(os.environ.get("SELECTOOLS_SEEDS", ""))
REPO = Path(__file__).resolve().parents[2]
DOC_SET = "004_36549ee0d6c5d6f0.txt"
PAGES = {  # pages of the doc set whose python blocks the catalogue must account for
    "docs/QUICKSTART.md",
    "docs/modules/MEMORY.md",
    "docs/modules/SESSIONS.md",
    "docs/modules/BUDGET.md",
    "docs/modules/AGENT.md",
    "docs/modules/TOOLS.md",
    "docs/modules/STREAMING.md",
    "docs/modules/MODELS.md",
    "docs/modules/PROVIDERS.md",
    "docs/modules/MULTIMODAL.md",
    "docs/modules/AZURE_OPENAI.md",
    "docs/modules/USAGE.md",
    "docs/modules/STABILITY.md",
    "docs/modules/EXCEPTIONS.md",
    "docs/modules/OTEL.md",
    "docs/modules/LANGFUSE.md",
    "docs/modules/SCHEDULER.md",
    "docs/modules/REASONING_TOOLS.md",
    "docs/modules/TOOLBOX.md",
    "docs/modules/GUARDRAILS.md",
    "docs/modules/AUDIT.md",
    "docs/modules/SECURITY.md",
    "docs/modules/ENTITY_MEMORY.md",
    "docs/modules/KNOWLEDGE_GRAPH.md",
    "docs/modules/KNOWLEDGE.md",
    "docs/modules/MCP.md",
    "docs/modules/EVALS.md",
    "docs/modules/PIPELINE.md",
    "docs/modules/ORCHESTRATION.md",
    "docs/modules/SUPERVISOR.md",
    "docs/modules/PATTERNS.md",
    "docs/modules/RAG.md",
    "docs/modules/HYBRID_SEARCH.md",
    "docs/modules/FAISS.md",
    "docs/modules/QDRANT.md",
    "docs/modules/PGVECTOR.md",
}

pytestmark = pytest.mark.skipif(
    not SEEDS_SET,
    reason="SELECTOOLS_SEEDS is not set (.ci/run sets it when ../shared/seeds exists)",
)

COVERED = load_covered()


@cache
def seed_lines(name: str) -> list[str]:
    return (SEEDS / name).read_text(encoding="utf-8").split("\n")


def normalise(line: str) -> str:
    """Whitespace collapsed; the scraper's ``\\$`` back to ``$``."""
    return re.sub(r"\s+", " ", line.replace("\\$", "$")).strip()


def matches_stripped(code: str, lines: list[str], start: int) -> bool:
    """``code`` appears, whitespace-normalised and ignoring blank lines, from line ``start``."""
    wanted = [normalise(line) for line in code.split("\n") if normalise(line)]
    found = [normalise(line) for line in lines[start - 1 :] if normalise(line)][: len(wanted)]
    return found == wanted and normalise(lines[start - 1]) == wanted[0]


@cache
def normalised_text(path: Path) -> str:
    lines = path.read_text(encoding="utf-8").split("\n")
    return " ".join(filter(None, (normalise(line) for line in lines)))


def python_blocks(lines: list[str]) -> list[tuple[str, int, str]]:
    """(page, first code line, code) of every ```python block, by ``## FILE:`` page."""
    blocks, page, index = [], None, 0
    while index < len(lines):
        header = re.match(r"^## FILE: (\S+)", lines[index])
        if header:
            page = header.group(1)
        fence = re.match(r"^\s*```(\w*)", lines[index])
        if fence:
            end = index + 1
            while not re.match(r"^\s*```\s*$", lines[end]):
                end += 1
            if fence.group(1) == "python":
                blocks.append((page, index + 2, "\n".join(lines[index + 1 : end])))
            index = end
        index += 1
    return blocks


@pytest.mark.parametrize("example", EXAMPLES.values(), ids=list(EXAMPLES))
def test_copy_is_verbatim(example):
    lines = seed_lines(example.seed)
    if example.seed == DOC_SET:
        code = example.code.rstrip("\n").split("\n")
        start = example.line - 1
        assert lines[start : start + len(code)] == code, f"{example.id} differs from the seed"
        assert lines[start - 1].strip().startswith("```python"), f"{example.id}: no fence above"
        assert lines[start + len(code)].strip() == "```", f"{example.id}: the block goes on"
    else:
        assert matches_stripped(example.code, lines, example.line), example.id
    if example.seed_000_line is not None:
        assert matches_stripped(
            example.code, seed_lines("000_06418ddab3132255.txt"), example.seed_000_line
        ), f"{example.id} is not on the 000 page at line {example.seed_000_line}"


def test_every_python_block_of_the_pages_is_accounted_for():
    catalogued = {(e.seed, e.line) for e in EXAMPLES.values()}
    catalogued |= {(c["seed"], c["line"]) for c in COVERED}
    missing = [
        f"{page}:{line}"
        for page, line, _ in python_blocks(seed_lines(DOC_SET))
        if page in PAGES and (DOC_SET, line) not in catalogued
    ]
    assert not missing, f"python blocks with no catalogue entry: {missing}"


@pytest.mark.parametrize("covered", COVERED, ids=[c["id"] for c in COVERED])
def test_covered_example_is_still_run_by_its_test_file(covered):
    code = {line: code for _, line, code in python_blocks(seed_lines(covered["seed"]))}[
        covered["line"]
    ]
    test_file = REPO / covered["test_file"]
    assert test_file.is_file(), f"{covered['test_file']} is gone"
    wanted = " ".join(filter(None, (normalise(line) for line in code.split("\n"))))
    assert wanted in normalised_text(test_file), (
        f"{covered['id']} ({covered['page']}) is no longer in {covered['test_file']}"
    )
