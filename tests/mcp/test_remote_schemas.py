"""A server's input schema is checked with ``jsonschema`` (any standard keyword), its
regexes under a time limit, and a hostile schema fails as a clear tool error."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from selectools import Tool
from selectools.exceptions import ToolValidationError
from selectools.mcp import MCPServerConfig, mcp_tools

HOSTILE = Path(__file__).with_name("hostile_server.py")


@pytest.fixture(scope="module")
def tools() -> Iterator[dict[str, Tool]]:
    config = MCPServerConfig(
        command=sys.executable, args=[str(HOSTILE)], timeout=20.0, connect_timeout=60.0
    )
    with mcp_tools(config) as listed:
        yield {t.name: t for t in listed}


def test_a_tuple_parameter_is_accepted_and_checked(tools):
    pair = tools["pair"]
    assert json.loads(pair.execute({"pair": [1, "one"]}))["args"] == {"pair": [1, "one"]}
    with pytest.raises(ToolValidationError, match=r"\$\.pair\[1\]"):
        pair.execute({"pair": [1, 2]})
    with pytest.raises(ToolValidationError, match="pair"):
        pair.execute({"pair": [1, "one", "extra"]})


def test_pattern_properties_are_not_additional(tools):
    labels = tools["labels"]
    sent = {"labels": {"x-team": "core", "x-env": "prod"}}
    assert json.loads(labels.execute(sent))["args"] == sent
    with pytest.raises(ToolValidationError, match="unexpected property 'team'"):
        labels.execute({"labels": {"team": "core"}})
    with pytest.raises(ToolValidationError, match=r"\$\.labels\.x-team"):
        labels.execute({"labels": {"x-team": 3}})


def test_a_backtracking_name_pattern_is_stopped(tools):
    began = time.monotonic()
    with pytest.raises(ToolValidationError, match="could not be checked"):
        tools["names"].execute({"tags": {"a" * 30 + "!": 1}})
    assert time.monotonic() - began < 10  # the regex's 1 s CPU limit, stretched by load


def test_a_remote_ref_is_never_fetched(tools):
    with pytest.raises(ToolValidationError, match="could not be applied"):
        tools["remote"].execute({"x": 1})
