"""CI runs the checks the docs promise (ruff, ruff format, mypy), before the tests."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: where the development checks are written down (the README's Development section, the site's page)
PLACES = [(ROOT / "README.md", "## Development"), (ROOT / "docs" / "development.md", "## Checks")]


def _documented_checks() -> list[tuple[str, str]]:
    found = []
    for path, heading in PLACES:
        if not path.exists() or heading not in path.read_text():
            continue
        section = path.read_text().split(heading, 1)[1].split("\n## ", 1)[0]
        for block in re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL):
            for line in block.splitlines():
                command = line.split("#", 1)[0].strip()
                if command.startswith(("ruff", "mypy")):
                    found.append((path.name, command))
    return found


def test_the_checks_are_documented():
    commands = {command for _, command in _documented_checks()}
    assert commands == {
        "ruff check selectools tests benchmarks scripts",
        "ruff format --check selectools tests benchmarks scripts",
        "mypy",
    }


def test_ci_runs_the_documented_checks_before_the_tests():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    tests = next(i for i, line in enumerate(ci) if line.rstrip().endswith("python -m pytest"))
    for where, command in _documented_checks():
        assert command in ci, f"{where} says CI runs {command!r}; .ci/run does not"
        assert ci.index(command) < tests, f"{command!r} runs after the tests"


def test_mypy_is_strict():
    assert re.search(
        r"^\[tool\.mypy\][^\[]*^strict = true$", (ROOT / "pyproject.toml").read_text(), re.M
    )
