"""``ToolLike``: what the agent loop needs from a tool, and nothing more.

The loop, the prompt builder, the providers' schema conversion, the tool
policy and the approval gate only ever use these members, so a tool does not
have to be a :class:`~selectools.tools.Tool` (the function wrapper): a remote
tool or a tool of your own registry implements this protocol and is passed to
``Agent(tools=[...])`` as is (MCP tools are ``Tool`` subclasses). The members are read-only here, so plain
attributes and properties both satisfy it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from ._run import ChunkCallback

__all__ = ["ChunkCallback", "ToolLike"]


@runtime_checkable
class ToolLike(Protocol):
    """A tool the agent can offer to the model and call.

    ``schema()`` is ``{"name", "description", "parameters": <JSON schema of an
    object>}``, sent to the model. ``validate`` raises
    :class:`~selectools.exceptions.ToolValidationError` for arguments that do
    not match (the approval gate checks edited arguments with it). ``execute``
    and ``aexecute`` validate, run and return the result as text; a failure is
    raised as ``ToolValidationError`` or ``ToolExecutionError``, and streamed
    output goes to ``chunk_callback`` piece by piece. ``terminal``: a
    successful call ends the run. ``requires_approval``: every call goes
    through the approval handler first.
    """

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def terminal(self) -> bool: ...

    @property
    def requires_approval(self) -> bool: ...

    def schema(self) -> dict[str, Any]: ...

    def validate(self, params: Mapping[str, Any] | None) -> None: ...

    def execute(
        self, params: Mapping[str, Any] | None, chunk_callback: ChunkCallback | None = None
    ) -> str: ...

    async def aexecute(
        self, params: Mapping[str, Any] | None, chunk_callback: ChunkCallback | None = None
    ) -> str: ...
