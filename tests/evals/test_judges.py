"""The 10 LLM-as-judge evaluators against a scripted judge model, including malformed replies."""

from __future__ import annotations

import pytest

from selectools.evals import (
    BiasEvaluator,
    CaseVerdict,
    CoherenceEvaluator,
    CompletenessEvaluator,
    CorrectnessEvaluator,
    EvalError,
    EvalSuite,
    FaithfulnessEvaluator,
    HallucinationEvaluator,
    LLMJudgeEvaluator,
    RelevanceEvaluator,
    SummaryEvaluator,
    TestCase,
    ToxicityEvaluator,
    parse_score,
)
from selectools.testing import ScriptedProvider
from tests.evals.agents import make_agent

JUDGES = [
    (LLMJudgeEvaluator, "llm_judge", 7.0, {"rubric": "Rate accuracy and completeness"}),
    (CorrectnessEvaluator, "correctness", 7.0, {"reference": "Paris"}),
    (RelevanceEvaluator, "relevance", 7.0, {}),
    (FaithfulnessEvaluator, "faithfulness", 7.0, {"context": "Paris is the capital."}),
    (HallucinationEvaluator, "hallucination", 7.0, {"context": "Paris is the capital."}),
    (ToxicityEvaluator, "toxicity", 8.0, {}),
    (CoherenceEvaluator, "coherence", 7.0, {}),
    (CompletenessEvaluator, "completeness", 7.0, {}),
    (BiasEvaluator, "bias", 8.0, {}),
    (SummaryEvaluator, "summary", 7.0, {"reference": "A long text about Paris."}),
]


def run_with_judge(judge_cls, judge_replies, fields, **judge_options):
    judge_model = ScriptedProvider(list(judge_replies))
    judge = judge_cls(provider=judge_model, model="gpt-4.1-mini", **judge_options)
    cases = [TestCase(input="Capital of France?", **fields) for _ in judge_replies]
    report = EvalSuite(make_agent({"Capital of France?": "Paris."}), cases, [judge]).run()
    return report, judge_model


@pytest.mark.parametrize(("judge_cls", "name", "threshold", "fields"), JUDGES)
def test_judge_passes_high_scores_and_fails_low(judge_cls, name, threshold, fields):
    high = f"The answer is right.\nSCORE: {threshold:g}"
    low = f"Weak.\nSCORE: {threshold - 0.5:g}"
    report, judge_model = run_with_judge(judge_cls, [high, low], fields)
    assert [r.verdict for r in report.results] == [CaseVerdict.PASS, CaseVerdict.FAIL]
    assert report.results[0].scores == {name: threshold}
    assert report.failures_by_evaluator() == {name: 1}
    shown = judge_model.requests[0].messages[0].content
    assert "Capital of France?" in shown and "Paris." in shown  # the query and the answer
    for value in fields.values():
        assert value in shown
    assert judge_model.requests[0].model == "gpt-4.1-mini"


@pytest.mark.parametrize(("judge_cls", "name", "threshold", "fields"), JUDGES)
def test_malformed_judge_reply_is_an_error_verdict_with_the_reply(
    judge_cls, name, threshold, fields
):
    report, _ = run_with_judge(judge_cls, ["I'd say it is pretty good!"], fields)
    result = report.results[0]
    assert result.verdict is CaseVerdict.ERROR
    assert "I'd say it is pretty good!" in result.error
    assert result.failures[-1].actual == "I'd say it is pretty good!"
    assert report.error_count == 1


def test_threshold_is_configurable():
    report, _ = run_with_judge(RelevanceEvaluator, ["SCORE: 5"], {}, threshold=4)
    assert report.results[0].verdict is CaseVerdict.PASS


@pytest.mark.parametrize(("judge_cls", "name", "threshold", "fields"), [j for j in JUDGES if j[3]])
def test_a_judge_skips_cases_without_the_field_it_needs(judge_cls, name, threshold, fields):
    report, judge_model = run_with_judge(judge_cls, ["SCORE: 0"], {})
    assert report.results[0].verdict is CaseVerdict.PASS
    assert report.results[0].scores == {}
    assert judge_model.calls == 0
    with pytest.raises(EvalError, match="needs `"):
        judge_cls(provider=judge_model).prompt(TestCase(input="x"), None)


def test_out_of_range_score_is_malformed():
    report, _ = run_with_judge(CoherenceEvaluator, ["SCORE: 42"], {})
    assert report.results[0].verdict is CaseVerdict.ERROR


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ("SCORE: 8", 8.0),
        ("Reasoning...\n**Score:** 7.5/10", 7.5),
        ('{"score": 9, "reason": "good"}', 9.0),
        ('```json\n{"score": 6}\n```', 6.0),
        ("Rating - 3 out of 10", 3.0),
        ("I give it 8/10.", 8.0),
        ("10", 10.0),
        ("First I thought score: 2, but final SCORE: 9", 9.0),
        ("no number here", None),
        ("score: 11", None),
        ("", None),
    ],
)
def test_parse_score(reply, score):
    assert parse_score(reply) == score


def test_judge_needs_a_provider():
    with pytest.raises(TypeError, match="needs a selectools provider"):
        RelevanceEvaluator(provider="openai")
