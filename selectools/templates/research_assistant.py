"""``research_assistant``: search broadly, read sources, keep cited notes.

``web_search`` and ``read_url`` are the toolbox's web tools (SSRF-guarded; the
search backend is configured as in :mod:`selectools.toolbox.web_tools`);
``save_notes`` keeps the notes on the agent (``agent.notes``) or appends them to
``notes_file`` when one is given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..toolbox.web_tools import http_get, web_search
from ..tools import tool
from ._build import build_template

SYSTEM_PROMPT = """You are a thorough research assistant.
Search broadly first, then read the most relevant sources before answering.
Cite every source by URL, separate established facts from opinions, and save
key findings with save_notes as you go."""


def build(provider: Any, *, notes_file: str | None = None, **overrides: Any) -> Any:
    notes: list[str] = []

    @tool
    def read_url(url: str) -> str:
        """Read a web page or document by URL and return its text."""
        text: str = http_get.function(url)  # the toolbox tool returns the page text
        return text

    @tool
    def save_notes(title: str, content: str) -> str:
        """Save a research note (a finding with its source) for the final answer."""
        entry = f"## {title}\n{content}\n"
        notes.append(entry)
        if notes_file is not None:
            with Path(notes_file).open("a", encoding="utf-8") as out:
                out.write(entry + "\n")
        return f"Saved note {len(notes)}: {title}"

    agent = build_template(
        "research_assistant",
        provider,
        [web_search, read_url, save_notes],
        SYSTEM_PROMPT,
        overrides,
        max_iterations=8,
    )
    agent.notes = notes
    return agent
