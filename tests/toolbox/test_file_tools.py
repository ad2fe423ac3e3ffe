"""File tools: what they read, write, list and stream inside their root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from selectools import Agent, AgentConfig
from selectools.exceptions import ToolExecutionError
from selectools.testing import ScriptedProvider, tool_call
from selectools.toolbox import (
    FileSandbox,
    PathEscapeError,
    ToolboxError,
    file_tools,
    get_all_tools,
    get_tools_by_category,
)

from .conftest import Box


@pytest.fixture
def tools(box: Box) -> dict:
    return {t.name: t for t in get_tools_by_category("file", root=box.root)}


def test_the_model_sees_the_documented_parameters_and_nothing_hidden(tools: dict) -> None:
    props = {name: list(t.schema()["parameters"]["properties"]) for name, t in tools.items()}
    assert props == {
        "read_file": ["filepath", "encoding"],
        "write_file": ["filepath", "content", "mode", "encoding"],
        "list_files": ["directory", "pattern", "show_hidden", "recursive"],
        "file_exists": ["path"],
        "read_file_stream": ["filepath", "encoding"],
        "list_dir": ["path"],
    }
    assert tools["read_file_stream"].streaming
    with pytest.raises(Exception, match="Unexpected parameter"):
        tools["read_file"].execute({"filepath": "notes.txt", "_sandbox": None})


def test_read_and_write_round_trip(tools: dict, box: Box) -> None:
    assert tools["write_file"].execute({"filepath": "out/hello.txt", "content": "Hello World"}) == (
        "Wrote 11 characters to out/hello.txt"
    )
    assert (
        tools["write_file"].execute({"filepath": "out/hello.txt", "content": "!", "mode": "a"})
        == "Appended 1 characters to out/hello.txt"
    )
    assert tools["read_file"].execute({"filepath": "out/hello.txt"}) == "Hello World!"
    assert (box.root / "out" / "hello.txt").read_text() == "Hello World!"
    assert not [p for p in (box.root / "out").iterdir() if p.name.endswith(".tmp")]


def test_write_keeps_the_old_file_when_encoding_fails(tools: dict, box: Box) -> None:
    with pytest.raises(ToolExecutionError, match="codec"):
        tools["write_file"].execute({"filepath": "notes.txt", "content": "é", "encoding": "ascii"})
    assert (box.root / "notes.txt").read_text() == "line one\nline two\n"


def test_bad_mode_is_refused_by_the_schema(tools: dict) -> None:
    with pytest.raises(Exception, match="must be one of"):
        tools["write_file"].execute({"filepath": "x.txt", "content": "x", "mode": "r+"})


def test_list_files_glob_hidden_and_recursive(tools: dict) -> None:
    assert tools["list_files"].execute({}) == "notes.txt"
    assert tools["list_files"].execute({"show_hidden": True}) == ".hidden\nnotes.txt"
    assert tools["list_files"].execute({"pattern": "*.py", "recursive": True}) == "sub/a.py"
    assert tools["list_files"].execute({"directory": "sub"}) == "sub/a.py\nsub/data.csv"
    assert "No files matching '*.md'" in tools["list_files"].execute({"pattern": "*.md"})


def test_list_dir_and_file_exists(tools: dict) -> None:
    assert tools["list_dir"].execute({}) == "sub/\n.hidden (1 bytes)\nnotes.txt (18 bytes)"
    assert tools["file_exists"].execute({"path": "sub"}) == "True: sub is a directory"
    assert (
        tools["file_exists"].execute({"path": "notes.txt"})
        == "True: notes.txt is a file (18 bytes)"
    )
    assert tools["file_exists"].execute({"path": "nope.txt"}) == "False: nope.txt does not exist"


def test_read_file_stream_yields_lines(tools: dict) -> None:
    chunks: list[str] = []
    out = tools["read_file_stream"].execute({"filepath": "notes.txt"}, chunks.append)
    assert chunks == ["line one\n", "line two\n"]
    assert out == "line one\nline two\n"


def test_missing_and_oversized_files_say_what_to_do(box: Box) -> None:
    small = {t.name: t for t in file_tools.make_file_tools(box.root, max_read_bytes=5)}
    with pytest.raises(ToolExecutionError) as info:
        small["read_file"].execute({"filepath": "notes.txt"})
    assert isinstance(info.value.error, ToolboxError)
    assert "read_file_stream" in str(info.value.error)
    with pytest.raises(ToolExecutionError, match="No such file"):
        small["read_file"].execute({"filepath": "missing.txt"})


def test_module_tools_use_the_working_directory(box: Box, monkeypatch) -> None:
    monkeypatch.chdir(box.root)
    assert file_tools.read_file("notes.txt") == "line one\nline two\n"
    assert file_tools.read_file.execute({"filepath": "sub/a.py"}) == "print('a')\n"
    assert file_tools.make_file_tools() == list(file_tools._TOOLS)


def test_root_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ToolboxError, match="not an existing directory"):
        FileSandbox(tmp_path / "nope").stat("x")


def test_two_agents_hold_differently_confined_copies(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "f.txt").write_text("from a")
    (tmp_path / "b" / "f.txt").write_text("from b")
    in_a = {t.name: t for t in get_tools_by_category("file", root=tmp_path / "a")}
    in_b = {t.name: t for t in get_tools_by_category("file", root=tmp_path / "b")}
    assert in_a["read_file"].execute({"filepath": "f.txt"}) == "from a"
    assert in_b["read_file"].execute({"filepath": "f.txt"}) == "from b"


def test_an_agent_writes_and_reads_back(box: Box) -> None:
    provider = ScriptedProvider(
        [
            [tool_call("write_file", filepath="output.txt", content="Hello World")],
            tool_call("read_file", filepath="output.txt"),
            "The file says: Hello World",
        ]
    )
    agent = Agent(
        tools=get_tools_by_category("file", root=box.root),
        provider=provider,
        config=AgentConfig(max_iterations=5),
    )
    result = agent.ask("Write 'Hello World' to output.txt, then read it back")
    assert result.content == "The file says: Hello World"
    assert (box.root / "output.txt").read_text() == "Hello World"
    tool_messages = [m.content for m in provider.requests[-1].messages if m.role.value == "tool"]
    assert tool_messages == ["Wrote 11 characters to output.txt", "Hello World"]


def test_an_agent_is_told_when_a_path_escapes(box: Box) -> None:
    provider = ScriptedProvider(
        [tool_call("read_file", filepath="../outside/secret.txt"), "I may not read that file."]
    )
    agent = Agent(tools=get_tools_by_category("file", root=box.root), provider=provider)
    result = agent.ask("read the secret")
    assert result.content == "I may not read that file."
    seen = next(m.content for m in provider.requests[-1].messages if m.role.value == "tool")
    assert "'..' leaves the root" in seen and "TOP SECRET" not in seen
    assert os.path.exists(box.secret)


def test_root_none_turns_confinement_off_for_every_file_reading_tool(box: Box) -> None:
    tools = {t.name: t for t in get_all_tools(root=None)}
    assert tools["read_file"].execute({"filepath": str(box.secret)}) == "TOP SECRET"
    rows = "".join(tools["process_csv_stream"].execute({"filepath": str(box.outside / "data.csv")}))
    assert rows == 'Row 1: {"k": "secret", "v": "1"}\n'
    assert "secret.txt" in tools["list_dir"].execute({"path": str(box.outside)})
    written = tools["write_file"].execute(
        {"filepath": str(box.outside / "new.txt"), "content": "x"}
    )
    assert written == f"Wrote 1 characters to {box.outside / 'new.txt'}"
    assert (box.outside / "new.txt").read_text() == "x"


def test_the_default_root_is_the_working_directory_and_says_how_to_change_it(
    box: Box, monkeypatch
) -> None:
    monkeypatch.chdir(box.root)
    for tools in (get_all_tools(), get_all_tools(root=".")):
        named = {t.name: t for t in tools}
        for tool, args in (
            (named["read_file"], {"filepath": str(box.secret)}),
            (named["process_csv_stream"], {"filepath": str(box.outside / "data.csv")}),
        ):
            with pytest.raises(ToolExecutionError) as info:
                tool.execute(args)
            message = str(info.value.error)
            assert isinstance(info.value.error, PathEscapeError)
            assert "get_all_tools(root=...)" in message and "root=None" in message


def test_without_openat_the_same_walk_runs_on_paths(box: Box, monkeypatch) -> None:
    # Windows has no openat: the walk then works on path strings (same rules, no race guarantee).
    from selectools.toolbox import _sandbox

    monkeypatch.setattr(_sandbox, "BY_DESCRIPTOR", False)
    (box.root / "docs").symlink_to(box.outside, target_is_directory=True)
    (box.root / "sub" / "inner").symlink_to(box.root / "notes.txt")
    tools = {t.name: t for t in get_tools_by_category("file", root=box.root)}
    assert (
        tools["write_file"]
        .execute({"filepath": "new/a.txt", "content": "one"})
        .endswith("new/a.txt")
    )
    tools["write_file"].execute({"filepath": "new/a.txt", "content": "+two", "mode": "a"})
    assert tools["read_file"].execute({"filepath": "new/a.txt"}) == "one+two"
    assert tools["read_file"].execute({"filepath": "sub/inner"}).startswith("line one")
    listing = tools["list_files"].execute({"recursive": True})
    assert "sub/inner" in listing and "docs" not in listing and "secret" not in listing
    assert "docs (symlink)" in tools["list_dir"].execute({"path": "."})
    for path in ("docs/secret.txt", "../outside/secret.txt", str(box.secret)):
        with pytest.raises(ToolExecutionError) as info:
            tools["read_file"].execute({"filepath": path})
        assert isinstance(info.value.error, PathEscapeError)
