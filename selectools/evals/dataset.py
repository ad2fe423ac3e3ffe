"""``DatasetLoader``: test cases from JSON, YAML, CSV or JSONL files.

Each record's keys are ``TestCase`` fields. A file that cannot be read raises
:class:`DatasetError` naming the file, the line and what was expected there,
because a dataset is usually edited by hand and "invalid dataset" alone sends
the user hunting.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._install import install_hint
from .case import CASE_FIELDS, EvalError, TestCase

__all__ = ["DatasetError", "DatasetLoader"]

_LIST_FIELDS = {"tags", "expect_tools"}
_BOOL_FIELDS = {"expect_json", "expect_no_pii", "expect_no_injection", "skip"}
_INT_FIELDS = {"expect_min_length", "expect_max_length", "expect_iterations_lte"}
_FLOAT_FIELDS = {"expect_latency_ms_lte", "expect_cost_usd_lte", "weight"}
_DICT_FIELDS = {"expect_tool_args", "expect_parsed", "metadata"}


class DatasetError(EvalError):
    """A dataset file is missing or malformed: ``path``, ``line`` (1-based, if known), ``expected``."""

    def __init__(self, path: str | os.PathLike[str], line: int | None, problem: str) -> None:
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}")


def _case(path: Path, line: int | None, record: Any) -> TestCase:
    if not isinstance(record, dict):
        raise DatasetError(
            path, line, f"expected a test case object with an 'input', got {type(record).__name__}"
        )
    unknown = sorted(set(record) - CASE_FIELDS)
    if unknown:
        raise DatasetError(
            path,
            line,
            f"unknown field(s) {unknown}; expected TestCase fields such as input, name, "
            "expect_tool, expect_contains, tags, weight",
        )
    if not isinstance(record.get("input"), str):
        raise DatasetError(path, line, "expected an 'input' string (the prompt) in every case")
    try:
        return TestCase(**record)
    except (TypeError, ValueError, EvalError) as exc:
        raise DatasetError(path, line, f"invalid test case: {exc}") from None


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


class DatasetLoader:
    """Reads test cases; ``load`` picks the format from the file extension."""

    @staticmethod
    def _read(path: str | os.PathLike[str]) -> tuple[Path, str]:
        target = Path(path)
        if not target.is_file():
            raise DatasetError(
                target, None, "no such dataset file (expected a .json, .yaml, .csv or .jsonl file)"
            )
        return target, target.read_text(encoding="utf-8")

    @classmethod
    def from_json(cls, path: str | os.PathLike[str]) -> list[TestCase]:
        """A JSON array of case objects (or ``{"cases": [...]}``)."""
        target, text = cls._read(path)
        return cls.parse_json(text, target)

    @staticmethod
    def parse_json(text: str, path: str | os.PathLike[str] = "<json>") -> list[TestCase]:
        target = Path(path)
        decoder = json.JSONDecoder()
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DatasetError(
                target, exc.lineno, f"invalid JSON: {exc.msg} (column {exc.colno})"
            ) from None
        if isinstance(data, dict) and isinstance(data.get("cases"), list):
            start = text.index("[", text.index('"cases"'))
        elif isinstance(data, list):
            start = text.index("[")
        else:
            raise DatasetError(
                target, 1, 'expected a JSON array of test cases (or {"cases": [...]})'
            )
        cases: list[TestCase] = []
        pos = start + 1
        while True:  # walk the array to know each item's line
            while pos < len(text) and text[pos] in " \t\r\n,":
                pos += 1
            if pos >= len(text) or text[pos] == "]":
                break
            record, end = decoder.raw_decode(text, pos)
            cases.append(_case(target, _line_of(text, pos), record))
            pos = end
        return cases

    @classmethod
    def from_jsonl(cls, path: str | os.PathLike[str]) -> list[TestCase]:
        """One JSON case object per line (blank lines ignored)."""
        target, text = cls._read(path)
        cases = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(
                    target,
                    number,
                    f"expected one JSON object per line: {exc.msg} (column {exc.colno})",
                ) from None
            cases.append(_case(target, number, record))
        return cases

    @classmethod
    def from_yaml(cls, path: str | os.PathLike[str]) -> list[TestCase]:
        """A YAML list of case mappings (or a mapping with ``cases:``); needs PyYAML."""
        target, text = cls._read(path)
        return cls.parse_yaml(text, target)

    @staticmethod
    def parse_yaml(text: str, path: str | os.PathLike[str] = "<yaml>") -> list[TestCase]:
        try:
            import yaml
        except ModuleNotFoundError:
            raise EvalError(
                f"YAML datasets need PyYAML: {install_hint('evals')} (or pip install pyyaml)"
            ) from None
        target = Path(path)
        try:
            node = yaml.compose(text, Loader=yaml.SafeLoader)
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark is not None else None
            problem = getattr(exc, "problem", None) or str(exc)
            raise DatasetError(target, line, f"invalid YAML: {problem}") from None
        if isinstance(data, dict) and isinstance(data.get("cases"), list):
            items = data["cases"]
            node = next(v for k, v in node.value if k.value == "cases")
        elif isinstance(data, list):
            items = data
        else:
            raise DatasetError(target, 1, "expected a YAML list of test cases (or a 'cases:' list)")
        return [
            _case(target, item_node.start_mark.line + 1, item)
            for item, item_node in zip(items, node.value, strict=False)
        ]

    @classmethod
    def from_csv(cls, path: str | os.PathLike[str]) -> list[TestCase]:
        """A header row of TestCase fields, then one case per row.

        Lists (``tags``, ``expect_tools``) are ``|``-separated; ``expect_tool_args``
        / ``expect_parsed`` cells hold JSON; empty cells are unset.
        """
        target, text = cls._read(path)
        return cls.parse_csv(text, target)

    @staticmethod
    def parse_csv(text: str, path: str | os.PathLike[str] = "<csv>") -> list[TestCase]:
        target = Path(path)
        reader = csv.DictReader(io.StringIO(text))
        header = reader.fieldnames or []
        unknown = [h for h in header if h not in CASE_FIELDS]
        if "input" not in header or unknown:
            raise DatasetError(
                target,
                1,
                "expected a header row of TestCase fields including 'input'"
                + (f"; unknown column(s) {unknown}" if unknown else ""),
            )
        cases = []
        line = reader.line_num
        for row in reader:
            record: dict[str, Any] = {}
            for key, raw in row.items():
                if key is None:
                    raise DatasetError(
                        target, line + 1, f"more cells than the {len(header)} columns"
                    )
                if raw is None or raw == "":
                    continue
                record[key] = _cell(target, line + 1, key, raw)
            cases.append(_case(target, line + 1, record))
            line = reader.line_num
        return cases

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> list[TestCase]:
        """Pick the loader from the extension: .json, .jsonl, .yaml/.yml, .csv."""
        suffix = Path(path).suffix.lower()
        loaders: dict[str, Callable[[str | os.PathLike[str]], list[TestCase]]] = {
            ".json": cls.from_json,
            ".jsonl": cls.from_jsonl,
            ".ndjson": cls.from_jsonl,
            ".yaml": cls.from_yaml,
            ".yml": cls.from_yaml,
            ".csv": cls.from_csv,
        }
        if suffix not in loaders:
            raise DatasetError(
                path,
                None,
                f"unknown dataset extension {suffix!r}: expected .json, .jsonl, .yaml, .yml or .csv",
            )
        return loaders[suffix](path)


def _cell(path: Path, line: int, key: str, raw: str) -> Any:
    value = raw.strip()
    try:
        if key in _LIST_FIELDS:
            return [v.strip() for v in value.split("|") if v.strip()]
        if key in _BOOL_FIELDS:
            lowered = value.lower()
            if lowered not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError("expected true or false")
            return lowered in ("true", "1", "yes")
        if key in _INT_FIELDS:
            return int(value)
        if key in _FLOAT_FIELDS:
            return float(value)
        if key in _DICT_FIELDS:
            data = json.loads(value)
            if not isinstance(data, dict):
                raise ValueError("expected a JSON object")
            return data
    except ValueError as exc:
        raise DatasetError(path, line, f"column {key!r}: {exc} (got {raw!r})") from None
    return raw
