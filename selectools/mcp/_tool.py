"""``MCPTool``: a tool of an MCP server, as the agent loop sees any tool.

It is a :class:`~selectools.tools.Tool` (the MCP page: "MCP tools are regular
selectools ``Tool`` objects"), so code that filters, registers or reviews
``Tool`` objects treats it like any other. Its ``parameters`` describe the
server's properties for display; the schema sent to the model is the server's
input schema, arguments are checked against it before anything is sent (a
mismatch is a :class:`~selectools.exceptions.ToolValidationError` the model can
correct), and a failed call raises
:class:`~selectools.exceptions.ToolExecutionError` whose ``error`` is the typed
MCP error — the agent turns that into a tool result, so the run goes on.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._jsonschema import SchemaError
from .._remote_schema import RemoteSchema
from ..exceptions import ToolExecutionError, ToolValidationError
from ..tools._parameter import ToolParameter, placeholder_description
from ..tools._run import ChunkCallback
from ..tools._tool import Tool
from ._config import _clean
from ._errors import MCPError

if TYPE_CHECKING:
    from ._client import MCPClient

__all__ = ["MCPTool"]


class MCPTool(Tool):
    """One tool of an MCP server. ``name`` may carry a server prefix; ``remote_name`` never does.

    ``screen_output`` follows the server's config (tool-output screening reads
    it), ``server`` is the server's name, ``annotations`` the server's hints
    (read-only, idempotent, destructive ...) or ``None``. ``function`` calls
    the server (sync) with keyword arguments.
    """

    def __init__(self, client: MCPClient, remote: Any, name: str | None = None) -> None:
        self.client = client
        self.remote_name: str = remote.name
        self.server: str = client.name
        self.annotations = getattr(remote, "annotations", None)
        self._parameters = _object_schema(remote.input_schema)
        self._checker = RemoteSchema(self._parameters)
        remote_name = self.remote_name

        def call_server(**arguments: Any) -> str:
            return client.call_tool_sync(remote_name, arguments)

        description = (
            (remote.description or "").strip()
            or (getattr(remote, "title", None) or "").strip()
            or f"Tool '{remote.name}' of MCP server '{client.name}'"
        )
        super().__init__(
            name or _clean(remote.name),
            description,
            _described_parameters(self._parameters),
            call_server,
            screen_output=client.config.screen_output,
        )
        self.__name__ = self.__qualname__ = self.name
        self.__module__ = "selectools.mcp"
        self.__doc__ = description
        self.source = None

    def prefixed(self, prefix: str) -> MCPTool:
        """A copy named ``<prefix>_<name>`` (what MultiMCPClient hands out)."""
        twin = copy.copy(self)
        twin.name = twin.__name__ = twin.__qualname__ = f"{_clean(prefix)}_{self.name}"
        return twin

    def schema(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "parameters": copy.deepcopy(self._parameters),
        }

    @property
    def parameters_schema(self) -> dict[str, Any]:
        return copy.deepcopy(self._parameters)

    def validate(self, params: Mapping[str, Any] | None) -> None:
        self._check(params)

    def _check(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        if params is None:
            params = {}
        if not isinstance(params, Mapping):
            raise ToolValidationError(
                self.name,
                issue=f"Parameters must be a JSON object, got {type(params).__name__}",
                suggestion="Pass the arguments as a dict of name -> value",
            )
        args = dict(params)
        try:
            self._checker.check(args)
        except SchemaError as exc:
            raise ToolValidationError(
                self.name,
                issue=str(exc),
                suggestion="Send arguments that match the tool's input schema",
                expected=list(self._parameters.get("properties", {})),
            ) from None
        return args

    def execute(
        self, params: Mapping[str, Any] | None, chunk_callback: ChunkCallback | None = None
    ) -> str:
        args = self._check(params)
        try:
            return self.client.call_tool_sync(self.remote_name, args)
        except MCPError as exc:
            raise ToolExecutionError(self.name, exc, args) from exc

    async def aexecute(
        self, params: Mapping[str, Any] | None, chunk_callback: ChunkCallback | None = None
    ) -> str:
        args = self._check(params)
        try:
            return await self.client.call_tool(self.remote_name, args)
        except MCPError as exc:
            raise ToolExecutionError(self.name, exc, args) from exc

    def __call__(self, **kwargs: Any) -> str:
        """Call the tool directly (sync), e.g. ``add(a=1, b=2)``."""
        return self.execute(kwargs)

    def __repr__(self) -> str:
        return f"MCPTool(name={self.name!r}, server={self.server!r})"


_PYTHON_TYPES = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
}


def _described_parameters(schema: dict[str, Any]) -> list[ToolParameter]:
    """One ToolParameter per property, for display and for code that reads ``tool.parameters``.

    The JSON schema of each property is kept as is (``schema=``); arguments are
    validated against the server's whole schema, not these. A property a
    ToolParameter cannot describe (a name that is not a non-empty string) is
    left out of this list only: the model still sees it in ``schema()``.
    """
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return []
    required = set(schema.get("required") or ())  # a list of names (see _object_schema)
    described = []
    for key, prop in properties.items():
        if not isinstance(key, str) or not key.strip():
            continue
        prop = prop if isinstance(prop, dict) else {}
        kind = prop.get("type")
        text = prop.get("description")
        described.append(
            ToolParameter(
                key,
                _PYTHON_TYPES.get(kind, Any) if isinstance(kind, str) else Any,
                (
                    text.strip()
                    if isinstance(text, str) and text.strip()
                    else placeholder_description(key)
                ),
                required=key in required,
                schema=dict(prop),
            )
        )
    return described


def _object_schema(schema: Any) -> dict[str, Any]:
    """The input schema as an object schema providers accept (a copy; titles dropped)."""
    result = copy.deepcopy(dict(schema or {}))
    result.pop("title", None)
    result.setdefault("type", "object")
    # a server's mistakes: properties that are not an object, required that is not a list of names
    if not isinstance(result.get("properties"), dict):
        result["properties"] = {}
    if "required" in result:
        required = result["required"]
        if isinstance(required, list):
            result["required"] = [name for name in required if isinstance(name, str)]
        else:
            del result["required"]
    for prop in result["properties"].values():
        if isinstance(prop, dict):
            prop.pop("title", None)
    return result
