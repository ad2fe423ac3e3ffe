"""Views of a long run and of a large eval report stay bounded and count what they leave out.

The budgets are read from the view modules, never restated; small inputs render whole
(the other view tests cover them).
"""

from __future__ import annotations

import re
from html import unescape

from selectools import Agent, AgentConfig, tool
from selectools._display import mimebundle
from selectools.evals import CaseVerdict, EvalSuite, TestCase
from selectools.testing import ScriptedProvider, reply, tool_call

#: a bound with margin for 10,000 calls or cases (about 1 KB a card, 1.5 KB a report row)
MAX_BYTES = 300_000


@tool()
def search(q: str) -> str:
    """Searches."""
    return f"found {q}"


def test_a_result_of_ten_thousand_calls_shows_the_last_cards_and_counts_the_rest():
    from selectools._view._components import MAX_TOOL_CARDS, MAX_TURNS

    script = [
        reply(f"turn {t}", *[tool_call("search", q=f"k{t:04d}x{c}") for c in range(10)])
        for t in range(1_000)
    ] + ["All done."]
    agent = Agent(
        tools=[search], provider=ScriptedProvider(script), config=AgentConfig(max_iterations=1_005)
    )
    result = agent.run("go")
    html = unescape(mimebundle(result)["text/html"])
    assert len(html) < MAX_BYTES, len(html)
    hidden = 10_000 - MAX_TOOL_CARDS
    assert f"… the first {hidden:,} tool calls not shown — result.trace has every step" in html
    assert "k0999x9" in html and "k0990x0" in html and "k0989x9" not in html
    assert "1,001 iterations · 10,000 tool calls · " in html  # the header counts all
    calls = 1_001 - MAX_TURNS
    assert f"… the first {calls:,} model calls not shown — usage.iterations has every call" in html


def _report(size: int):
    """Cases ``q0 … q{size-1}``: a case fails when its number ends in 7 (one in ten)."""

    def answer(request) -> str:
        text = request.last_message.content
        return "wrong" if text.endswith("7") else f"re {text}"

    cases = [TestCase(input=f"q{i}", expect_contains=f"q{i}") for i in range(size)]
    return EvalSuite(Agent(provider=ScriptedProvider(answer)), cases).run()


def _shown_cases(html: str) -> list[tuple[str, str]]:
    """``(verdict, case label)`` of each row the view shows, in order."""
    return re.findall(r">(PASS|FAIL|ERROR|SKIP)</span></td><td [^>]*>([^<]*)</td>", html)


def test_a_report_of_ten_thousand_cases_lists_failures_first_and_counts_the_rest():
    from selectools._view.evals import MAX_REPORT_ROWS

    report = _report(10_000)
    assert report.fail_count == 1_000
    html = unescape(mimebundle(report)["text/html"])
    assert len(html) < MAX_BYTES, len(html)
    assert "9000 pass" in html and "1000 fail" in html  # the header counts every case
    shown = _shown_cases(html)
    assert len(shown) == MAX_REPORT_ROWS
    assert all(verdict == "FAIL" for verdict, _ in shown)  # failures come first
    assert [label for _, label in shown[:3]] == ["q7", "q17", "q27"]
    hidden = 10_000 - MAX_REPORT_ROWS
    assert (
        f"… {hidden:,} more cases ({1_000 - MAX_REPORT_ROWS:,} of them failing, 0 erroring) "
        'not shown — report.to_dataframe() has every case, report.filter_by_verdict("fail") '
        "the failing ones"
    ) in html


def test_a_large_report_with_few_failures_fills_the_rows_with_passing_cases():
    from selectools._view.evals import MAX_REPORT_ROWS, MAX_REPORT_TRACES

    report = _report(MAX_REPORT_ROWS * 3)
    failing = report.fail_count
    html = unescape(mimebundle(report)["text/html"])
    shown = _shown_cases(html)
    assert len(shown) == MAX_REPORT_ROWS
    assert [v for v, _ in shown[:failing]] == ["FAIL"] * failing
    assert {v for v, _ in shown[failing:]} == {"PASS"}
    assert [label for _, label in shown[failing : failing + 2]] == ["q0", "q1"]
    hidden = MAX_REPORT_ROWS * 2
    assert f"… {hidden:,} more cases (none failing or erroring) not shown — " in html
    # a trace is embedded for the first failing rows only; the others say where theirs is
    embedded = html.count(">Trace <span")
    assert embedded == min(MAX_REPORT_TRACES, failing)
    if failing > MAX_REPORT_TRACES:
        assert ".result.trace has it" in html


def test_a_small_report_still_lists_its_cases_in_order():
    report = _report(12)
    html = mimebundle(report)["text/html"]
    assert [label for _, label in _shown_cases(html)] == [f"q{i}" for i in range(12)]
    assert "not shown" not in html
    assert report.results[7].verdict is CaseVerdict.FAIL
