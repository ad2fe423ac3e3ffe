"""``data_analyst``: SQL over a SQLite database plus the toolbox's JSON/CSV tools.

``database=`` is the SQLite file ``query_sqlite`` reads (read-only, see
:mod:`selectools.toolbox.database_tools`); without it the SQL tool is left out.
"""

from __future__ import annotations

from typing import Any

from ..toolbox.data_tools import csv_to_json, extract_json_field, json_to_csv, parse_json
from ._build import build_template

SYSTEM_PROMPT = """You are a careful data analyst.
Explore the data before drawing conclusions: check the schema, run small queries,
then aggregate. Show the query or steps behind every number, state assumptions,
and summarise trends in plain language with the key figures."""


def build(provider: Any, *, database: str | None = None, **overrides: Any) -> Any:
    tools: list[Any] = [parse_json, json_to_csv, csv_to_json, extract_json_field]
    if database is not None:
        from ..toolbox.database_tools import make_database_tools

        tools = [*make_database_tools(database), *tools]
    return build_template(
        "data_analyst", provider, tools, SYSTEM_PROMPT, overrides, max_iterations=8
    )
