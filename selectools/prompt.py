"""System prompt assembly: the user's instructions, then how to call tools.

Providers with native tool calling receive the tool schemas through their API,
so their prompt carries only the instructions. Providers without it get the
text contract (``TOOL_CALL {...}``) and every tool's JSON schema, which the
:class:`~selectools.parser.ToolCallParser` reads back.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .tools import ToolLike

__all__ = ["DEFAULT_INSTRUCTIONS", "REASONING_STRATEGIES", "TOOL_CALL_CONTRACT", "PromptBuilder"]

DEFAULT_INSTRUCTIONS = "You are an assistant that can call tools when helpful."
NO_TOOLS_INSTRUCTIONS = "You are a helpful assistant."
TOOL_CALL_CONTRACT = (
    "Tool call contract:\n"
    '- Emit TOOL_CALL with JSON: {"tool_name": "<name>", "parameters": {...}}\n'
    "- Include every required parameter\n"
    "- Wait for tool results before giving a final answer"
)

#: ``PromptBuilder(reasoning_strategy=...)``: how the model is asked to reason. The
#: text follows the instructions; make each step visible and bounded with
#: :mod:`selectools.toolbox.reasoning_tools`.
REASONING_STRATEGIES: dict[str, str] = {
    "react": (
        "Reasoning approach (ReAct): work in cycles. Before each action, state in one or two "
        "sentences what you know and what you need next (Thought), then take one action such "
        "as a tool call (Action), then read its result (Observation) and decide the next "
        "Thought. Stop when the observations answer the question, and give the final answer."
    ),
    "cot": (
        "Reasoning approach (chain of thought): before answering, reason step by step. Break "
        "the problem into parts, solve them in order, check each intermediate result, and "
        "only then state the final answer."
    ),
}


class PromptBuilder:
    """Builds the system prompt for a set of tools.

    ``reasoning_strategy`` (``"react"`` or ``"cot"``, see
    :data:`REASONING_STRATEGIES`) adds how the model should reason after the
    instructions; ``None`` (default) adds nothing.
    """

    def __init__(
        self, base_instructions: str | None = None, reasoning_strategy: str | None = None
    ) -> None:
        if reasoning_strategy is not None and reasoning_strategy not in REASONING_STRATEGIES:
            raise ValueError(
                f"unknown reasoning_strategy {reasoning_strategy!r}; "
                f"use one of {sorted(REASONING_STRATEGIES)} or None"
            )
        self.base_instructions = base_instructions
        self.reasoning_strategy = reasoning_strategy

    def build(
        self,
        tools: Sequence[ToolLike],
        *,
        system_prompt: str | None = None,
        native_tools: bool = False,
    ) -> str:
        """``system_prompt`` (or the default instructions), then the tool contract if needed."""
        if system_prompt:
            instructions = system_prompt
        elif self.base_instructions:
            instructions = self.base_instructions
        else:
            instructions = DEFAULT_INSTRUCTIONS if tools else NO_TOOLS_INSTRUCTIONS
        if self.reasoning_strategy is not None:
            instructions = f"{instructions}\n\n{REASONING_STRATEGIES[self.reasoning_strategy]}"
        if not tools or native_tools:
            return instructions
        schemas = "\n\n".join(_indented(json.dumps(t.schema())) for t in tools)
        return (
            f"{instructions}\n\n{TOOL_CALL_CONTRACT}\n\nAvailable tools (JSON schema):\n\n{schemas}"
        )


@functools.lru_cache(maxsize=256)
def _indented(compact: str) -> str:
    """``json.dumps(schema, indent=2)`` for the schema whose compact JSON is ``compact``.

    The indented text is a function of the compact text (same tokens, same key
    order), and only the compact form has a C encoder: with ``indent`` json runs
    its pure-Python encoder, which made building every agent slower and left the
    interpreter's caches cold for the agent's first run (about 3 µs per run).
    """
    return json.dumps(json.loads(compact), indent=2)
