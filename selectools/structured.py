"""Structured output: ask the model for JSON matching a schema, check it, return a typed value.

``response_format`` is a pydantic model class (or any type pydantic can validate,
such as a dataclass or ``list[Model]``), or a JSON Schema ``dict``. The agent
appends :func:`build_schema_instruction` to the system prompt for the run, runs
the final answer through :func:`parse_and_validate`, and on failure sends
:func:`validation_retry_message` back to the model and asks again, within the
structured retry budget (``AgentConfig(retry=RetryConfig(max_retries=...))``),
which is separate from ``max_iterations``.

pydantic is imported only when a pydantic type is used, so ``import
selectools`` stays light.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Union

from ._jsonschema import validate as validate_json_schema
from .exceptions import SelectoolsError
from .parser import json_candidates

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = [
    "ResponseFormat",
    "StructuredOutputError",
    "build_schema_instruction",
    "extract_json",
    "parse_and_validate",
    "schema_from_response_format",
    "validation_retry_message",
]

ResponseFormat = Union[type[Any], dict[str, Any]]  # noqa: UP007 - a runtime alias users import
"""What ``response_format`` accepts: a pydantic model (or other type) or a JSON Schema dict."""

# one way to match the spaces before the newline (two adjacent [ \t]* made it quadratic)
_FENCE = re.compile(r"```[ \t]*(?:([A-Za-z0-9_-]+)[ \t]*)?\n(.*?)```", re.DOTALL)


class StructuredOutputError(SelectoolsError, ValueError):
    """The model never produced output matching ``response_format`` within the retry budget.

    ``attempts`` counts the answers that were checked, ``last_error`` says why
    the last one failed and ``content`` is that answer's raw text.
    """

    def __init__(self, attempts: int, last_error: str, content: str) -> None:
        self.attempts = attempts
        self.last_error = last_error
        self.content = content
        super().__init__(
            f"The model's answer did not match response_format after {attempts} attempt(s). "
            f"Last problem: {last_error}. Raise the budget with "
            "AgentConfig(retry=RetryConfig(max_retries=...)) or simplify the schema."
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.attempts, self.last_error, self.content))


# -- finding JSON in text -----------------------------------------------------
def extract_json(text: str) -> str | None:
    """The first JSON object or array in ``text`` (fenced code blocks first), else ``None``.

    One linear scan (:func:`selectools.parser.json_candidates`) skips brackets
    inside strings, so prose around the JSON (or a second JSON value after it)
    is ignored; values nested deeper than ``MAX_NESTING`` are not returned.
    """
    if not isinstance(text, str):
        return None
    for match in _FENCE.finditer(text):
        found = _first_json_value(match.group(2))
        if found is not None:
            return found
    return _first_json_value(text)


def _first_json_value(text: str) -> str | None:
    for begin, end in json_candidates(text):
        candidate = text[begin:end]
        try:
            json.loads(candidate)
        except ValueError:
            continue
        return candidate
    return None


# -- schemas ------------------------------------------------------------------
def _is_pydantic_model(fmt: Any) -> bool:
    return isinstance(fmt, type) and callable(getattr(fmt, "model_json_schema", None))


def _adapter(fmt: Any) -> TypeAdapter[Any]:
    from pydantic import PydanticSchemaGenerationError, TypeAdapter

    try:
        return TypeAdapter(fmt)
    except (PydanticSchemaGenerationError, TypeError) as exc:
        raise TypeError(_bad_format(fmt)) from exc


def _bad_format(fmt: Any) -> str:
    return (
        f"response_format must be a pydantic model class, a type pydantic can validate "
        f"(dataclass, TypedDict, list[Model]…) or a JSON Schema dict; got {fmt!r}"
    )


def schema_from_response_format(fmt: ResponseFormat) -> dict[str, Any]:
    """The JSON Schema for ``fmt``: a dict schema as is, a pydantic type's generated schema."""
    if isinstance(fmt, dict):
        if not fmt:
            raise ValueError("response_format is an empty dict; give a JSON Schema")
        return fmt
    if _is_pydantic_model(fmt):
        return dict(fmt.model_json_schema())
    if fmt is None or isinstance(fmt, (str, bytes, int, float, list, tuple)):
        raise TypeError(_bad_format(fmt))
    return dict(_adapter(fmt).json_schema())


def build_schema_instruction(schema: dict[str, Any]) -> str:
    """The system-prompt section telling the model to answer with JSON matching ``schema``."""
    rendered = json.dumps(schema, indent=2, sort_keys=False, default=str)
    return (
        "## Response format\n"
        "Your final answer must be one JSON value that matches this JSON Schema. "
        "Reply with the JSON only: no explanation before or after it.\n"
        f"```json\n{rendered}\n```"
    )


def validation_retry_message(error: BaseException | str) -> str:
    """What the model is told when its answer did not validate, so it can correct it."""
    return (
        "Your previous answer could not be accepted: "
        f"{error}\n"
        "Reply again with only a JSON value that matches the required JSON Schema."
    )


# -- validation ---------------------------------------------------------------
def parse_and_validate(text: str, fmt: ResponseFormat) -> Any:
    """Extract the JSON in ``text`` and validate it against ``fmt``.

    Returns an instance of the pydantic type, or the decoded JSON for a dict
    schema. Raises ``ValueError`` saying what was wrong (no JSON, invalid JSON,
    or which field failed and why).
    """
    if not isinstance(text, str):
        raise ValueError(f"expected the response text (str), got {type(text).__name__}")
    raw = extract_json(text)
    try:
        # no object or array: the whole answer may still be a bare JSON scalar
        data = json.loads(raw if raw is not None else text.strip())
    except ValueError:
        raise ValueError(
            "no JSON object or array found in the response" if raw is None else "invalid JSON"
        ) from None
    except RecursionError:  # the model's text decides the depth
        raise ValueError("the JSON is nested too deeply") from None
    try:
        if isinstance(fmt, dict):
            schema_from_response_format(fmt)
            validate_json_schema(data, fmt)
            return data
        return _validate_typed(data, fmt)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply") from None


def _validate_typed(data: Any, fmt: Any) -> Any:
    from pydantic import ValidationError

    try:
        if _is_pydantic_model(fmt):
            return fmt.model_validate(data)
        return _adapter(fmt).validate_python(data)
    except ValidationError as exc:
        problems = []
        for item in exc.errors(include_url=False):
            where = ".".join(str(part) for part in item.get("loc", ())) or "value"
            problems.append(f"{where}: {item.get('msg', 'invalid')}")
        raise ValueError("; ".join(problems) or str(exc)) from None
