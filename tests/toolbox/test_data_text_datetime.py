"""Data, text and date/time tools: the documented behaviour, called as the model calls them."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

import pytest

from selectools.exceptions import ToolExecutionError
from selectools.toolbox import get_tools_by_category
from selectools.toolbox.datetime_tools import DATE_FORMATS

from .conftest import Box

PEOPLE = '[{"name":"Alice","age":30},{"name":"Bob","age":25}]'


def _call(category: str, name: str, **args: object) -> str:
    tool = {t.name: t for t in get_tools_by_category(category)}[name]
    return tool.execute(args)


# --------------------------------------------------------------------------- data


def test_parse_json_pretty_and_compact() -> None:
    assert (
        _call("data", "parse_json", json_string='{"a": [1, 2]}')
        == '{\n  "a": [\n    1,\n    2\n  ]\n}'
    )
    assert _call("data", "parse_json", json_string='{"a": [1, 2]}', pretty=False) == '{"a":[1,2]}'
    with pytest.raises(
        ToolExecutionError, match="not valid JSON: Expecting value at line 1, column 7"
    ):
        _call("data", "parse_json", json_string='{"a": }')


def test_json_csv_round_trip() -> None:
    csv_text = _call("data", "json_to_csv", json_string=PEOPLE)
    assert csv_text == "name,age\nAlice,30\nBob,25"
    assert json.loads(_call("data", "csv_to_json", csv_string=csv_text)) == [
        {"name": "Alice", "age": "30"},
        {"name": "Bob", "age": "25"},
    ]
    assert (
        _call("data", "json_to_csv", json_string=PEOPLE, delimiter=";")
        == "name;age\nAlice;30\nBob;25"
    )


def test_json_to_csv_unions_keys_and_quotes() -> None:
    rows = '[{"a": 1}, {"b": "x,y", "a": null}, {"c": {"d": true}}]'
    assert (
        _call("data", "json_to_csv", json_string=rows) == 'a,b,c\n1,,\n,"x,y",\n,,"{""d"": true}"'
    )
    with pytest.raises(ToolExecutionError, match="non-empty JSON array"):
        _call("data", "json_to_csv", json_string="[]")


def test_extract_json_field_by_dot_path() -> None:
    doc = '{"user": {"name": "Ada"}, "items": [{"price": 9.99}]}'
    assert _call("data", "extract_json_field", json_string=doc, field_path="user.name") == "Ada"
    assert (
        _call("data", "extract_json_field", json_string=doc, field_path="items.0.price") == "9.99"
    )
    assert (
        _call("data", "extract_json_field", json_string=doc, field_path="user") == '{"name": "Ada"}'
    )
    with pytest.raises(ToolExecutionError, match="items has 1 items: index 3 is out of range"):
        _call("data", "extract_json_field", json_string=doc, field_path="items.3")
    with pytest.raises(ToolExecutionError, match="user has no field 'age'"):
        _call("data", "extract_json_field", json_string=doc, field_path="user.age")


def test_format_table_three_ways() -> None:
    assert (
        _call("data", "format_table", data=PEOPLE) == "name   age\n-----  ---\nAlice  30\nBob    25"
    )
    assert _call("data", "format_table", data=PEOPLE, format_type="markdown") == (
        "| name | age |\n|---|---|\n| Alice | 30 |\n| Bob | 25 |"
    )
    assert (
        _call("data", "format_table", data=PEOPLE, format_type="csv")
        == "name,age\nAlice,30\nBob,25"
    )


def test_process_csv_stream_yields_rows(box: Box) -> None:
    tool = {t.name: t for t in get_tools_by_category("data", root=box.root)}["process_csv_stream"]
    chunks: list[str] = []
    tool.execute({"filepath": "sub/data.csv"}, chunks.append)
    assert chunks == [
        'Row 1: {"name": "Alice", "age": "30"}\n',
        'Row 2: {"name": "Bob", "age": "25"}\n',
    ]


# --------------------------------------------------------------------------- datetime


def test_current_time_in_utc_and_a_zone() -> None:
    before = datetime.now(timezone.utc).replace(microsecond=0)
    out = _call("datetime", "get_current_time")
    assert out.endswith(" UTC")
    stamp = datetime.strptime(out, "%Y-%m-%d %H:%M:%S UTC").replace(tzinfo=timezone.utc)
    assert (stamp - before).total_seconds() >= 0
    ny = _call("datetime", "get_current_time", timezone="America/New_York", format="%Z")
    assert ny in ("EST", "EDT")
    with pytest.raises(ToolExecutionError, match="Unknown time zone 'Mars/Base'"):
        _call("datetime", "get_current_time", timezone="Mars/Base")


@pytest.mark.parametrize(
    "text",
    ["2026-03-12", "2026-03-12 00:00:00", "2026-03-12T00:00:00", "2026/03/12", "03/12/2026",
     "12-03-2026", "12.03.2026", "March 12, 2026", "Mar 12, 2026", "12 March 2026"],
)  # fmt: skip
def test_parse_datetime_tries_common_formats(text: str) -> None:
    assert _call("datetime", "parse_datetime", datetime_string=text) == "2026-03-12 00:00:00"


def test_parse_datetime_knows_twelve_formats_and_explicit_ones() -> None:
    assert len(DATE_FORMATS) == 12
    assert _call(
        "datetime", "parse_datetime", datetime_string="12|03|26", input_format="%d|%m|%y",
        output_format="%A %d %B %Y",
    ) == "Thursday 12 March 2026"  # fmt: skip
    with pytest.raises(ToolExecutionError, match="Could not parse 'someday'"):
        _call("datetime", "parse_datetime", datetime_string="someday")


def test_time_difference_units() -> None:
    assert (
        _call("datetime", "time_difference", start_date="2026-01-01", end_date="2026-12-31")
        == "364 days"
    )
    assert _call(
        "datetime", "time_difference", start_date="2026-01-01 10:00", end_date="2026-01-01 11:30",
        unit="minutes",
    ) == "90 minutes"  # fmt: skip
    assert (
        _call(
            "datetime",
            "time_difference",
            start_date="2026-01-02",
            end_date="2026-01-01",
            unit="hours",
        )
        == "-24 hours"
    )


def test_date_arithmetic() -> None:
    assert _call("datetime", "date_arithmetic", date="2026-03-12", value=90) == "2026-06-10"
    assert (
        _call(
            "datetime",
            "date_arithmetic",
            date="2026-03-12",
            operation="subtract",
            value=2,
            unit="weeks",
        )
        == "2026-02-26"
    )
    assert _call("datetime", "date_arithmetic", date="2026-03-12", value=1.5, unit="hours") == (
        "2026-03-12 01:30:00"
    )


# --------------------------------------------------------------------------- text


def test_count_text() -> None:
    text = "Hello world. How are you?\n\nFine!"
    assert _call("text", "count_text", text=text) == (
        "Words: 6\nCharacters: 32\nCharacters (no spaces): 26\nLines: 3\nSentences: 3\nParagraphs: 2"
    )
    assert _call("text", "count_text", text=text, detailed=False) == "6 words"


def test_search_and_replace() -> None:
    text = "Cat cat CAT dog"
    assert _call("text", "search_text", text=text, pattern="cat") == "Found 1 match:\n- 'cat' at 4"
    assert _call(
        "text", "search_text", text=text, pattern="cat", case_sensitive=False, return_matches=False
    ) == ("Found 3 matches")
    assert _call(
        "text", "replace_text", text=text, pattern="cat", replacement="x", case_sensitive=False
    ) == ("x x x dog")
    assert (
        _call(
            "text",
            "replace_text",
            text=text,
            pattern="(\\w+) dog",
            replacement="dog \\1",
            max_replacements=1,
        )
        == "Cat cat dog CAT"
    )
    with pytest.raises(ToolExecutionError, match="Invalid regular expression"):
        _call("text", "search_text", text=text, pattern="(")


def test_extract_emails_and_urls() -> None:
    text = "Contact support@example.com at https://example.com, or sales@example.co.uk (www.example.org)."
    assert _call("text", "extract_emails", text=text) == "support@example.com\nsales@example.co.uk"
    assert _call("text", "extract_urls", text=text) == "https://example.com\nwww.example.org"
    assert _call("text", "extract_emails", text="none here") == "No email addresses found"


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("upper", "HELLO WORLD EXAMPLE"), ("lower", "hello world example"),
        ("title", "Hello World Example"), ("sentence", "Hello world example"),
        ("camel", "helloWorldExample"), ("snake", "hello_world_example"), ("kebab", "hello-world-example"),
    ],
)  # fmt: skip
def test_convert_case(case: str, expected: str) -> None:
    assert _call("text", "convert_case", text="hello world example", case_type=case) == expected


def test_convert_case_splits_camel_input() -> None:
    assert _call("text", "convert_case", text="parseHTTPResponse now", case_type="snake") == (
        "parse_httpresponse_now"
    )
    with pytest.raises(Exception, match="must be one of"):
        _call("text", "convert_case", text="x", case_type="shouting")


def test_truncate_text() -> None:
    assert _call("text", "truncate_text", text="short") == "short"
    out = _call("text", "truncate_text", text="The quick brown fox jumps", max_length=12)
    assert out == "The quick..." and len(out) <= 12
    assert re.fullmatch(
        r"a{7}…", _call("text", "truncate_text", text="a" * 20, max_length=8, suffix="…")
    )


@pytest.mark.parametrize(
    "tool", ["parse_json", "json_to_csv", "extract_json_field", "format_table"]
)
def test_json_nested_past_the_stack_is_a_clear_tool_error(tool) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    arguments: dict[str, object] = {"data" if tool == "format_table" else "json_string": deep}
    if tool == "extract_json_field":
        arguments["field_path"] = "a"
    with pytest.raises(ToolExecutionError, match="nested too deeply to read"):
        _call("data", tool, **arguments)
