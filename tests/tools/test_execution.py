"""execute / aexecute: results, streaming, async tools, injection, errors."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import AsyncGenerator, Generator

import pytest

from selectools.exceptions import ToolExecutionError, ToolValidationError
from selectools.tools import Tool, ToolParameter, tool

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="unset")


def test_results_are_strings() -> None:
    @tool(description="d")
    def number() -> int:
        return 42

    @tool(description="d")
    def nothing(msg: str):
        print(msg)

    @tool(description="d")
    def listing() -> list[int]:
        return [1, 2]

    assert number.execute({}) == "42"
    assert nothing.execute({"msg": "hi"}) == ""
    assert listing.execute({}) == "[1, 2]"


def test_generator_chunks_reach_the_callback_in_order() -> None:
    @tool(description="d")
    def stream(n: int) -> Generator[str, None, None]:
        for i in range(n):
            yield f"c{i}"
        yield 7

    chunks: list[str] = []
    assert stream.streaming is True
    assert stream.execute({"n": 3}, chunks.append) == "c0c1c27"
    assert chunks == ["c0", "c1", "c2", "7"]
    assert stream.execute({"n": 1}) == "c07"


def test_ab_generator() -> None:
    @tool(description="d")
    def ab():
        yield "a"
        yield "b"

    seen: list[str] = []
    assert ab.execute({}, chunk_callback=seen.append) == "ab"
    assert seen == ["a", "b"]


def test_generator_error_mid_stream_is_wrapped_and_closed() -> None:
    closed = []

    @tool(description="d")
    def broken():
        try:
            yield "a"
            raise RuntimeError("disk gone")
        finally:
            closed.append(True)

    chunks: list[str] = []
    with pytest.raises(ToolExecutionError) as info:
        broken.execute({}, chunks.append)
    assert chunks == ["a"]
    assert isinstance(info.value.__cause__, RuntimeError)
    assert closed == [True]


def test_function_errors_become_tool_execution_errors() -> None:
    @tool(description="Divide two numbers")
    def divide(a: float, b: float) -> str:
        if b == 0:
            raise ValueError("Cannot divide by zero")
        return str(a / b)

    with pytest.raises(ToolExecutionError) as info:
        divide.execute({"a": 1, "b": 0})
    err = info.value
    assert isinstance(err.__cause__, ValueError)
    assert err.error is err.__cause__
    assert err.tool_name == "divide"
    assert err.params == {"a": 1, "b": 0}
    assert "ValueError: Cannot divide by zero" in str(err)


async def _async_double(x: int) -> str:
    await asyncio.sleep(0)
    return str(2 * x)


def test_async_tool_flags_and_aexecute() -> None:
    t = tool(description="d")(_async_double)
    assert t.is_async is True
    assert t.streaming is False
    assert asyncio.run(t.aexecute({"x": 4})) == "8"


def test_async_tool_via_sync_execute_outside_a_loop() -> None:
    t = tool(description="d")(_async_double)
    assert t.execute({"x": 5}) == "10"


def test_async_tool_via_sync_execute_inside_a_running_loop() -> None:
    t = tool(description="d")(_async_double)

    async def main() -> str:
        # a notebook cell: a loop is running and the user calls the sync API
        return t.execute({"x": 6})

    assert asyncio.run(main()) == "12"


def test_async_generator_tool_sync_and_async() -> None:
    @tool(description="d")
    async def stream(n: int) -> AsyncGenerator[str, None]:
        for i in range(n):
            await asyncio.sleep(0)
            yield f"<{i}>"

    assert stream.is_async is True
    assert stream.streaming is True
    chunks: list[str] = []
    assert asyncio.run(stream.aexecute({"n": 3}, chunks.append)) == "<0><1><2>"
    assert chunks == ["<0>", "<1>", "<2>"]
    chunks.clear()
    assert stream.execute({"n": 2}, chunks.append) == "<0><1>"
    assert chunks == ["<0>", "<1>"]

    async def inside_loop() -> str:
        return stream.execute({"n": 2}, chunks.append)

    chunks.clear()
    assert asyncio.run(inside_loop()) == "<0><1>"
    assert chunks == ["<0>", "<1>"]


def test_async_errors_are_wrapped_both_ways() -> None:
    @tool(description="d")
    async def boom() -> str:
        raise KeyError("k")

    with pytest.raises(ToolExecutionError) as info:
        boom.execute({})
    assert isinstance(info.value.__cause__, KeyError)
    with pytest.raises(ToolExecutionError) as info:
        asyncio.run(boom.aexecute({}))
    assert isinstance(info.value.__cause__, KeyError)


def test_aexecute_validation_error_is_not_wrapped() -> None:
    @tool(description="d")
    async def f(x: int) -> str:
        return ""

    with pytest.raises(ToolValidationError):
        asyncio.run(f.aexecute({"x": "1"}))


def test_aexecute_runs_sync_functions_in_a_worker_with_contextvars() -> None:
    seen: dict[str, object] = {}

    @tool(description="d")
    def whoami() -> str:
        seen["thread"] = threading.current_thread()
        return request_id.get()

    async def main() -> str:
        request_id.set("req-42")
        return await whoami.aexecute({})

    assert asyncio.run(main()) == "req-42"
    assert seen["thread"] is not threading.main_thread()


def test_aexecute_sync_generator_streams_with_callback_on_the_loop_thread() -> None:
    events: list[tuple[str, str]] = []

    @tool(description="d")
    def stream() -> Generator[str, None, None]:
        for part in ("x", "y", "z"):
            events.append(("yield", request_id.get()))
            yield part

    async def main() -> str:
        request_id.set("ctx")
        loop_thread = threading.current_thread()

        def callback(chunk: str) -> None:
            assert threading.current_thread() is loop_thread
            events.append(("chunk", chunk))

        return await stream.aexecute({}, callback)

    assert asyncio.run(main()) == "xyz"
    # chunks are delivered as they arrive, interleaved with the generator's progress
    assert events == [
        ("yield", "ctx"),
        ("chunk", "x"),
        ("yield", "ctx"),
        ("chunk", "y"),
        ("yield", "ctx"),
        ("chunk", "z"),
    ]


def test_sync_execute_of_sync_tool_keeps_the_callers_context() -> None:
    @tool(description="d")
    def whoami() -> str:
        return request_id.get()

    token = request_id.set("sync")
    try:
        assert whoami.execute({}) == "sync"
    finally:
        request_id.reset(token)


def test_injected_kwargs_are_hidden_and_passed() -> None:
    connection = object()
    received = {}

    def query(sql: str, db) -> str:
        received["db"] = db
        return sql

    t = Tool(
        "query_db",
        "Run SQL",
        [ToolParameter("sql", str, "SQL")],
        query,
        injected_kwargs={"db": connection},
    )
    assert list(t.schema()["parameters"]["properties"]) == ["sql"]
    assert t.execute({"sql": "select 1"}) == "select 1"
    assert received["db"] is connection
    with pytest.raises(ToolValidationError, match="Unexpected"):
        t.execute({"sql": "x", "db": "evil"})


def test_decorator_injected_kwargs() -> None:
    @tool(description="d", injected_kwargs={"api_key": "secret"})
    def call_api(endpoint: str, api_key: str) -> str:
        return f"{endpoint}:{api_key}"

    assert list(call_api.schema()["parameters"]["properties"]) == ["endpoint"]
    assert call_api.execute({"endpoint": "/x"}) == "/x:secret"


def test_config_injector_is_probed_and_called_every_time() -> None:
    calls = []

    def current_user() -> dict[str, object]:
        calls.append(1)
        return {"user_id": len(calls), "role": "admin", "unrelated": "dropped"}

    @tool(description="Check", config_injector=current_user)
    def check(resource: str, user_id: int, role: str) -> str:
        return f"{user_id}:{role}:{resource}"

    assert len(calls) == 1  # the definition-time probe
    schema = check.schema()["parameters"]
    assert list(schema["properties"]) == ["resource"]
    assert schema["required"] == ["resource"]
    assert check.execute({"resource": "r"}) == "2:admin:r"
    assert check.execute({"resource": "r"}) == "3:admin:r"
    assert asyncio.run(check.aexecute({"resource": "r"})) == "4:admin:r"


def test_config_injector_with_explicit_injected_is_not_probed() -> None:
    state = {"ready": False, "calls": 0}

    def current_user() -> dict[str, object]:
        state["calls"] += 1
        if not state["ready"]:
            raise RuntimeError("no request yet")
        return {"user_id": 7, "role": "viewer"}

    @tool(description="Check", config_injector=current_user, injected=("user_id", "role"))
    def check(resource: str, user_id: int, role: str) -> str:
        return f"{user_id}:{role}:{resource}"

    assert state["calls"] == 0
    assert list(check.schema()["parameters"]["properties"]) == ["resource"]
    state["ready"] = True
    assert check.execute({"resource": "r"}) == "7:viewer:r"


def test_config_injector_probe_failure_asks_for_injected() -> None:
    def broken() -> dict[str, object]:
        raise RuntimeError("no request context")

    with pytest.raises(ToolValidationError) as info:

        @tool(description="d", config_injector=broken)
        def f(x: str, user_id: int) -> str:
            return x

    assert "injected=" in info.value.suggestion
    assert "RuntimeError: no request context" in info.value.issue


def test_config_injector_failure_at_execution_is_a_tool_error() -> None:
    state = {"fail": False}

    def injector() -> dict[str, object]:
        if state["fail"]:
            raise RuntimeError("expired")
        return {"token": "t"}

    @tool(description="d", config_injector=injector)
    def f(x: str, token: str) -> str:
        return token

    state["fail"] = True
    with pytest.raises(ToolExecutionError) as info:
        f.execute({"x": "1"})
    assert isinstance(info.value.__cause__, RuntimeError)


def test_injected_values_win_and_are_not_in_error_params() -> None:
    @tool(description="d", injected_kwargs={"key": "secret"})
    def f(x: str, key: str) -> str:
        raise ValueError("bad")

    with pytest.raises(ToolExecutionError) as info:
        f.execute({"x": "1"})
    assert info.value.params == {"x": "1"}
    assert "secret" not in str(info.value)


def test_sync_function_returning_a_coroutine_is_awaited() -> None:
    def wrapper(x: int):
        return _async_double(x)

    t = tool(description="d")(wrapper)
    assert t.is_async is False
    assert t.execute({"x": 2}) == "4"
    assert asyncio.run(t.aexecute({"x": 3})) == "6"


def test_callable_object_with_async_call_is_async() -> None:
    class Fetcher:
        async def __call__(self, url: str) -> str:
            return url.upper()

    t = Tool("fetch", "d", [ToolParameter("url", str, "URL")], Fetcher())
    assert t.is_async is True
    assert t.execute({"url": "a"}) == "A"
