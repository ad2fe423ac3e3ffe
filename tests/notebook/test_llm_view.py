"""Notebook variables in prompts: bounded, model-friendly views (llm_view and the _repr_llm_ hook)."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from IPython.core.error import UsageError

from selectools.notebook import llm_view
from selectools.testing import ScriptedProvider


def shown_to_model(ip, prompt: str) -> str:
    """Run ``%%agent`` with ``prompt`` and return the user message the model received."""
    provider = ScriptedProvider(default="ok")
    ip.user_ns["demo"] = provider
    result = ip.run_cell(f"%%agent --provider demo\n{prompt}", store_history=True)
    assert result.success, result.error_in_exec
    text: str = provider.requests[0].messages[-1].content
    return text


def test_a_dataframe_is_its_shape_types_and_first_rows(shell):
    shell.user_ns["df"] = pd.DataFrame(
        {"city": [f"c{i}" for i in range(5000)], "temp": np.arange(5000) / 10}
    )
    text = shown_to_model(shell, "Which city is warmest?\n{df}")
    assert "DataFrame: 5000 rows × 2 columns" in text
    assert "city (" in text and "temp (float64)" in text
    assert "c0" in text and "c4999" not in text
    assert "4990 more rows not shown" in text
    assert len(text) < 2000 + 100


def test_arrays_dicts_and_long_text_state_what_they_leave_out():
    arr = llm_view(np.arange(1_000_000).reshape(1000, 1000))
    assert arr.startswith("ndarray: shape (1000, 1000), dtype int64") and "..." in arr
    assert "corner shown" in arr and len(arr) < 2000
    cube = llm_view(np.zeros((50, 50, 50, 50)))
    assert "first 12 of 6250000 values, flattened" in cube
    words = llm_view("word " * 10_000, 500)
    assert len(words) <= 500 and "[truncated: showing" in words and "of 50000 characters" in words
    many = llm_view({f"k{i}": i for i in range(10_000)})
    assert many.startswith("dict of 10000 items") and "… 9980 more" in many


def test_hostile_objects_stay_bounded_in_time_and_size():
    loop: list = []
    loop.append(loop)
    deep: list = []
    node = deep
    for _ in range(100_000):
        node.append([])
        node = node[0]
    huge = dict.fromkeys(range(1_000_000), "x" * 1000)
    wide = pd.DataFrame(np.zeros((3, 5000)))
    for value in (loop, deep, huge, wide, ["y" * 10_000_000] * 1000, {"a": {"b": loop}}):
        started = time.perf_counter()
        text = llm_view(value, 1000)
        assert time.perf_counter() - started < 2.0, type(value)
        assert len(text) <= 1000
    assert llm_view(loop) == "[<cycle>]"
    assert "nested too deep" in llm_view(deep)
    assert "and 4970 more columns" in llm_view(wide)


def test_user_classes_take_over_with_repr_llm(shell):
    class Customer:
        def __init__(self, name: str) -> None:
            self.name = name

        def _repr_llm_(self, limit: int) -> str:
            return f"customer {self.name} (limit {limit})"

        def __str__(self) -> str:
            return "SECRET internal repr"

    shell.user_ns["c"] = Customer("Ada")
    text = shown_to_model(shell, "Greet {c}")
    assert text == "Greet customer Ada (limit 2000)"


def test_a_failing_hook_is_one_usage_error_naming_the_value(shell, capsys):
    class Broken:
        def _repr_llm_(self, limit: int) -> str:
            raise ValueError("cannot describe myself")

    shell.user_ns["b"] = Broken()
    result = shell.run_cell("%%agent --provider local\nUse {b}", store_history=True)
    assert isinstance(result.error_in_exec, UsageError)
    err = capsys.readouterr().err
    assert "cannot fill {b} (Broken): ValueError: cannot describe myself" in err


def test_the_limit_is_the_context_limit_setting(shell):
    shell.user_ns["text"] = "z" * 50_000
    shell.run_line_magic("selectools", "context_limit=300")
    assert len(shown_to_model(shell, "{text}")) <= 300
    shell.run_cell("%config SelectoolsMagics.context_limit = 5000")
    assert 4000 < len(shown_to_model(shell, "{text}")) <= 5000


def test_explicit_conversions_and_specs_still_format_as_python_does(shell):
    shell.user_ns.update(x=3.14159, s="it's", items=list(range(100_000)))
    text = shown_to_model(shell, "{x:.2f} {s!r} {{literal}} {items!r}")
    assert text.startswith('3.14 "it\'s" {literal} [0, 1, 2')
    assert "[truncated: showing" in text and len(text) < 2100


@pytest.mark.parametrize("value", [3, 2.5, True, None, "short", [1, 2], {"a": 1}])
def test_small_values_read_as_before(value):
    assert llm_view(value) == str(value)
