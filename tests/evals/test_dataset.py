"""DatasetLoader: the four formats, and errors that name the file, the line and what was expected."""

from __future__ import annotations

import pytest

from selectools.evals import DatasetError, DatasetLoader, TestCase

EXPECTED = [
    TestCase(input="Cancel account", expect_tool="cancel_sub", name="cancel"),
    TestCase(input="Check balance", expect_contains="balance", tags=["billing"]),
]


def test_json_as_documented(tmp_path):
    path = tmp_path / "cases.json"
    path.write_text(
        '[\n    {"input": "Cancel account", "expect_tool": "cancel_sub", "name": "cancel"},\n'
        '    {"input": "Check balance", "expect_contains": "balance", "tags": ["billing"]}\n]\n'
    )
    assert DatasetLoader.from_json(path) == EXPECTED
    assert DatasetLoader.load(path) == EXPECTED


def test_yaml(tmp_path):
    path = tmp_path / "cases.yaml"
    path.write_text(
        "- input: Cancel account\n  expect_tool: cancel_sub\n  name: cancel\n"
        "- input: Check balance\n  expect_contains: balance\n  tags: [billing]\n"
    )
    assert DatasetLoader.from_yaml(path) == EXPECTED
    assert DatasetLoader.load(path) == EXPECTED
    wrapped = tmp_path / "wrapped.yml"
    wrapped.write_text(
        "cases:\n" + "".join("  " + line + "\n" for line in path.read_text().splitlines())
    )
    assert DatasetLoader.load(wrapped) == EXPECTED


def test_csv_with_lists_numbers_and_json_cells(tmp_path):
    path = tmp_path / "cases.csv"
    path.write_text(
        "input,name,expect_tool,expect_contains,tags,weight,expect_json,expect_tool_args\n"
        "Cancel account,cancel,cancel_sub,,,,,\n"
        "Check balance,,,balance,billing,,,\n"
        'Search,s,,,a|b,2.5,true,"{""search"": {""query"": ""python""}}"\n'
    )
    cases = DatasetLoader.load(path)
    assert cases[:2] == EXPECTED
    assert cases[2] == TestCase(
        input="Search",
        name="s",
        tags=["a", "b"],
        weight=2.5,
        expect_json=True,
        expect_tool_args={"search": {"query": "python"}},
    )


def test_jsonl(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text(
        '{"input": "Cancel account", "expect_tool": "cancel_sub", "name": "cancel"}\n\n'
        '{"input": "Check balance", "expect_contains": "balance", "tags": ["billing"]}\n'
    )
    assert DatasetLoader.load(path) == EXPECTED


@pytest.mark.parametrize(
    ("name", "text", "line", "expected"),
    [
        ("bad.json", '[\n  {"input": "a"},\n  {"input": "b",}\n]', 3, "invalid JSON"),
        ("noinput.json", '[\n  {"input": "a"},\n\n  {"expect_tool": "x"}\n]', 4, "'input' string"),
        (
            "unknown.json",
            '[\n  {"input": "a", "expect_tol": "x"}\n]',
            2,
            "unknown field(s) ['expect_tol']",
        ),
        ("object.json", '{"input": "a"}', 1, "expected a JSON array"),
        ("bad.jsonl", '{"input": "a"}\n{"input": \n', 2, "one JSON object per line"),
        ("bad.yaml", "- input: a\n- input: [unclosed\n", 3, "invalid YAML"),
        ("scalar.yaml", "- input: a\n- just a string\n", 2, "expected a test case object"),
        ("bad.csv", "input,weight\nfine,1\nbad,heavy\n", 3, "column 'weight'"),
        ("header.csv", "prompt,expect_tool\nx,y\n", 1, "header row"),
        ("bool.csv", "input,expect_json\nx,maybe\n", 2, "expected true or false"),
    ],
)
def test_malformed_dataset_names_file_line_and_expectation(tmp_path, name, text, line, expected):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(DatasetError) as caught:
        DatasetLoader.load(path)
    error = caught.value
    assert error.path == str(path) and error.line == line
    assert expected in str(error)
    assert str(error).startswith(f"{path}:{line}: ")


def test_missing_file_and_unknown_extension(tmp_path):
    with pytest.raises(DatasetError, match="no such dataset file"):
        DatasetLoader.load(tmp_path / "nope.json")
    (tmp_path / "cases.txt").write_text("x")
    with pytest.raises(DatasetError, match=r"unknown dataset extension '\.txt'"):
        DatasetLoader.load(tmp_path / "cases.txt")
