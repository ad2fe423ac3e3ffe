"""Grouped settings of :class:`~selectools.agent.AgentConfig`: ``retry=RetryConfig(...)``, ``tool=ToolConfig(...)``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..approval import ApprovalHandler

__all__ = ["RetryConfig", "ToolConfig"]


@dataclass
class RetryConfig:
    """The structured-output retry budget.

    ``max_retries`` is how many times the model may be asked again after an
    answer that does not match ``response_format``. These retries do not count
    against ``max_iterations``, which stays the tool-calling budget.
    """

    max_retries: int = 2

    def __post_init__(self) -> None:
        value = self.max_retries
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"RetryConfig: max_retries must be an int >= 0, got {value!r}")


@dataclass
class ToolConfig:
    """The agent-level approval gate.

    ``require_approval`` lists tool names (glob patterns) that need approval,
    or ``"*"`` for every tool; tools defined with ``@tool(requires_approval=True)``
    need it too. ``approval_handler(request) -> bool`` (sync or async) decides,
    taking precedence over ``AgentConfig.confirm_action``. ``approval_timeout``
    (seconds) overrides ``AgentConfig.approval_timeout``. A gate without any
    handler or ``confirm_action`` is rejected when the ``AgentConfig`` is built.
    """

    require_approval: Sequence[str] | str | None = None
    approval_handler: ApprovalHandler | None = None
    approval_timeout: float | None = None

    def __post_init__(self) -> None:
        self._patterns()
        if self.approval_handler is not None and not callable(self.approval_handler):
            raise TypeError(
                "ToolConfig: approval_handler must be a function taking an ApprovalRequest, "
                f"got {type(self.approval_handler).__name__}"
            )
        timeout = self.approval_timeout
        if timeout is not None and (isinstance(timeout, bool) or not timeout > 0):
            raise ValueError(f"ToolConfig: approval_timeout must be > 0 seconds, got {timeout!r}")

    def _patterns(self) -> tuple[str, ...]:
        gate = self.require_approval
        if gate is None:
            return ()
        if isinstance(gate, str):
            return (gate,)
        if not isinstance(gate, Sequence) or any(not isinstance(n, str) or not n for n in gate):
            raise TypeError(
                f'ToolConfig: require_approval must be a list of tool names or "*", got {gate!r}'
            )
        return tuple(gate)

    @property
    def gates_tools(self) -> bool:
        """True when ``require_approval`` names at least one tool."""
        return bool(self._patterns())

    def requires_approval(self, tool_name: str) -> bool:
        return any(fnmatchcase(tool_name, pattern) for pattern in self._patterns())
