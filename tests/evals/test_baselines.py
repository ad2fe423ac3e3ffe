"""BaselineStore: save, compare, regressions and improvements, atomic writes; pairwise A/B."""

from __future__ import annotations

import os

import pytest

from selectools.evals import BaselineStore, EvalSuite, PairwiseEval, TestCase
from tests.evals.agents import make_agent

CASES = [
    TestCase(input="a", name="a", expect_contains="alpha"),
    TestCase(input="b", name="b", expect_contains="beta"),
    TestCase(input="c", name="c", expect_contains="gamma"),
]


def run(table):
    return EvalSuite(make_agent(table), CASES, name="billing suite").run()


def test_no_baseline_then_save_then_compare(tmp_path):
    store = BaselineStore(tmp_path / "baselines")
    good = run({"a": "alpha", "b": "beta", "c": "nope"})
    first = store.compare(good)
    assert not first.is_regression and not first.has_baseline
    path = store.save(good)
    assert path.name == "billing_suite.json"

    worse = run({"a": "alpha", "b": "nope", "c": "nope"})
    result = store.compare(worse)
    assert result.is_regression
    assert result.regressions == ["b"]
    assert result.accuracy_delta == pytest.approx(-1 / 3)
    assert f"{result.accuracy_delta:+.2%}" == "-33.33%"

    better = run({"a": "alpha", "b": "beta", "c": "gamma"})
    result = store.compare(better)
    assert not result.is_regression and result.improvements == ["c"]
    assert "no regression" in result.summary()


def test_swapped_failures_are_a_regression_even_at_equal_accuracy(tmp_path):
    store = BaselineStore(tmp_path)
    store.save(run({"a": "alpha", "b": "nope", "c": "nope"}))
    result = store.compare(run({"a": "nope", "b": "beta", "c": "nope"}))
    assert result.accuracy_delta == 0 and result.is_regression
    assert result.regressions == ["a"] and result.improvements == ["b"]


def test_save_is_atomic_an_interrupted_write_keeps_the_old_baseline(tmp_path, monkeypatch):
    store = BaselineStore(tmp_path)
    old = run({"a": "alpha", "b": "beta", "c": "gamma"})
    store.save(old)
    before = store.path("billing suite").read_text()

    def crash(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        store.save(run({}))
    monkeypatch.undo()
    assert store.path("billing suite").read_text() == before
    left = [p.name for p in tmp_path.iterdir() if p.name != ".baselines.lock"]
    assert left == ["billing_suite.json"]  # no temp file left (the lock file stays)


def test_corrupt_baseline_is_a_clear_error(tmp_path):
    store = BaselineStore(tmp_path)
    store.path("billing suite").write_text("{not json")
    with pytest.raises(Exception, match="not a readable baseline"):
        store.compare(run({}))


def test_pairwise_ab():
    a = make_agent({"a": "alpha", "b": "nope", "c": "gamma"})
    b = make_agent({"a": "alpha", "b": "beta", "c": "gamma"})
    result = PairwiseEval(a, b, CASES).run()
    assert result.winners == ["tie", "b", "tie"]
    assert result.winner == "b"
    assert (result.a_wins, result.b_wins, result.ties) == (0, 1, 2)
    assert "winner: b" in result.summary()
