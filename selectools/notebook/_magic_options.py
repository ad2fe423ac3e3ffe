"""The options each magic accepts (one table per magic, also used for its help text)."""

from __future__ import annotations

from ._options import Option

__all__ = ["AGENT_OPTIONS", "OUTPUT_FORMATS", "TOOL_OPTIONS"]

#: how the final answer can be shown besides plain text
OUTPUT_FORMATS = ("text", "markdown", "json")

#: each option is a field of selectools.tools.ToolOptions (--requires-approval -> requires_approval)
TOOL_OPTIONS = (
    Option("--name", metavar="NAME", help="tool name (cells with one function)"),
    Option("--description", metavar="TEXT", help="description (default: the docstring)"),
    Option("--terminal", kind="flag", help="the run ends when this tool succeeds"),
    Option("--requires-approval", kind="flag", help="calls need approval before they run"),
    Option("--screen-output", kind="flag", help="screen results for prompt injection"),
)

AGENT_OPTIONS = (
    Option("--agent", metavar="NAME", help="run this Agent variable instead of building one"),
    Option("--provider", metavar="NAME", help="provider name or variable (default: %selectools)"),
    Option("--model", metavar="MODEL", help="model id (default: %selectools, else the provider's)"),
    Option(
        "--tools", metavar="A,B", help="tools by name (default: every %%tool tool; '' for none)"
    ),
    Option("--system", metavar="TEXT", help="system prompt ({var} interpolated)"),
    Option("--memory", kind="optional", metavar="NAME", help="keep the conversation across cells"),
    Option("--max-iterations", metavar="N", integer=True, help="model turns before stopping"),
    Option("--format", metavar="FORMAT", choices=OUTPUT_FORMATS, help="text, markdown or json"),
    Option("--response-format", metavar="MODEL", help="parse the answer (a model class or schema)"),
    Option(
        "--guardrails",
        metavar="A,B",
        help="input guardrails for this cell: pii, toxicity, injection, or variables",
    ),
    Option(
        "--budget",
        metavar="USD",
        help="stop the run once it has cost this much (default: %selectools budget)",
    ),
    Option("--output", short="-o", metavar="NAME", help="store the AgentResult in this variable"),
    Option(
        "--background",
        kind="flag",
        help="run in the background: the cell returns a RunHandle (await, poll, cancel)",
    ),
)
