"""``code_reviewer``: reads the code under review and checks it for bugs, style and security.

File tools are the toolbox's, sandboxed to ``root=`` (default: the working
directory); ``search_text`` finds patterns in a file's text.
"""

from __future__ import annotations

from typing import Any

from ..toolbox.text_tools import search_text
from ._build import build_template

SYSTEM_PROMPT = """You are a senior software engineer reviewing code.
Read the files involved before commenting. Report bugs first, then security
issues (injection, secrets, unsafe deserialization, path traversal), then
performance and maintainability. For each finding give the file, the line, why
it matters and a concrete fix. Say clearly when the code looks good."""


def build(provider: Any, *, root: str = ".", **overrides: Any) -> Any:
    from ..toolbox.file_tools import make_file_tools

    wanted = {"read_file", "list_dir", "list_files", "file_exists"}
    tools = [t for t in make_file_tools(root, read_only=True) if t.name in wanted]
    return build_template(
        "code_reviewer",
        provider,
        [*tools, search_text],
        SYSTEM_PROMPT,
        overrides,
        max_iterations=6,
    )
