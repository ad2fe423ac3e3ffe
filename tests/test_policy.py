"""ToolPolicy: glob rules, argument rules, and the deny → review → allow → review order."""

import pytest

from selectools import PolicyDecision, PolicyResult, ToolPolicy

ALLOW, REVIEW, DENY = PolicyDecision.ALLOW, PolicyDecision.REVIEW, PolicyDecision.DENY

DOCS_POLICY = ToolPolicy(
    allow=["search_*", "read_*", "get_*"],
    review=["send_*", "create_*", "update_*"],
    deny=["delete_*", "drop_*"],
    deny_when=[{"tool": "send_email", "arg": "to", "pattern": "*@external.com"}],
)


@pytest.mark.parametrize(
    ("tool", "args", "decision", "rule"),
    [
        ("search_web", {}, ALLOW, "allow:search_*"),
        ("read_file", {"path": "x"}, ALLOW, "allow:read_*"),
        ("send_email", {"to": "me@corp.com"}, REVIEW, "review:send_*"),
        ("create_user", {}, REVIEW, "review:create_*"),
        ("delete_file", {}, DENY, "deny:delete_*"),
        ("drop_table", {}, DENY, "deny:drop_*"),
        ("send_email", {"to": "x@external.com"}, DENY, "deny_when:send_email.to=*@external.com"),
        ("send_sms", {"to": "x@external.com"}, REVIEW, "review:send_*"),
        ("launch_rocket", {}, REVIEW, None),
    ],
)
def test_documented_policy(tool, args, decision, rule):
    result = DOCS_POLICY.evaluate(tool, args)
    assert isinstance(result, PolicyResult)
    assert (result.decision, result.rule) == (decision, rule)
    assert result.reason


def test_deny_beats_review_beats_allow():
    policy = ToolPolicy(allow=["*"], review=["send_*"], deny=["send_spam"])
    assert policy.evaluate("send_spam").decision is DENY
    assert policy.evaluate("send_mail").decision is REVIEW
    assert policy.evaluate("anything").decision is ALLOW
    assert ToolPolicy(allow=["*"], deny=["delete_*"]).evaluate("delete_file").decision is DENY


def test_unknown_tools_default_to_review():
    result = ToolPolicy().evaluate("whatever", {"a": 1})
    assert result.decision is REVIEW and result.rule is None
    assert "no rule matches" in result.reason


def test_deny_when_matches_only_the_named_argument_as_text():
    policy = ToolPolicy(
        allow=["*"], deny_when={"tool": "transfer*", "arg": "amount", "pattern": "1?????*"}
    )
    assert policy.evaluate("transfer", {"amount": 100000}).decision is DENY
    assert policy.evaluate("transfer_funds", {"amount": 99}).decision is ALLOW
    assert policy.evaluate("transfer", {"note": "1000000"}).decision is ALLOW
    assert policy.evaluate("transfer").decision is ALLOW


def test_globs_are_case_sensitive_and_support_classes():
    policy = ToolPolicy(allow=["get_[ab]*"], deny=["Delete*"])
    assert policy.evaluate("get_apple").decision is ALLOW
    assert policy.evaluate("get_cherry").decision is REVIEW
    assert policy.evaluate("delete").decision is REVIEW


def test_decision_is_a_string_enum():
    assert DENY == "deny" and str(REVIEW) == "review"


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"allow": "search_*"}, TypeError, r"wrap the string: allow=\['search_\*'\]"),
        ({"deny": [3]}, TypeError, "non-empty strings"),
        ({"review": [""]}, TypeError, "non-empty strings"),
        ({"allow": 5}, TypeError, "list of glob patterns"),
        ({"deny_when": [{"tool": "x", "arg": "y"}]}, ValueError, "exactly the keys"),
        (
            {"deny_when": [{"tool": "x", "arg": "y", "pattern": "z", "extra": 1}]},
            ValueError,
            "exactly",
        ),
        ({"deny_when": ["send_email"]}, TypeError, "must be dicts"),
        ({"deny_when": [{"tool": "x", "arg": 1, "pattern": "z"}]}, TypeError, "'arg'"),
    ],
)
def test_bad_rules_are_rejected_with_a_hint(kwargs, error, match):
    with pytest.raises(error, match=match):
        ToolPolicy(**kwargs)
