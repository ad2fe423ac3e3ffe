"""``MCPClient``: one MCP server's tools as selectools tools, over the official SDK.

The connection lives on a private loop thread (see :mod:`selectools._portal`), so the
same client serves ``with``/``async with``, ``agent.run()`` inside a notebook
cell and ``agent.arun()`` on any loop. Every request goes through the circuit
breaker and the retry policy of :class:`~selectools.mcp.MCPServerConfig`;
failures come back as the typed errors of :mod:`._errors`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import tempfile
from collections.abc import Awaitable, Callable, Coroutine
from typing import IO, TYPE_CHECKING, Any, TypeVar

from .._jitter import jittered
from .._portal import Portal
from ._breaker import CircuitBreaker
from ._config import MCPServerConfig
from ._errors import (
    MCPCircuitOpenError,
    MCPConnectionError,
    MCPTimeoutError,
    MCPToolError,
)
from ._sdk import require_sdk

if TYPE_CHECKING:
    from ._tool import MCPTool

__all__ = ["MCPClient"]

T = TypeVar("T")

_CONNECTION_CLOSED = -32000
_REQUEST_TIMEOUT = -32001
_MAX_PAGES = 100


class MCPClient:
    """A client for one MCP server.

    ``async with MCPClient(config) as client`` (or ``with``) connects and does
    the handshake; ``list_tools()`` / ``list_tools_sync()`` return the server's
    tools as :class:`~selectools.mcp.MCPTool` objects to pass to
    ``Agent(tools=...)``; leaving the block closes the connection (and stops a
    stdio server). ``connect()`` / ``close()`` do the same without a block.
    ``circuit`` is the client's :class:`CircuitBreaker` (``circuit.state``).
    """

    def __init__(self, config: MCPServerConfig) -> None:
        if not isinstance(config, MCPServerConfig):
            raise TypeError(
                f"MCPClient takes an MCPServerConfig, got {type(config).__name__}; "
                "e.g. MCPClient(MCPServerConfig(command='python', args=['server.py']))"
            )
        self.config = config
        self.circuit = CircuitBreaker(
            config.circuit_breaker_threshold, config.circuit_breaker_cooldown
        )
        self._portal = Portal(f"mcp-{config.name}")
        self._session: Any = None
        self._stop: asyncio.Event | None = None
        self._owner: asyncio.Task[None] | None = None
        self._broken = False
        self._lock: asyncio.Lock | None = None
        self._stderr: IO[str] | None = None
        self._tools: list[MCPTool] | None = None
        self._remote: dict[str, Any] = {}
        self._closed = False

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def connected(self) -> bool:
        return self._session is not None and not self._broken and self._portal.running

    def __repr__(self) -> str:
        state = "connected" if self.connected else "not connected"
        return f"MCPClient(name={self.name!r}, {self.config.describe()!r}, {state})"

    # -- lifecycle ---------------------------------------------------------------------
    def connect(self) -> MCPClient:
        """Start the server (stdio) or open the session (HTTP) and do the handshake."""
        if self.connected:
            return self
        self._closed = False
        self._portal.start()
        try:
            self._portal.call(self._open())
        except BaseException:
            self.close()
            raise
        return self

    async def aconnect(self) -> MCPClient:
        if self.connected:
            return self
        self._closed = False
        self._portal.start()
        try:
            await self._portal.acall(self._open())
        except BaseException:
            await self.aclose()
            raise
        return self

    def close(self) -> None:
        """Close the session and stop the server process; safe to call twice."""
        self._closed = True
        if self._portal.running:
            with contextlib.suppress(Exception):
                self._portal.call(self._teardown())
        self._portal.close()
        self._close_stderr()

    async def aclose(self) -> None:
        self._closed = True
        if self._portal.running:
            with contextlib.suppress(Exception):
                await self._portal.acall(self._teardown())
        self._portal.close()
        self._close_stderr()

    def __enter__(self) -> MCPClient:
        return self.connect()

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> MCPClient:
        return await self.aconnect()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- tools -------------------------------------------------------------------------
    async def list_tools(self) -> list[MCPTool]:
        """The server's tools (fetched once and cached when ``cache_tools`` is on)."""
        return await self._arun(self._tool_list())

    def list_tools_sync(self) -> list[MCPTool]:
        return self._run(self._tool_list())

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        """Call the server's tool ``name`` and return its result as text.

        Raises :class:`MCPToolError` when the server reports a failure,
        :class:`MCPTimeoutError` after ``timeout`` seconds,
        :class:`MCPConnectionError` when the server is unreachable or went away
        (and :class:`MCPCircuitOpenError` while the circuit is open).
        """
        return await self._arun(self._call(name, dict(arguments or {})))

    def call_tool_sync(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        return self._run(self._call(name, dict(arguments or {})))

    # the spelling the MCP page's examples use
    _call_tool = call_tool
    _call_tool_sync = call_tool_sync

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        if not self._portal.running:
            coro.close()
            raise self._not_connected()
        return self._portal.call(coro)

    async def _arun(self, coro: Coroutine[Any, Any, T]) -> T:
        if not self._portal.running:
            coro.close()
            raise self._not_connected()
        return await self._portal.acall(coro)

    def _not_connected(self) -> MCPConnectionError:
        if self._closed:
            return MCPConnectionError(
                f"the client of MCP server '{self.name}' is closed (its tools work only inside "
                "the `with` block, or until close()); connect again to use them",
                self.name,
            )
        return MCPConnectionError(
            f"the client of MCP server '{self.name}' is not connected: use `with MCPClient(config)` "
            "or call connect() first",
            self.name,
        )

    # -- on the portal loop ----------------------------------------------------------
    async def _open(self) -> None:
        self._lock = asyncio.Lock()
        async with self._lock:
            await self._connect_with_retries()

    async def _tool_list(self) -> list[MCPTool]:
        from ._tool import MCPTool

        if self._tools is not None and self.config.cache_tools:
            return list(self._tools)

        async def fetch(session: Any) -> list[Any]:
            tools: list[Any] = []
            cursor = None
            for _ in range(_MAX_PAGES):
                page = await session.list_tools(cursor=cursor)
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
            return tools

        remote = await self._request("listing its tools", fetch, resend=True)
        self._remote = {t.name: t for t in remote}
        self._tools = [MCPTool(self, t) for t in remote]
        return list(self._tools)

    async def _call(self, name: str, arguments: dict[str, Any]) -> str:
        hints = getattr(self._remote.get(name), "annotations", None)
        resend = bool(hints and (hints.read_only_hint or hints.idempotent_hint))

        async def call(session: Any) -> Any:
            return await session.call_tool(
                name, arguments, read_timeout_seconds=self.config.timeout
            )

        result = await self._request(f"the call to '{name}'", call, resend=resend, tool=name)
        text = _result_text(result)
        if result.is_error:
            raise MCPToolError(
                f"MCP tool '{name}' on server '{self.name}' failed: {text or 'no details given'}",
                self.name,
                name,
            )
        return text

    async def _request(
        self,
        what: str,
        send: Callable[[Any], Awaitable[T]],
        *,
        resend: bool,
        tool: str = "",
    ) -> T:
        """One request through the breaker and the retry policy."""
        circuit = self.circuit
        if not circuit.allow():
            raise MCPCircuitOpenError(
                f"MCP server '{self.name}' is failing: the circuit opened after "
                f"{circuit.failures} failure(s) in a row, so calls fail at once for another "
                f"{circuit.retry_in():.0f}s",
                self.name,
                circuit.retry_in(),
            )
        try:
            result = await self._attempts(what, send, resend, tool)
        except MCPToolError as exc:
            if isinstance(exc, MCPTimeoutError):
                circuit.record_failure()
            else:
                circuit.record_success()  # the server answered: it is healthy
            raise
        except asyncio.CancelledError:
            circuit.release()
            raise
        except BaseException:
            circuit.record_failure()
            raise
        circuit.record_success()
        return result

    async def _attempts(
        self, what: str, send: Callable[[Any], Awaitable[T]], resend: bool, tool: str
    ) -> T:
        mcp = require_sdk()
        config = self.config
        failure: MCPConnectionError | None = None
        for attempt in range(config.max_retries + 1):
            if attempt:
                await _backoff(config.retry_backoff * 2 ** (attempt - 1))
            session = None
            mark = 0
            try:
                session = await self._live_session()
                mark = self._stderr_mark()
                return await send(session)
            except MCPConnectionError as exc:  # could not (re)connect: nothing was sent
                failure = exc
                retry = config.auto_reconnect and not _is_fatal(exc)
            except mcp.MCPError as exc:
                if exc.code == _REQUEST_TIMEOUT:
                    raise MCPTimeoutError(
                        f"MCP server '{self.name}' did not answer {what} within "
                        f"{config.timeout:g}s (MCPServerConfig.timeout)",
                        self.name,
                        tool,
                    ) from None
                if exc.code != _CONNECTION_CLOSED:
                    raise MCPToolError(
                        f"MCP server '{self.name}' rejected {what}: {exc.message}", self.name, tool
                    ) from None
                failure = self._lost(session, what, exc, mark)
                retry = resend and config.auto_reconnect
            except (OSError, EOFError) as exc:
                failure = self._lost(session, what, exc, mark)
                retry = resend and config.auto_reconnect
            except Exception as exc:
                if not _is_transport_error(exc):
                    raise
                failure = self._lost(session, what, exc, mark)
                retry = resend and config.auto_reconnect
            if not retry:
                break
        assert failure is not None
        raise failure

    def _lost(self, session: Any, what: str, exc: BaseException, mark: int) -> MCPConnectionError:
        if session is not None and session is self._session:
            self._broken = True
        detail = "" if _is_closed(exc) else f" ({_describe(exc)})"
        return MCPConnectionError(
            f"MCP server '{self.name}' ({self.config.describe()}) closed the connection during "
            f"{what}{detail}{self._stderr_tail(mark)}",
            self.name,
        )

    async def _live_session(self) -> Any:
        if self._closed:
            error = self._not_connected()
            error._fatal = True  # type: ignore[attr-defined]
            raise error
        assert self._lock is not None
        async with self._lock:
            if self._session is not None and not self._broken:
                return self._session
            if self._session is not None and not self.config.auto_reconnect:
                raise MCPConnectionError(
                    f"lost the connection to MCP server '{self.name}' and auto_reconnect is off; "
                    "close the client and connect again",
                    self.name,
                )
            await self._teardown()
            await self._connect_once()  # the caller's attempt loop does the retrying
            return self._session

    async def _connect_with_retries(self) -> None:
        config = self.config
        for attempt in range(config.max_retries + 1):
            if attempt:
                await _backoff(config.retry_backoff * 2 ** (attempt - 1))
            try:
                await self._connect_once()
                return
            except MCPConnectionError as exc:
                if attempt == config.max_retries or _is_fatal(exc):
                    raise

    async def _connect_once(self) -> None:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[Any] = loop.create_future()
        stop = asyncio.Event()
        owner = asyncio.create_task(self._own(stop, ready))
        try:
            session = await asyncio.wait_for(asyncio.shield(ready), self._connect_timeout)
        except asyncio.TimeoutError:
            owner.cancel()
            await asyncio.gather(owner, return_exceptions=True)
            raise MCPConnectionError(
                f"MCP server '{self.name}' ({self.config.describe()}) did not finish the handshake "
                f"within {self._connect_timeout:g}s{self._stderr_tail()}",
                self.name,
            ) from None
        except asyncio.CancelledError:
            owner.cancel()
            await asyncio.gather(owner, return_exceptions=True)
            raise
        except Exception as exc:
            await asyncio.gather(owner, return_exceptions=True)
            leaf = _leaf(exc)
            error = MCPConnectionError(
                f"could not connect to MCP server '{self.name}' ({self.config.describe()}): "
                f"{_describe(leaf)}{self._stderr_tail()}",
                self.name,
            )
            if isinstance(leaf, (FileNotFoundError, PermissionError, ValueError)):
                error._fatal = True  # type: ignore[attr-defined]  # retrying cannot fix a wrong command
            raise error from None
        self._session, self._stop, self._owner, self._broken = session, stop, owner, False

    async def _own(self, stop: asyncio.Event, ready: asyncio.Future[Any]) -> None:
        """Open the SDK client, hand it over, and keep it open (in this task) until told."""
        try:
            async with contextlib.AsyncExitStack() as stack:
                client = await stack.enter_async_context(self._sdk_client(stack))
                if not ready.done():
                    ready.set_result(client)
                await stop.wait()
        except asyncio.CancelledError:
            if not ready.done():
                ready.cancel()
            raise
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))

    def _sdk_client(self, stack: contextlib.AsyncExitStack) -> Any:
        mcp = require_sdk()
        from mcp_types import Implementation

        from .._version import __version__

        config = self.config
        if config.transport == "stdio":
            from mcp.client.stdio import stdio_client

            self._close_stderr()
            # kept open for the connection's life; closed by _close_stderr
            self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
            params = mcp.StdioServerParameters(
                command=str(config.command), args=list(config.args), env=config.env, cwd=config.cwd
            )
            transport: Any = stdio_client(params, errlog=self._stderr)
        else:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            http = httpx2.AsyncClient(
                headers=config.headers or {},
                timeout=httpx2.Timeout(config.timeout, read=max(config.timeout, 300.0)),
            )
            stack.push_async_callback(http.aclose)
            transport = streamable_http_client(str(config.url), http_client=http)
        return mcp.Client(
            transport,
            read_timeout_seconds=config.timeout,
            client_info=Implementation(name="selectools", version=__version__),
            cache=None,
        )

    async def _teardown(self) -> None:
        stop, owner = self._stop, self._owner
        self._session = self._stop = self._owner = None
        if stop is None or owner is None:
            return
        stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(owner), self.config.timeout)
        except (asyncio.TimeoutError, Exception):
            owner.cancel()
            await asyncio.gather(owner, return_exceptions=True)

    @property
    def _connect_timeout(self) -> float:
        return self.config.connect_timeout or self.config.timeout

    # -- diagnostics -----------------------------------------------------------------
    def _stderr_mark(self) -> int:
        """Where the stdio server's stderr ends now (so a message shows only what follows)."""
        stream = self._stderr
        if stream is None:
            return 0
        try:
            stream.flush()
            return stream.seek(0, 2)
        except (OSError, ValueError):
            return 0

    def _stderr_tail(self, since: int = 0, limit: int = 400) -> str:
        """The end of a stdio server's stderr since ``since`` (often the traceback that killed it)."""
        stream = self._stderr
        if stream is None:
            return ""
        try:
            stream.flush()
            stream.seek(since)
            text = stream.read().strip()
            stream.seek(0, 2)
        except (OSError, ValueError):
            return ""
        if not text:
            return ""
        lines = text.splitlines()[-6:]
        tail = " | ".join(line.strip() for line in lines if line.strip())
        return f". Server stderr (last lines): {tail[-limit:]}"

    def _close_stderr(self) -> None:
        if self._stderr is not None:
            with contextlib.suppress(Exception):
                self._stderr.close()
            self._stderr = None


async def _backoff(delay: float) -> None:
    """The wait between two tries, jittered (one name, so tests can record the delays)."""
    await asyncio.sleep(jittered(delay))


def _is_fatal(exc: BaseException) -> bool:
    """A connection error no retry can fix (the command does not exist or cannot run)."""
    return bool(getattr(exc, "_fatal", False))


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (possibly nested) exception groups."""
    inner = getattr(exc, "exceptions", None)  # BaseExceptionGroup (or the 3.10 backport)
    while isinstance(inner, tuple) and inner:
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    return exc


def _describe(exc: BaseException) -> str:
    message = str(exc).strip()
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _is_closed(exc: BaseException) -> bool:
    return getattr(exc, "code", None) == _CONNECTION_CLOSED


def _is_transport_error(exc: BaseException) -> bool:
    """anyio stream errors and httpx2 transport errors: the connection, not the tool, failed."""
    import anyio

    if isinstance(exc, (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream)):
        return True
    module = type(exc).__module__
    return module.startswith(("httpx", "httpcore"))


def _result_text(result: Any) -> str:
    """A CallToolResult as the text the model reads."""
    parts: list[str] = []
    for block in result.content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource":
            resource = block.resource
            parts.append(getattr(resource, "text", None) or f"[resource {resource.uri}]")
        elif kind == "resource_link":
            parts.append(f"[resource {block.uri}]")
        elif kind in ("image", "audio"):
            parts.append(f"[{kind} {getattr(block, 'mime_type', '')}]".replace(" ]", "]"))
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False, default=str))
    return "\n".join(parts)
