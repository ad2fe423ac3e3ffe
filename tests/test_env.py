"""The tiny .env reader: what it accepts, what it skips, and that it never overrides."""

from __future__ import annotations

import os

import pytest

from selectools._env import DotenvWarning, env_value, parse_dotenv, read_dotenv


def test_parses_the_usual_forms():
    text = (
        "# comment\n"
        "\n"
        "PLAIN=value\n"
        "export EXPORTED=yes\n"
        "SPACED = padded  \n"
        "SINGLE='literal \\n # kept'\n"
        'DOUBLE="line\\nbreak \\"quoted\\" \\\\ end"\n'
        "INLINE=value # trailing comment\n"
        "HASH=abc#def\n"
        "EMPTY=\n"
    )
    assert parse_dotenv(text) == {
        "PLAIN": "value",
        "EXPORTED": "yes",
        "SPACED": "padded",
        "SINGLE": "literal \\n # kept",
        "DOUBLE": 'line\nbreak "quoted" \\ end',
        "INLINE": "value",
        "HASH": "abc#def",
        "EMPTY": "",
    }


def test_bad_lines_are_skipped_with_a_warning_that_hides_their_content():
    with pytest.warns(DotenvWarning) as caught:
        values = parse_dotenv("GOOD=1\nthis is not a setting sk-secret\nBROKEN='open\nLATER=2\n")
    assert values == {"GOOD": "1", "LATER": "2"}
    assert [str(w.message).split(":")[1].split(" is")[0] for w in caught] == [" line 2", " line 3"]
    assert all("sk-secret" not in str(w.message) for w in caught)


def test_read_dotenv_uses_the_working_directory_and_notices_changes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert read_dotenv() == {}
    env_file = tmp_path / ".env"
    env_file.write_text("A=1\n")
    assert read_dotenv() == {"A": "1"}
    env_file.write_text("A=2\nB=3\n")
    assert read_dotenv() == {"A": "2", "B": "3"}
    assert read_dotenv(env_file) == {"A": "2", "B": "3"}


def test_env_value_prefers_the_environment_and_never_writes_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("SELECTOOLS_T_ONE=file\nSELECTOOLS_T_TWO=file-two\n")
    monkeypatch.setenv("SELECTOOLS_T_ONE", "env")
    monkeypatch.delenv("SELECTOOLS_T_TWO", raising=False)
    assert env_value("SELECTOOLS_T_ONE") == "env"
    assert env_value("SELECTOOLS_T_TWO") == "file-two"
    assert "SELECTOOLS_T_TWO" not in os.environ
    assert env_value("SELECTOOLS_T_MISSING", "SELECTOOLS_T_TWO") == "file-two"
    assert env_value("SELECTOOLS_T_MISSING") is None


def test_empty_values_count_as_unset(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SELECTOOLS_T_EMPTY", "")
    (tmp_path / ".env").write_text("SELECTOOLS_T_EMPTY=from-file\n")
    assert env_value("SELECTOOLS_T_EMPTY") == "from-file"


def test_the_nearest_env_above_the_working_directory_is_found(tmp_path, monkeypatch):
    # a notebook in notebooks/ runs with that folder as its working directory
    (tmp_path / ".env").write_text("SELECTOOLS_T_KEY=from-project-root\n")
    notebooks = tmp_path / "notebooks" / "deeper"
    notebooks.mkdir(parents=True)
    monkeypatch.chdir(notebooks)
    monkeypatch.delenv("SELECTOOLS_T_KEY", raising=False)
    assert env_value("SELECTOOLS_T_KEY") == "from-project-root"
    # a nearer file wins over the one further up
    (tmp_path / "notebooks" / ".env").write_text("SELECTOOLS_T_KEY=nearer\n")
    assert env_value("SELECTOOLS_T_KEY") == "nearer"


def test_multi_line_values_and_variable_expansion(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SELECTOOLS_T_HOST", "db.internal")
    (tmp_path / ".env").write_text(
        'PRIVATE_KEY="-----BEGIN KEY-----\nabc\n-----END KEY-----"\n'
        "BASE=https://${SELECTOOLS_T_HOST}:8443\n"
        "URL=${BASE}/v1\n"
    )
    values = read_dotenv()
    assert values["PRIVATE_KEY"] == "-----BEGIN KEY-----\nabc\n-----END KEY-----"
    assert values["BASE"] == "https://db.internal:8443"
    assert values["URL"] == "https://db.internal:8443/v1"
