"""``date_arithmetic`` takes its parameters in the TOOLBOX page's order: date, operation, value, unit.

Called directly (positional, as the page's table orders them) and by the model
(``value`` stays required in the schema the model sees).
"""

from __future__ import annotations

import pickle

import pytest

from selectools import Agent
from selectools.exceptions import ToolValidationError
from selectools.testing import ScriptedProvider, tool_call
from selectools.toolbox import get_tools_by_category
from selectools.toolbox.datetime_tools import date_arithmetic


def test_positional_in_the_pages_order() -> None:
    assert date_arithmetic("2025-12-09", "add", 7, "days") == "2025-12-16"
    assert date_arithmetic("2025-12-09", "subtract", 2, "weeks") == "2025-11-25"
    assert date_arithmetic("2025-12-09", "add", 90) == "2026-03-09"
    assert date_arithmetic("2025-12-09", value=1.5, unit="hours") == "2025-12-09 01:30:00"


def test_value_is_still_required() -> None:
    with pytest.raises(TypeError, match="value"):
        date_arithmetic("2025-12-09")
    schema = date_arithmetic.schema()["parameters"]
    assert schema["required"] == ["date", "value"]
    assert schema["properties"]["value"]["type"] == "number"
    with pytest.raises(ToolValidationError, match="Missing required parameter"):
        date_arithmetic.execute({"date": "2025-12-09"})


def test_the_model_calls_it_with_keywords() -> None:
    tool = {t.name: t for t in get_tools_by_category("datetime")}["date_arithmetic"]
    provider = ScriptedProvider(
        [tool_call("date_arithmetic", date="2025-12-09", operation="add", value=7), "ok"]
    )
    Agent(tools=[tool], provider=provider).run("a week after Dec 9?")
    assert provider.requests[1].messages[-1].content == "2025-12-16"
    assert pickle.loads(pickle.dumps(date_arithmetic)) is date_arithmetic
