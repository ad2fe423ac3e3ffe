"""Writes :mod:`selectools._events`, the typed observer methods, from the table below.

Run ``python scripts/gen_events.py`` after editing :data:`SPECS`; a test
(``tests/test_typing.py``) fails while the checked-in module differs from what
this script writes. The same run rewrites the event table of the observers
page, ``docs/observers.md`` (between its ``events-table`` markers), which a
test (``tests/test_observer_payloads.py``) also compares.

Why generate rather than write the methods by hand: each event exists three
times (a sync method, an ``a_``-prefixed async twin, a row of ``EVENTS`` with
its scope and parameter names) and the three must agree. One table written
once keeps them in step, while the output is ordinary checked-in Python that
mypy and IDEs read like any other module (the previous version built the
methods with ``exec`` at import, which type checkers cannot see), and import
costs nothing extra: no ``inspect`` and no code generation at runtime.

It is a development tool, so it lives in ``scripts/`` and is not shipped in the
wheel; only its output, ``selectools/_events.py``, is.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "EVENTS_PAGE",
    "SPECS",
    "TABLE_END",
    "TABLE_START",
    "TARGET",
    "render",
    "render_table",
    "with_table",
]

#: event name -> (scope, ((parameter after ``run_id``, its type), ...)).
#: Add an event only together with the code that emits it.
SPECS: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "on_run_start": ("run", (("messages", "list[Message]"), ("system_prompt", "str"))),
    "on_run_end": ("run", (("result", "AgentResult"),)),
    "on_error": ("run", (("error", "BaseException"), ("context", "dict[str, Any]"))),
    "on_cancelled": ("run", (("reason", "str"),)),
    "on_budget_exceeded": (
        "run",
        (("reason", "str"), ("tokens_used", "int"), ("cost_used", "float")),
    ),
    "on_iteration_start": ("iteration", (("iteration", "int"), ("messages", "list[Message]"))),
    "on_iteration_end": ("iteration", (("iteration", "int"), ("response", "ReplyText"))),
    "on_llm_start": (
        "llm",
        (("messages", "list[Message]"), ("model", "str"), ("system_prompt", "str")),
    ),
    "on_llm_end": ("llm", (("response", "ReplyText"), ("usage", "UsageStats"))),
    "on_stream_chunk": ("llm", (("chunk", "str"),)),
    "on_cache_hit": ("llm", (("model", "str"), ("response", "ReplyText"))),
    "on_usage": ("llm", (("usage", "UsageStats"),)),
    "on_llm_retry": (
        "llm",
        (
            ("attempt", "int"),
            ("max_retries", "int"),
            ("error", "BaseException"),
            ("backoff_seconds", "float"),
        ),
    ),
    "on_provider_fallback": (
        "llm",
        (("failed_provider", "str"), ("next_provider", "str"), ("error", "BaseException")),
    ),
    "on_tool_start": (
        "tool",
        (("call_id", "str"), ("tool_name", "str"), ("tool_args", "dict[str, Any]")),
    ),
    "on_tool_end": (
        "tool",
        (("call_id", "str"), ("tool_name", "str"), ("result", "str"), ("duration_ms", "float")),
    ),
    "on_tool_error": (
        "tool",
        (
            ("call_id", "str"),
            ("tool_name", "str"),
            ("error", "BaseException"),
            ("tool_args", "dict[str, Any]"),
            ("duration_ms", "float"),
        ),
    ),
    "on_tool_chunk": ("tool", (("call_id", "str"), ("tool_name", "str"), ("chunk", "str"))),
    "on_policy_decision": (
        "policy",
        (
            ("tool_name", "str"),
            ("decision", "PolicyDecision"),
            ("reason", "str"),
            ("tool_args", "dict[str, Any]"),
        ),
    ),
    "on_approval_request": ("policy", (("request", "ApprovalRequest"),)),
    "on_structured_validate": (
        "structured",
        (("success", "bool"), ("attempt", "int"), ("error", "str | None")),
    ),
    "on_batch_start": ("batch", (("prompts_count", "int"),)),
    "on_batch_end": (
        "batch",
        (("results_count", "int"), ("errors_count", "int"), ("total_duration_ms", "float")),
    ),
    "on_memory_trim": (
        "memory",
        (("messages_removed", "int"), ("messages_remaining", "int"), ("reason", "str")),
    ),
    "on_memory_summarize": ("memory", (("summary", "str"), ("messages_summarized", "int"))),
    "on_session_load": ("memory", (("session_id", "str"), ("message_count", "int"))),
    "on_session_save": ("memory", (("session_id", "str"), ("message_count", "int"))),
    "on_guardrail_triggered": (
        "guardrail",
        (("guardrail_name", "str"), ("side", "str"), ("action", "str"), ("reason", "str")),
    ),
    "on_coherence_blocked": (
        "guardrail",
        (
            ("call_id", "str"),
            ("tool_name", "str"),
            ("tool_args", "dict[str, Any]"),
            ("explanation", "str"),
        ),
    ),
    "on_tool_output_screened": (
        "guardrail",
        (
            ("call_id", "str"),
            ("tool_name", "str"),
            ("safe", "bool"),
            ("matched_patterns", "list[str]"),
        ),
    ),
    "on_entity_extraction": (
        "memory",
        (("entities_extracted", "int"), ("entities_total", "int"), ("entities", "list[Any]")),
    ),
    "on_kg_extraction": (
        "memory",
        (("triples_extracted", "int"), ("triples_total", "int"), ("triples", "list[Any]")),
    ),
    "on_graph_start": (
        "graph",
        (("graph_name", "str"), ("entry_node", "str"), ("state", "Any")),
    ),
    "on_graph_end": (
        "graph",
        (("graph_name", "str"), ("steps", "int"), ("total_duration_ms", "float")),
    ),
    "on_graph_error": (
        "graph",
        (("graph_name", "str"), ("node_name", "str"), ("error", "BaseException")),
    ),
    "on_node_start": ("graph", (("node_name", "str"), ("step", "int"))),
    "on_node_end": ("graph", (("node_name", "str"), ("step", "int"), ("duration_ms", "float"))),
    "on_graph_routing": ("graph", (("from_node", "str"), ("to_node", "str"))),
    "on_graph_interrupt": ("graph", (("node_name", "str"), ("interrupt_id", "str"))),
    "on_graph_resume": ("graph", (("node_name", "str"), ("interrupt_id", "str"))),
    "on_parallel_start": ("graph", (("group_name", "str"), ("child_nodes", "list[str]"))),
    "on_parallel_end": ("graph", (("group_name", "str"), ("child_count", "int"))),
    "on_stall_detected": ("graph", (("node_name", "str"), ("stall_count", "int"))),
    "on_loop_detected": ("graph", (("node_name", "str"), ("loop_count", "int"))),
    "on_supervisor_replan": ("graph", (("stall_count", "int"), ("new_plan", "str"))),
}

ROOT = Path(__file__).resolve().parents[1]
#: the module this script writes
TARGET = ROOT / "selectools" / "_events.py"
#: the docs page whose event table this script writes
EVENTS_PAGE = ROOT / "docs" / "observers.md"
TABLE_START = "<!-- events-table: generated by python scripts/gen_events.py -->"
TABLE_END = "<!-- /events-table -->"

_HEADER = '''\
"""Observer events: names, parameters and the typed no-op callbacks.

GENERATED by ``python scripts/gen_events.py`` from its ``SPECS`` table:
edit the table there, not this file (a test compares the two).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .approval import ApprovalRequest
    from .policy import PolicyDecision
    from .types import AgentResult, Message, ReplyText
    from .usage import UsageStats

__all__ = ["EVENTS", "AsyncObserverEvents", "EventName", "ObserverEvents"]

'''


def _first(scope: str) -> str:
    return "batch_id" if scope == "batch" else "run_id"


def _method(name: str, scope: str, params: tuple[tuple[str, str], ...], is_async: bool) -> str:
    first = _first(scope)
    prefix = "a_" if is_async else ""
    keyword = "async def" if is_async else "def"
    args = ["self", f"{first}: str", *(f"{p}: {t}" for p, t in params)]
    one_line = f"    {keyword} {prefix}{name}({', '.join(args)}) -> None:"
    if len(one_line) <= 100:
        head = one_line
    else:
        inner = "".join(f"        {arg},\n" for arg in args)
        head = f"    {keyword} {prefix}{name}(\n{inner}    ) -> None:"
    names = ", ".join((first, *(p for p, _ in params)))
    return f'{head}\n        """{scope} event: {name}({names})."""\n'


def render() -> str:
    """The source of :mod:`selectools._events` for the current :data:`SPECS`."""
    out = [_HEADER]
    names = "".join(f'    "{name}",\n' for name in SPECS)
    out.append(f'EventName = Literal[\n{names}]\n"""Every event an observer can receive."""\n\n')
    rows = []
    for name, (scope, params) in SPECS.items():
        names_tuple = ", ".join(f'"{p}"' for p, _ in params)
        if len(params) == 1:
            names_tuple += ","
        row = f'    "{name}": ("{scope}", ({names_tuple})),\n'
        if len(row) > 101:
            inner = "".join(f'            "{p}",\n' for p, _ in params)
            row = f'    "{name}": (\n        "{scope}",\n        (\n{inner}        ),\n    ),\n'
        rows.append(row)
    out.append(
        "#: event name -> (scope, parameter names after ``run_id``/``batch_id``)\n"
        "EVENTS: dict[str, tuple[str, tuple[str, ...]]] = {\n" + "".join(rows) + "}\n\n\n"
    )
    for is_async in (False, True):
        cls = "AsyncObserverEvents" if is_async else "ObserverEvents"
        what = "async ``a_on_*`` callback" if is_async else "callback"
        body = [f'class {cls}:\n    """One no-op {what} per event."""\n']
        for name, (scope, params) in SPECS.items():
            body.append("\n" + _method(name, scope, params, is_async))
        out.append("".join(body))
        if not is_async:
            out.append("\n\n")
    return "".join(out)


#: how a type reads in the docs' table (a reply is text first)
_SHOWN = {"ReplyText": "str (ReplyText)"}


def render_table() -> str:
    """The docs' event table: every event, its scope, and its payload with types."""
    lines = [
        "| event | scope | payload after `run_id` (`batch_id` for batch events) |",
        "|---|---|---|",
    ]
    for name, (scope, params) in SPECS.items():
        payload = ", ".join(f"`{p}: {_SHOWN.get(t, t)}`" for p, t in params)
        lines.append(f"| `{name}` | {scope} | {payload} |")
    return "\n".join(lines) + "\n"


def with_table(page: str) -> str:
    """``page`` with the text between the table markers replaced by :func:`render_table`."""
    head, start, rest = page.partition(TABLE_START)
    _, end, tail = rest.partition(TABLE_END)
    if not start or not end:
        raise ValueError(f"the page has no {TABLE_START!r} ... {TABLE_END!r} block")
    return f"{head}{TABLE_START}\n{render_table()}{TABLE_END}{tail}"


if __name__ == "__main__":
    TARGET.write_text(render())
    print(f"wrote {TARGET}")
    EVENTS_PAGE.write_text(with_table(EVENTS_PAGE.read_text()))
    print(f"wrote the event table of {EVENTS_PAGE}")
