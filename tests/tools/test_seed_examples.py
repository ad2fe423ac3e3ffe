"""Every code example of the TOOLS docs page that runs offline, copied verbatim.

The snippets are exec'd as written. Names a snippet takes from earlier in the
page (``tool``, ``Tool``, ...) are provided by the namespace, as if the page was
one notebook. Examples that need a real API key, a database or packages that
do not exist are left out (``Agent(... OpenAIProvider())``, ``from
tools.math_tools import ...``, the ``...`` placeholders of ``api_call``).
"""

from __future__ import annotations

import asyncio
import json
import sys
import types
from typing import Any

import pytest

import selectools
from selectools.exceptions import ToolExecutionError, ToolValidationError
from selectools.tools import Tool, ToolParameter, ToolRegistry, tool

# docs/modules/TOOLS.md, code block 0
TOOL_BASICS = r'''
from selectools import Agent, AgentConfig, tool
from selectools.providers.stubs import LocalProvider

@tool()
def get_weather(location: str) -> str:
    """Get current weather for a city."""
    return f"Weather in {location}: 22C, sunny"

@tool()
def add(a: int, b: int) -> str:
    """Add two numbers together."""
    return str(a + b)

agent = Agent(
    tools=[get_weather, add],
    provider=LocalProvider(),
    config=AgentConfig(model="gpt-4o"),
)
result = agent.run("What is the weather in Paris?")
print(result.content)
'''

# docs/modules/TOOLS.md, code block 2
MANUAL_DEFINITION = r"""
from selectools import Tool, ToolParameter

def get_weather(location: str, units: str = "celsius") -> str:
    return f"Weather in {location}: 72°{units[0].upper()}"

weather_tool = Tool(
    name="get_weather",
    description="Get current weather for a location",
    parameters=[
        ToolParameter(
            name="location",
            param_type=str,
            description="City name or coordinates",
            required=True
        ),
        ToolParameter(
            name="units",
            param_type=str,
            description="celsius or fahrenheit",
            required=False,
            enum=["celsius", "fahrenheit"]
        ),
    ],
    function=get_weather
)
"""

# docs/modules/TOOLS.md, code block 3
DECORATOR_DEFINITION = r"""
from selectools import tool

@tool(
    name="get_weather",  # Optional: defaults to function name
    description="Get current weather for a location",
    param_metadata={
        "location": {"description": "City name or coordinates"},
        "units": {"description": "Temperature units", "enum": ["celsius", "fahrenheit"]}
    }
)
def get_weather(location: str, units: str = "celsius") -> str:
    return f"Weather in {location}: 72°{units[0].upper()}"
"""

# docs/modules/TOOLS.md, code block 9
BASIC_USAGE = r"""
@tool(description="Add two numbers")
def add(a: int, b: int) -> str:
    return str(a + b)
"""

# docs/modules/TOOLS.md, code block 10
EQUIVALENT_FORM = r"""
def add(a: int, b: int) -> str:
    return str(a + b)

add = tool(description="Add two numbers")(add)
"""

# docs/modules/TOOLS.md, code block 11
PARAMETER_METADATA = r"""
@tool(
    description="Search the web",
    param_metadata={
        "query": {
            "description": "Search terms",
        },
        "limit": {
            "description": "Max results",
        }
    }
)
def search(query: str, limit: int = 10) -> str:
    return f"Found results for: {query}"
"""

# docs/modules/TOOLS.md, code block 13
CUSTOM_NAMES = r"""
@tool(
    name="web_search",  # Override function name
    description="Search the web"
)
def search_google(query: str) -> str:
    return f"Results: {query}"

# Tool is accessible as "web_search", not "search_google"
"""

# docs/modules/TOOLS.md, code block 14
DOCSTRING_DESCRIPTION = r'''
@tool()
def calculate(a: int, b: int, operation: str = "add") -> str:
    """
    Perform arithmetic operations on two numbers.
    Supports add, subtract, multiply, divide.
    """
    # Implementation...
'''

# docs/modules/TOOLS.md, code block 15
TERMINAL_TOOL = r'''
@tool(terminal=True)
def present_question(question_id: int) -> str:
    """Present a question to the user and wait for their response."""
    return json.dumps({"action": "present_question", "id": question_id})
'''

# docs/modules/TOOLS.md, code block 16
REGISTRY = r"""
from selectools import ToolRegistry

registry = ToolRegistry()

@registry.tool(description="Add numbers")
def add(a: int, b: int) -> str:
    return str(a + b)

@registry.tool(description="Multiply numbers")
def multiply(a: int, b: int) -> str:
    return str(a * b)

@registry.tool(description="Search the web")
def search(query: str) -> str:
    return f"Results for: {query}"
"""

# docs/modules/TOOLS.md, code block 19
GENERATOR_STREAMING = r'''
from typing import Generator

@tool(description="Process large file", streaming=True)
def process_file(filepath: str) -> Generator[str, None, None]:
    """Process file line by line."""
    with open(filepath) as f:
        for i, line in enumerate(f, 1):
            # Process line
            result = process_line(line)

            # Yield result chunk
            yield f"[Line {i}] {result}\n"
'''

# docs/modules/TOOLS.md, code block 20
ASYNC_GENERATOR_STREAMING = r'''
from typing import AsyncGenerator

@tool(description="Stream API responses", streaming=True)
async def stream_api(url: str) -> AsyncGenerator[str, None]:
    """Stream data from API."""
    async with aiohttp.ClientSession() as session:
        async with session.get(url) as resp:
            async for line in resp.content:
                yield line.decode()
'''

# docs/modules/TOOLS.md, code block 22
INJECTED_KWARGS = r'''
import psycopg2

def query_database(sql: str, db_connection) -> str:
    """Execute SQL query. db_connection is injected."""
    with db_connection.cursor() as cursor:
        cursor.execute(sql)
        results = cursor.fetchall()
    return str(results)

# Create connection (not exposed to LLM)
db_conn = psycopg2.connect(
    host="localhost",
    database="myapp",
    user="readonly_user",
    password="secret"
)

# Tool only exposes 'sql' parameter
db_tool = Tool(
    name="query_db",
    description="Execute a read-only SQL query",
    parameters=[
        ToolParameter(name="sql", param_type=str, description="SQL SELECT query")
    ],
    function=query_database,
    injected_kwargs={"db_connection": db_conn}  # Injected at runtime
)
'''

# docs/modules/TOOLS.md, code block 23
CONFIG_INJECTOR = r"""
def get_current_user():
    return {"user_id": 123, "role": "admin"}

@tool(
    description="Check user permissions",
    config_injector=get_current_user  # Called at execution time
)
def check_permissions(resource: str, user_id: int, role: str) -> str:
    return f"User {user_id} ({role}) access to {resource}: granted"
"""

# docs/modules/TOOLS.md, code block 27
USE_TYPE_HINTS = r"""
# ✅ Good
@tool(description="Add numbers")
def add(a: int, b: int) -> str:
    return str(a + b)

# ❌ Bad
@tool(description="Add numbers")
def add(a, b):  # No type hints
    return str(a + b)
"""

# docs/modules/TOOLS.md, code block 28
CLEAR_DESCRIPTIONS = r"""
# ✅ Good
@tool(description="Search for academic papers by keyword, author, or topic")
def search_papers(query: str) -> str:
    ...

# ❌ Bad
@tool(description="Search")
def search_papers(query: str) -> str:
    ...
"""

# docs/modules/TOOLS.md, code block 29
ENUM_OPTIONS = r"""
@tool(
    description="Convert temperature units",
    param_metadata={
        "units": {"enum": ["celsius", "fahrenheit", "kelvin"]}
    }
)
def convert_temperature(value: float, from_unit: str, to_unit: str) -> str:
    ...
"""

# docs/modules/TOOLS.md, code block 30
VALIDATE_EARLY = r"""
@tool(description="Divide two numbers")
def divide(a: float, b: float) -> str:
    if b == 0:
        raise ValueError("Cannot divide by zero")
    return str(a / b)
"""

# docs/modules/TOOLS.md, code block 31
RETURN_STRINGS = r"""
# ✅ Good
def get_count() -> str:
    return str(42)

# ❌ Bad
def get_count() -> int:
    return 42  # Agent expects string
"""

# docs/modules/TOOLS.md, code block 33
UNIT_TEST = r"""
def test_add_tool():
    @tool(description="Add numbers")
    def add(a: int, b: int) -> str:
        return str(a + b)

    # Test execution
    result = add.execute({"a": 2, "b": 3})
    assert result == "5"

    # Test validation
    with pytest.raises(ToolValidationError):
        add.execute({"a": 2})  # Missing 'b'
"""

# docs/modules/TOOLS.md, code block 34
AGENT_TEST = r"""
def test_tool_with_agent():
    @tool(description="Echo")
    def echo(text: str) -> str:
        return text

    agent = Agent(
        tools=[echo],
        provider=LocalProvider(),
        config=AgentConfig(max_iterations=2, model="local")
    )

    response = agent.run([Message(role=Role.USER, content="Hello")])
    assert "Hello" in response.content
"""

# docs/modules/TOOLS.md, code block 35
TYPE_MISMATCH = r"""
# LLM might pass "42" as string, but function expects int
@tool(description="Calculate")
def calculate(a: int, b: int) -> str:
    return str(a + b)

# Fix: Validation catches this and suggests conversion
"""

# docs/modules/TOOLS.md, code block 36
MISSING_REQUIRED = r"""
# Function has required param, but LLM doesn't provide it
@tool(description="Greet user")
def greet(name: str) -> str:
    return f"Hello, {name}!"

# Fix: Validation raises helpful error, LLM corrects on next iteration
"""

# docs/modules/TOOLS.md, code block 37
FORGOTTEN_RETURN = r"""
# ❌ Returns None implicitly
@tool(description="Log message")
def log_message(msg: str):
    print(msg)

# ✅ Return string
@tool(description="Log message")
def log_message(msg: str) -> str:
    print(msg)
    return f"Logged: {msg}"
"""


@pytest.fixture
def page() -> dict[str, Any]:
    """A namespace like the docs page's, with the tools names imported.

    The examples' own ``from selectools import ...`` lines import the package's real
    exports: nothing is patched onto ``selectools``.
    """
    return {
        "__name__": "tools_page",
        "Tool": Tool,
        "ToolParameter": ToolParameter,
        "ToolRegistry": ToolRegistry,
        "tool": tool,
        "pytest": pytest,
        "ToolValidationError": ToolValidationError,
    }


def run(snippet: str, namespace: dict[str, Any]) -> dict[str, Any]:
    exec(compile(snippet, "<TOOLS.md>", "exec"), namespace)
    return namespace


def test_manual_definition(page: dict[str, Any]) -> None:
    ns = run(MANUAL_DEFINITION, page)
    weather_tool = ns["weather_tool"]
    assert weather_tool.execute({"location": "Paris"}) == "Weather in Paris: 72°C"
    assert weather_tool.execute({"location": "Paris", "units": "fahrenheit"}) == (
        "Weather in Paris: 72°F"
    )
    with pytest.raises(ToolValidationError, match="must be one of"):
        weather_tool.execute({"location": "Paris", "units": "kelvin"})
    assert weather_tool.schema()["parameters"]["required"] == ["location"]


def test_decorator_definition_and_generated_schema(page: dict[str, Any]) -> None:
    get_weather = run(DECORATOR_DEFINITION, page)["get_weather"]
    schema = get_weather.schema()
    # the documented schema, plus the "default" we emit for parameters that have one
    assert schema["parameters"]["properties"]["units"].pop("default") == "celsius"
    assert schema == json.loads(
        """
        {
          "name": "get_weather",
          "description": "Get current weather for a location",
          "parameters": {
            "type": "object",
            "properties": {
              "location": {
                "type": "string",
                "description": "City name or coordinates"
              },
              "units": {
                "type": "string",
                "description": "Temperature units",
                "enum": ["celsius", "fahrenheit"]
              }
            },
            "required": ["location"]
          }
        }
        """
    )


def test_documented_error_message(page: dict[str, Any]) -> None:
    get_weather = run(DECORATOR_DEFINITION, page)["get_weather"]
    with pytest.raises(ToolValidationError) as info:
        get_weather.validate({"loction": "Paris"})
    assert str(info.value).strip("\n") == (
        "============================================================\n"
        "❌ Tool Validation Error: 'get_weather'\n"
        "============================================================\n"
        "\n"
        "Parameter: loction\n"
        "Issue: Unexpected parameter(s)\n"
        "\n"
        "💡 Suggestion: 'loction' -> Did you mean 'location'?\n"
        "Expected parameters: 'location', 'units'\n"
        "\n"
        "============================================================"
    )


def test_basic_usage_and_equivalent_form(page: dict[str, Any]) -> None:
    add = run(BASIC_USAGE, page)["add"]
    assert add.description == "Add two numbers"
    assert add.execute({"a": 2, "b": 3}) == "5"
    add2 = run(EQUIVALENT_FORM, dict(page))["add"]
    assert add2.schema() == add.schema()


def test_parameter_metadata(page: dict[str, Any]) -> None:
    search = run(PARAMETER_METADATA, page)["search"]
    props = search.schema()["parameters"]["properties"]
    assert props["query"] == {"type": "string", "description": "Search terms"}
    assert props["limit"] == {"type": "integer", "description": "Max results", "default": 10}
    assert search.execute({"query": "cats"}) == "Found results for: cats"


def test_custom_names(page: dict[str, Any]) -> None:
    web_search = run(CUSTOM_NAMES, page)["search_google"]
    assert web_search.name == "web_search"
    assert web_search.execute({"query": "q"}) == "Results: q"


def test_docstring_as_description(page: dict[str, Any]) -> None:
    calculate = run(DOCSTRING_DESCRIPTION, page)["calculate"]
    assert calculate.description.startswith("Perform arithmetic operations on two numbers.")
    assert calculate.execute({"a": 1, "b": 2}) == ""  # the body is only "# Implementation..."


def test_terminal_tool(page: dict[str, Any]) -> None:
    present_question = run(TERMINAL_TOOL, {**page, "json": json})["present_question"]
    assert present_question.terminal is True
    assert json.loads(present_question.execute({"question_id": 3})) == {
        "action": "present_question",
        "id": 3,
    }


def test_registry(page: dict[str, Any]) -> None:
    registry = run(REGISTRY, page)["registry"]
    assert [t.name for t in registry.all()] == ["add", "multiply", "search"]
    assert registry.get("search").execute({"query": "x"}) == "Results for: x"
    assert registry.get("multiply").description == "Multiply numbers"


def test_streaming_definitions(page: dict[str, Any], tmp_path: Any) -> None:
    ns = run(GENERATOR_STREAMING, page)
    process_file = ns["process_file"]
    assert process_file.streaming is True
    assert process_file.is_async is False
    path = tmp_path / "in.txt"
    path.write_text("a\nb\n")
    ns["process_line"] = str.strip  # the page leaves process_line to the reader
    chunks: list[str] = []
    assert process_file.execute({"filepath": str(path)}, chunks.append) == (
        "[Line 1] a\n[Line 2] b\n"
    )
    assert chunks == ["[Line 1] a\n", "[Line 2] b\n"]

    stream_api = run(ASYNC_GENERATOR_STREAMING, page)["stream_api"]
    assert stream_api.streaming is True
    assert stream_api.is_async is True
    # without aiohttp the call fails inside the tool, and is reported as a tool error
    with pytest.raises(ToolExecutionError):
        asyncio.run(stream_api.aexecute({"url": "http://127.0.0.1:9"}))


def test_injected_kwargs(page: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    class Cursor:
        def __enter__(self) -> Cursor:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def execute(self, sql: str) -> None:
            self.sql = sql

        def fetchall(self) -> list[tuple[str]]:
            return [(self.sql,)]

    class Connection:
        def cursor(self) -> Cursor:
            return Cursor()

    fake = types.ModuleType("psycopg2")
    fake.connect = lambda **kwargs: Connection()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "psycopg2", fake)
    db_tool = run(INJECTED_KWARGS, page)["db_tool"]
    assert db_tool.schema() == {
        "name": "query_db",
        "description": "Execute a read-only SQL query",
        "parameters": {
            "type": "object",
            "properties": {"sql": {"type": "string", "description": "SQL SELECT query"}},
            "required": ["sql"],
        },
    }
    assert db_tool.execute({"sql": "SELECT 1"}) == "[('SELECT 1',)]"


def test_config_injector(page: dict[str, Any]) -> None:
    check_permissions = run(CONFIG_INJECTOR, page)["check_permissions"]
    assert check_permissions.schema()["parameters"] == {
        "type": "object",
        "properties": {"resource": {"type": "string", "description": "Parameter 'resource'"}},
        "required": ["resource"],
    }
    assert check_permissions.execute({"resource": "reports"}) == (
        "User 123 (admin) access to reports: granted"
    )


def test_best_practices(page: dict[str, Any]) -> None:
    add = run(USE_TYPE_HINTS, page)["add"]  # the second, un-annotated definition wins
    assert add.schema()["parameters"]["properties"]["a"]["type"] == "string"
    assert add.execute({"a": "1", "b": "2"}) == "12"
    search_papers = run(CLEAR_DESCRIPTIONS, page)["search_papers"]
    assert search_papers.description == "Search"
    convert = run(ENUM_OPTIONS, page)["convert_temperature"]
    assert list(convert.schema()["parameters"]["properties"]) == ["value", "from_unit", "to_unit"]
    divide = run(VALIDATE_EARLY, page)["divide"]
    assert divide.execute({"a": 1, "b": 4}) == "0.25"
    with pytest.raises(ToolExecutionError):
        divide.execute({"a": 1, "b": 0})
    assert run(RETURN_STRINGS, page)["get_count"]() == 42


def test_unit_testing_example(page: dict[str, Any]) -> None:
    run(UNIT_TEST, page)["test_add_tool"]()


def test_common_pitfalls(page: dict[str, Any]) -> None:
    calculate = run(TYPE_MISMATCH, page)["calculate"]
    with pytest.raises(ToolValidationError) as info:
        calculate.execute({"a": "42", "b": 1})
    assert info.value.suggestion == "Try: a=int('42')"
    greet = run(MISSING_REQUIRED, page)["greet"]
    with pytest.raises(ToolValidationError, match="Missing required parameter"):
        greet.execute({})
    log_message = run(FORGOTTEN_RETURN, page)["log_message"]
    assert log_message.execute({"msg": "hi"}) == "Logged: hi"


def test_agent_examples(page: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    """The two examples that also need the agent (owned by the agent package)."""
    run(TOOL_BASICS, dict(page))
    # LocalProvider echoes the prompt (it never picks a tool)
    assert capsys.readouterr().out == "What is the weather in Paris?\n"
    ns = run(AGENT_TEST, {**page, **{n: getattr(selectools, n) for n in _AGENT_NAMES}})
    ns["test_tool_with_agent"]()


_AGENT_NAMES = ("Agent", "AgentConfig", "LocalProvider", "Message", "Role")
