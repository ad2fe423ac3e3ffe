"""Every name a page badges (``**Stability:** stable`` / ``beta``, or "marked ``@beta``") carries that marker.

``BADGES`` is the pages' ``**Import:**`` lines with their badge, read off the
seed docs; with ``SELECTOOLS_SEEDS`` set, a test re-reads the seed pages and
checks the table still lists every badge they show. The walk goes over the
public API (``__all__`` of the package and its documented subpackages): every
exported object a badge names carries the badge's marker, as its own attribute
(a beta store does not pass by inheriting ``VectorStore``'s stable marker).
"""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path
from typing import Any

import pytest

#: page -> (module of its Import line, names, badge)
BADGES: dict[str, tuple[str, tuple[str, ...], str]] = {
    "AGENT": ("selectools", ("Agent", "AgentConfig"), "stable"),
    "TOOLS": ("selectools", ("Tool", "tool", "ToolParameter", "ToolRegistry"), "stable"),
    "RAG": (
        "selectools.rag",
        ("RAGAgent", "DocumentLoader", "VectorStore", "TextSplitter"),
        "stable",
    ),
    "ORCHESTRATION": ("selectools", ("AgentGraph", "GraphState", "GraphNode"), "beta"),
    "EVALS": ("selectools.evals", ("EvalSuite", "TestCase", "EvalReport"), "stable"),
    "FAISS": ("selectools.rag.stores", ("FAISSVectorStore",), "beta"),
    "QDRANT": ("selectools.rag.stores", ("QdrantVectorStore",), "beta"),
    "PGVECTOR": ("selectools.rag.stores", ("PgVectorStore",), "beta"),
    "MULTIMODAL": ("selectools", ("ContentPart", "image_message", "Message"), "beta"),
    "OTEL": ("selectools.observe", ("OTelObserver",), "beta"),
    "AZURE_OPENAI": ("selectools", ("AzureOpenAIProvider",), "beta"),
    "LANGFUSE": ("selectools.observe", ("LangfuseObserver",), "beta"),
    # pages that say "marked @beta" in their text
    "SCHEDULER": ("selectools", ("AgentScheduler",), "beta"),
    "REASONING_TOOLS": (
        "selectools.toolbox.reasoning_tools",
        ("ReasoningStep", "ReasoningTools", "make_reasoning_tools"),
        "beta",
    ),
    "AGENT (approval gate)": ("selectools", ("ApprovalRequest",), "beta"),
    # the list of documented beta classes (PIPELINE page, v0.18 with ORCHESTRATION)
    "PIPELINE": ("selectools", ("Pipeline", "Step"), "beta"),
}

#: packages whose ``__all__`` is the public API the walk covers
PUBLIC = (
    "selectools",
    "selectools.rag",
    "selectools.rag.stores",
    "selectools.evals",
    "selectools.observe",
    "selectools.orchestration",
    "selectools.toolbox.reasoning_tools",
)


def _own_marker(obj: Any) -> str | None:
    if isinstance(obj, type):
        return vars(obj).get("__stability__")
    return getattr(obj, "__stability__", None)


def _expected() -> dict[int, tuple[str, str]]:
    """id(object) -> (badge, where the badge comes from)."""
    out: dict[int, tuple[str, str]] = {}
    for page, (module, names, badge) in BADGES.items():
        mod = importlib.import_module(module)
        for name in names:
            out[id(getattr(mod, name))] = (badge, f"{page}: {module}.{name}")
    return out


@pytest.mark.parametrize("page", sorted(BADGES))
def test_each_badged_name_carries_its_pages_marker(page: str) -> None:
    module, names, badge = BADGES[page]
    mod = importlib.import_module(module)
    for name in names:
        assert _own_marker(getattr(mod, name)) == badge, f"{module}.{name} should be @{badge}"


def test_the_public_api_carries_the_badges_wherever_it_is_exported() -> None:
    expected = _expected()
    seen: set[int] = set()
    wrong = []
    for package in PUBLIC:
        mod = importlib.import_module(package)
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            marker = _own_marker(obj)
            assert marker in (None, "stable", "beta", "deprecated"), f"{package}.{name}: {marker}"
            if id(obj) in expected:
                seen.add(id(obj))
                badge, source = expected[id(obj)]
                if marker != badge:
                    wrong.append(f"{package}.{name} is {marker}, {source} says {badge}")
    assert wrong == []
    assert len(seen) >= 25  # the walk reached the badged names through the public API


SEEDS = os.environ.get("SELECTOOLS_SEEDS")


@pytest.mark.skipif(not SEEDS, reason="SELECTOOLS_SEEDS is not set")
def test_the_table_lists_every_badge_of_the_seed_pages() -> None:
    assert SEEDS is not None
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(Path(SEEDS).glob("*.txt")))
    pages = re.split(r"^## FILE: docs/(?:modules/)?(\w+)\.md$", text, flags=re.M)
    found: dict[str, tuple[str, set[str], str]] = {}
    for title, body in zip(pages[1::2], pages[2::2], strict=True):
        head = body[:1500]
        imp = re.search(r"\*\*Import:\*\*\s*`from ([\w.]+) import ([^`]+)`", head)
        badge = re.search(r"\*\*Stability:\*\*\s*(?:<span[^>]*>)?(stable|beta)", head)
        if imp and badge:
            names = {n.strip() for n in imp.group(2).split(",")}
            found[title] = (imp.group(1), names, badge.group(1))
    assert len(found) >= 12
    for title, (module, names, badge) in found.items():
        assert title in BADGES, title
        table_module, table_names, table_badge = BADGES[title]
        assert (table_module, set(table_names), table_badge) == (module, names, badge), title
