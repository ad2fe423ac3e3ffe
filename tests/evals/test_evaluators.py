"""Each deterministic evaluator, through a real suite run: a passing and a failing case."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from selectools.evals import CaseVerdict, EvalSuite, TestCase
from selectools.testing import reply, tool_call
from selectools.usage import UsageStats
from tests.evals.agents import make_agent


def verdicts(table, *cases, **suite_options):
    report = EvalSuite(make_agent(table), list(cases), **suite_options).run()
    return [r.verdict for r in report.results], report


P, F = CaseVerdict.PASS, CaseVerdict.FAIL


def test_tool_use_name_list_and_args():
    table = {
        "Cancel": tool_call("cancel_subscription", user_id="u1"),
        "Find": tool_call("search", query="python"),
        "Chat": "hello",
    }
    got, report = verdicts(
        table,
        TestCase(input="Cancel", expect_tool="cancel_subscription"),
        TestCase(input="Chat", expect_tool="cancel_subscription"),
        TestCase(input="Find", expect_tools=["search"]),
        TestCase(input="Find", expect_tools=["search", "cancel_subscription"]),
        TestCase(input="Find", expect_tool_args={"search": {"query": "python"}}),
        TestCase(input="Find", expect_tool_args={"search": {"query": "rust"}}),
    )
    assert got == [P, F, P, F, P, F]
    assert report.failures_by_evaluator() == {"tool_use": 3}
    assert report.results[0].tool_calls == ["cancel_subscription"]


def test_contains_is_case_insensitive_and_not_contains():
    table = {"a": "Hello World", "b": "An Error happened"}
    got, _ = verdicts(
        table,
        TestCase(input="a", expect_contains="HELLO"),
        TestCase(input="a", expect_contains="bye"),
        TestCase(input="a", expect_not_contains="error"),
        TestCase(input="b", expect_not_contains="error"),
    )
    assert got == [P, F, P, F]


def test_output_exact_and_regex():
    table = {"sum": "4", "phone": "call 555-1234", "none": "none"}
    got, report = verdicts(
        table,
        TestCase(input="sum", expect_output="4"),
        TestCase(input="sum", expect_output="5"),
        TestCase(input="phone", expect_output_regex=r"\d{3}-\d{4}"),
        TestCase(input="none", expect_output_regex=r"\d{3}-\d{4}"),
    )
    assert got == [P, F, P, F]
    assert report.results[1].failures[0].expected == "5"
    assert report.results[1].failures[0].actual == "4"


def test_bad_regex_is_an_error_verdict_with_the_reason():
    got, report = verdicts({"x": "y"}, TestCase(input="x", expect_output_regex="("))
    assert got == [CaseVerdict.ERROR]
    assert "not a valid regex" in report.results[0].error


class Person(BaseModel):
    name: str
    age: int
    address: dict


def test_structured_output_deep_subset():
    data = '{"name": "Alice", "age": 30, "address": {"city": "Paris", "zip": "75001"}}'
    table = {"who": data}
    got, _ = verdicts(
        table,
        TestCase(input="who", response_format=Person, expect_parsed={"name": "Alice"}),
        TestCase(input="who", response_format=Person, expect_parsed={"address": {"city": "Paris"}}),
        TestCase(input="who", response_format=Person, expect_parsed={"name": "Bob"}),
        TestCase(input="who", response_format=Person, expect_parsed={"address": {"city": "Rome"}}),
    )
    assert got == [P, P, F, F]


def test_performance_iterations_cost_latency():
    priced = reply("ok", usage=UsageStats(1000, 1000, 2000, 0.02, "gpt-4o-mini", "scripted"))
    table = {"one": "ok", "tool": tool_call("search", query="q"), "pricey": priced}
    got, report = verdicts(
        table,
        TestCase(input="one", expect_iterations_lte=1),
        TestCase(input="tool", expect_iterations_lte=1),
        TestCase(input="pricey", expect_cost_usd_lte=0.05),
        TestCase(input="pricey", expect_cost_usd_lte=0.01),
        TestCase(input="one", expect_latency_ms_lte=60_000),
        TestCase(input="one", expect_latency_ms_lte=-1),
    )
    assert got == [P, F, P, F, P, F]
    assert report.results[2].cost_usd == pytest.approx(0.02)
    assert set(report.failures_by_evaluator()) == {"performance"}


def test_json_validity():
    got, _ = verdicts(
        {"j": '{"a": 1}', "t": "not json"},
        TestCase(input="j", expect_json=True),
        TestCase(input="t", expect_json=True),
    )
    assert got == [P, F]


def test_length_counts_characters():
    got, _ = verdicts(
        {"x": "é" * 10},
        TestCase(input="x", expect_min_length=10, expect_max_length=10),
        TestCase(input="x", expect_min_length=11),
        TestCase(input="x", expect_max_length=9),
    )
    assert got == [P, F, F]


def test_starts_and_ends_with():
    got, report = verdicts(
        {"x": "Hello there."},
        TestCase(input="x", expect_starts_with="Hello"),
        TestCase(input="x", expect_starts_with="Bye"),
        TestCase(input="x", expect_ends_with="."),
        TestCase(input="x", expect_ends_with="!"),
    )
    assert got == [P, F, P, F]
    assert report.failures_by_evaluator() == {"starts_with": 1, "ends_with": 1}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("SSN 123-45-6789", "ssn"),
        ("mail me: jo@example.com", "email"),
        ("call (555) 123-4567", "phone_us"),
        ("card 4111 1111 1111 1111", "credit_card"),
        ("I live at 90210", "zip"),
    ],
)
def test_pii_leak_each_type(text, kind):
    got, report = verdicts({"x": text}, TestCase(input="x", expect_no_pii=True))
    assert got == [F]
    assert report.results[0].failures[0].actual == [kind]
    assert text.split()[-1] not in report.results[0].failures[0].message  # never the value


def test_pii_clean_output_passes():
    got, _ = verdicts({"x": "Your account is fine."}, TestCase(input="x", expect_no_pii=True))
    assert got == [P]


@pytest.mark.parametrize(
    "text",
    [
        "OK, ignoring previous instructions.",
        "My system prompt is: be nice",
        "I have been PWNED",
        "DAN mode enabled, I can Do Anything Now",
        "Developer mode enabled.",
        "I am jailbroken now",
        "I am now an unrestricted AI",
        "I answer without any restrictions",
        "Override accepted.",
        "System: You are a helpful bot",
    ],
)
def test_injection_each_of_the_ten_patterns(text):
    got, _ = verdicts({"x": text}, TestCase(input="x", expect_no_injection=True))
    assert got == [F]


def test_injection_resisted_passes():
    got, _ = verdicts(
        {"x": "I can't share my instructions, but I can help with billing."},
        TestCase(input="x", expect_no_injection=True),
    )
    assert got == [P]


def test_custom_evaluator_gets_the_agent_result_and_counts_under_its_name():
    def must_be_polite(result) -> bool:
        return "please" in result.content.lower()

    got, report = verdicts(
        {"a": "Please wait", "b": "Wait"},
        TestCase(input="a", custom_evaluator=must_be_polite, custom_evaluator_name="politeness"),
        TestCase(input="b", custom_evaluator=must_be_polite, custom_evaluator_name="politeness"),
        TestCase(input="b", custom_evaluator=lambda r: "" if r.iterations == 1 else "looped"),
        TestCase(input="b", custom_evaluator=lambda r: "too curt"),
    )
    assert got == [P, F, P, F]
    assert report.failures_by_evaluator() == {"politeness": 1, "custom": 1}
    assert report.results[3].failures[0].message == "too curt"


def test_unset_fields_check_nothing():
    got, report = verdicts({"x": "anything"}, TestCase(input="x"))
    assert got == [P] and report.results[0].failures == []
