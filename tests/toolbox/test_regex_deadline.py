"""Model-chosen regexes run under a deadline: catastrophic backtracking ends in a clear tool error."""

from __future__ import annotations

import time

import pytest

from selectools.exceptions import ToolExecutionError
from selectools.toolbox import get_tools_by_category

# With ``re`` this search takes ~16 s on an idle machine (2**27 paths); the limit is 1 s of
# CPU time, so the wall-clock bound below leaves room for a loaded machine.
EVIL = "(a|a)+$"
VICTIM = "a" * 27 + "!"


def _tool(name: str):  # type: ignore[no-untyped-def]
    return {t.name: t for t in get_tools_by_category("text")}[name]


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("search_text", {"text": VICTIM, "pattern": EVIL}),
        ("replace_text", {"text": VICTIM, "pattern": EVIL, "replacement": "x"}),
    ],
)
def test_backtracking_pattern_is_stopped_with_a_clear_error(
    name: str, args: dict[str, str]
) -> None:
    started = time.monotonic()
    with pytest.raises(ToolExecutionError, match="backtracks catastrophically") as caught:
        _tool(name).execute(args)
    elapsed = time.monotonic() - started
    assert elapsed < 8, f"{name} ran {elapsed:.1f}s; the limit is 1s"
    assert EVIL in str(caught.value)  # the model is told which pattern to simplify


def test_ordinary_patterns_still_work_with_re_syntax() -> None:
    text = "2024-01-05 and 2025-12-31"
    assert _tool("search_text").execute(
        {"text": text, "pattern": r"(?P<y>\d{4})-\d\d", "return_matches": False}
    ) == ("Found 2 matches")
    assert (
        _tool("replace_text").execute(
            {"text": text, "pattern": r"(?P<y>\d{4})-(\d\d)-(\d\d)", "replacement": r"\3/\2/\g<y>"}
        )
        == "05/01/2024 and 31/12/2025"
    )
    with pytest.raises(ToolExecutionError, match="Invalid replacement"):
        _tool("replace_text").execute({"text": text, "pattern": "a", "replacement": r"\9"})
