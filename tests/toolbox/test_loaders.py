"""get_all_tools / get_tools_by_category: the documented categories, names and import paths."""

from __future__ import annotations

import pytest

from selectools import Agent, AgentConfig, tool
from selectools.testing import ScriptedProvider, tool_call
from selectools.toolbox import CATEGORIES, get_all_tools, get_tools_by_category
from selectools.tools import Tool

DOCUMENTED = {
    "file": ["read_file", "write_file", "list_files", "file_exists", "read_file_stream"],
    "web": ["http_get", "http_post"],
    "data": ["parse_json", "json_to_csv", "csv_to_json", "extract_json_field", "format_table", "process_csv_stream"],
    "datetime": ["get_current_time", "parse_datetime", "time_difference", "date_arithmetic"],
    "text": ["count_text", "search_text", "replace_text", "extract_emails", "extract_urls", "convert_case", "truncate_text"],
}  # fmt: skip
OTHER_PAGES = {"file": ["list_dir"], "web": ["web_search"]}  # SERVE / TEMPLATES use these


def test_categories_hold_the_documented_tools_plus_the_two_other_pages_use() -> None:
    assert CATEGORIES == ("file", "web", "data", "datetime", "text")
    for category in CATEGORIES:
        names = [t.name for t in get_tools_by_category(category)]
        assert names == DOCUMENTED[category] + OTHER_PAGES.get(category, [])
    assert sum(len(v) for v in DOCUMENTED.values()) == 24


def test_get_all_tools_is_every_category_in_order() -> None:
    tools = get_all_tools()
    assert all(isinstance(t, Tool) for t in tools)
    assert [t.name for t in tools] == [t.name for c in CATEGORIES for t in get_tools_by_category(c)]
    assert len(tools) == len({t.name for t in tools}) == 26


def test_unknown_category_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="Unknown toolbox category 'invalid'; choose one of"):
        get_tools_by_category("invalid")


def test_documented_import_paths() -> None:
    from selectools.toolbox.data_tools import json_to_csv, parse_json
    from selectools.toolbox.datetime_tools import get_current_time
    from selectools.toolbox.file_tools import list_dir, read_file, write_file
    from selectools.toolbox.text_tools import convert_case, extract_emails
    from selectools.toolbox.web_tools import http_get, web_search

    for t in (read_file, write_file, list_dir, http_get, web_search, parse_json, json_to_csv,
              extract_emails, convert_case, get_current_time):  # fmt: skip
        assert isinstance(t, Tool)


def test_ragged_arrays_make_a_rectangular_table() -> None:
    from selectools.toolbox.data_tools import format_table

    assert format_table('[["a", "b"], [1], [2, 3, 4]]', "csv") == "a,b,\n1,,\n2,3,4"


def test_every_schema_is_complete() -> None:
    for t in get_all_tools():
        schema = t.schema()
        assert schema["description"]
        for name, prop in schema["parameters"]["properties"].items():
            assert not name.startswith("_")
            assert prop["description"] and not prop["description"].startswith("Parameter '")


def test_mixing_with_custom_tools_in_an_agent() -> None:
    @tool(description="Query our internal database")
    def query_db(sql: str) -> str:
        return "results..."

    provider = ScriptedProvider(
        [
            [
                tool_call("query_db", sql="select 1"),
                tool_call("convert_case", text="a b", case_type="kebab"),
            ],
            "done",
        ]
    )
    agent = Agent(
        tools=[query_db] + get_tools_by_category("data") + get_tools_by_category("text"),  # noqa: RUF005 (as documented)
        provider=provider,
        config=AgentConfig(max_iterations=5),
    )
    assert agent.ask("go").content == "done"
    results = [m.content for m in provider.requests[-1].messages if m.role.value == "tool"]
    assert results == ["results...", "a-b"]
