"""Data tools: JSON and CSV conversion, field extraction, tables, CSV streaming.

Everything works on strings the model passes in, except ``process_csv_stream``,
which reads a file and is therefore confined like the file tools
(:func:`make_data_tools` binds it to a root).
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterator
from typing import Any

from ..tools import Tool, tool
from ._bind import bind
from ._sandbox import DEFAULT_SANDBOX, FileSandbox

__all__ = [
    "csv_to_json",
    "extract_json_field",
    "format_table",
    "json_to_csv",
    "make_data_tools",
    "parse_json",
    "process_csv_stream",
]


def _loads(text: str, what: str = "json_string") -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{what} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except RecursionError:  # the model chose the text: any depth is possible
        raise ValueError(f"{what} is nested too deeply to read") from None


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _rows(data: Any, what: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a JSON array of objects (or of arrays: the first is the header)."""
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not data:
        raise ValueError(f"{what} must be a non-empty JSON array of objects")
    if all(isinstance(item, dict) for item in data):
        header: list[str] = []
        for item in data:
            header += [str(k) for k in item if str(k) not in header]
        rows = [[_cell(item.get(k)) for k in header] for item in data]
        return header, rows
    if all(isinstance(item, list) for item in data):
        width = max(len(item) for item in data)
        padded = [[_cell(v) for v in item] + [""] * (width - len(item)) for item in data]
        return padded[0], padded[1:]
    raise ValueError(f"{what} must be an array of objects (or of arrays), not a mix of values")


def _csv(header: list[str], rows: list[list[str]], delimiter: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().rstrip("\n")


@tool
def parse_json(json_string: str, pretty: bool = True) -> str:
    """Validate JSON and return it pretty-printed (or compact).

    Args:
        json_string: The JSON text to validate.
        pretty: Indent the output; False returns it on one line.
    """
    value = _loads(json_string)
    if pretty:
        return json.dumps(value, indent=2, ensure_ascii=False)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@tool
def json_to_csv(json_string: str, delimiter: str = ",") -> str:
    """Convert a JSON array of objects to CSV (the header is the union of the keys).

    Args:
        json_string: A JSON array of objects, e.g. [{"name": "Alice", "age": 30}].
        delimiter: The CSV field separator.
    """
    header, rows = _rows(_loads(json_string), "json_string")
    return _csv(header, rows, delimiter)


@tool
def csv_to_json(csv_string: str, delimiter: str = ",", pretty: bool = True) -> str:
    """Convert CSV with a header row to a JSON array of objects.

    Args:
        csv_string: CSV text whose first row names the columns.
        delimiter: The CSV field separator.
        pretty: Indent the output.
    """
    reader = csv.DictReader(io.StringIO(csv_string.strip()), delimiter=delimiter)
    if not reader.fieldnames:
        raise ValueError("csv_string is empty: it needs a header row")
    rows = [dict(row) for row in reader]
    return json.dumps(rows, indent=2 if pretty else None, ensure_ascii=False)


@tool
def extract_json_field(json_string: str, field_path: str) -> str:
    """Extract a value by dot path, e.g. "user.name" or "items.0.price" (numbers index lists).

    Args:
        json_string: The JSON document.
        field_path: Dot-separated keys; numeric parts index into arrays.
    """
    value = _loads(json_string)
    walked: list[str] = []
    for part in field_path.split("."):
        where = ".".join(walked) or "the document"
        if isinstance(value, list):
            if not part.lstrip("-").isdigit():
                raise ValueError(f"{where} is an array: use a number, not {part!r}")
            index = int(part)
            if not -len(value) <= index < len(value):
                raise ValueError(f"{where} has {len(value)} items: index {index} is out of range")
            value = value[index]
        elif isinstance(value, dict):
            if part not in value:
                keys = ", ".join(map(repr, list(value)[:20]))
                raise ValueError(f"{where} has no field {part!r} (fields: {keys})")
            value = value[part]
        else:
            raise ValueError(f"{where} is {json.dumps(value)}, which has no field {part!r}")
        walked.append(part)
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _simple(header: list[str], rows: list[list[str]]) -> str:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)
    ]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()
    rule = "  ".join("-" * w for w in widths)
    body = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join([line, rule, *body])


def _markdown(header: list[str], rows: list[list[str]]) -> str:
    def esc(cell: str) -> str:
        return cell.replace("|", "\\|").replace("\n", " ")

    lines = [
        "| " + " | ".join(map(esc, header)) + " |",
        "|" + "|".join("---" for _ in header) + "|",
    ]
    lines += ["| " + " | ".join(map(esc, r)) + " |" for r in rows]
    return "\n".join(lines)


@tool(param_metadata={"format_type": {"enum": ["simple", "markdown", "csv"]}})
def format_table(data: str, format_type: str = "simple") -> str:
    """Render a JSON array of objects as a text table ("simple", "markdown" or "csv").

    Args:
        data: A JSON array of objects.
        format_type: "simple" (aligned columns), "markdown" or "csv".
    """
    header, rows = _rows(_loads(data, "data"), "data")
    if format_type == "markdown":
        return _markdown(header, rows)
    if format_type == "csv":
        return _csv(header, rows, ",")
    if format_type == "simple":
        return _simple(header, rows)
    raise ValueError(f"format_type must be 'simple', 'markdown' or 'csv', got {format_type!r}")


@tool
def process_csv_stream(
    filepath: str,
    delimiter: str = ",",
    encoding: str = "utf-8",
    *,
    _sandbox: FileSandbox | None = None,
) -> Iterator[str]:
    """Read a CSV file row by row, streaming each row as a JSON object line (for large files).

    Args:
        filepath: Path of the CSV file, relative to the tools' root directory.
        delimiter: The CSV field separator.
        encoding: Text encoding of the file.
    """
    box = _sandbox if _sandbox is not None else DEFAULT_SANDBOX
    fd, _ = box.open_file(filepath)
    with os.fdopen(fd, "r", encoding=encoding, newline="") as handle:
        for number, row in enumerate(csv.DictReader(handle, delimiter=delimiter), 1):
            yield f"Row {number}: {json.dumps(row, ensure_ascii=False)}\n"


_TOOLS = (
    parse_json,
    json_to_csv,
    csv_to_json,
    extract_json_field,
    format_table,
    process_csv_stream,
)


def make_data_tools(sandbox: FileSandbox | None = None) -> list[Tool]:
    """The data tools; ``process_csv_stream`` confined by ``sandbox`` (default: working directory)."""
    if sandbox is None or sandbox == DEFAULT_SANDBOX:
        return list(_TOOLS)
    return [bind(t, _sandbox=sandbox) if t is process_csv_stream else t for t in _TOOLS]
