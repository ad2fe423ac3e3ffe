"""One contract, five providers: each is driven through its real SDK / HTTP client against
the FakeLLMServer and must behave the same way (sync, async, streaming, tool calls,
parallel tool calls, usage, multimodal input, and a full Agent tool loop)."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest

from selectools import Agent, ContentPart, Message, ProviderError, Role, ToolCall, tool
from selectools.pricing import calculate_cost
from selectools.testing import FakeReply, FakeToolCall, tool_call
from selectools.types import AgentResult, StreamChunk
from selectools.usage import UsageStats

from .conftest import PROVIDER_NAMES, VENDORS, fast_config, make_provider

pytestmark = pytest.mark.timeout(60)

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16).decode()
USER = [Message(role=Role.USER, content="What does the phone cost?")]


@tool(description="Look up the price of a product")
def get_price(product: str) -> str:
    return {"phone": "$699", "laptop": "$999"}.get(product, f"No price for {product}")


def run_async(coroutine):
    return asyncio.run(coroutine)


async def collect(iterator):
    return [item async for item in iterator]


def call(provider, method="complete", **kwargs):
    options = {"model": "", "system_prompt": "Be brief.", "messages": USER, "timeout": 5.0}
    options.update(kwargs)
    if method == "complete":
        return provider.complete(**options)
    if method == "acomplete":
        return run_async(provider.acomplete(**options))
    if method == "stream":
        return list(provider.stream(**options))
    return run_async(collect(provider.astream(**options)))


def as_reply(items):
    """A streamed item list folded into (text, calls, usage)."""
    text = "".join(i for i in items if isinstance(i, str))
    calls = [i for i in items if isinstance(i, ToolCall)]
    usages = [i for i in items if isinstance(i, UsageStats)]
    return text, calls, usages


@pytest.fixture(params=VENDORS)
def vendor(request):
    return request.param


# -- protocol basics -----------------------------------------------------------------
def test_provider_attributes(vendor, server):
    provider = make_provider(vendor, server)
    assert provider.name == PROVIDER_NAMES[vendor]
    assert provider.supports_streaming and provider.supports_async
    assert provider.supports_native_tools
    assert provider.default_model


@pytest.mark.parametrize("method", ["complete", "acomplete"])
def test_complete_returns_message_and_priced_usage(vendor, server, method):
    provider = make_provider(vendor, server)
    server.add(FakeReply("Hello there!", usage=(12, 5)))
    message, usage = call(provider, method)
    assert isinstance(message, Message) and message.role is Role.ASSISTANT
    assert message.content == "Hello there!" and message.tool_calls is None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (12, 5, 17)
    assert usage.provider == PROVIDER_NAMES[vendor]
    assert usage.model == provider.default_model
    assert usage.cost_usd == pytest.approx(calculate_cost(provider.default_model, 12, 5))
    assert server.last_request.stream is False


@pytest.mark.parametrize("method", ["stream", "astream"])
def test_stream_yields_text_deltas_then_usage(vendor, server, method):
    provider = make_provider(vendor, server)
    server.add(FakeReply("One two three", chunks=["One ", "two ", "three"], usage=(9, 3)))
    items = call(provider, method)
    assert items[:3] == ["One ", "two ", "three"]
    assert isinstance(items[-1], UsageStats) and len(items) == 4
    assert (items[-1].prompt_tokens, items[-1].completion_tokens) == (9, 3)
    assert items[-1].provider == PROVIDER_NAMES[vendor]
    assert server.last_request.stream is True


@pytest.mark.parametrize("method", ["complete", "acomplete", "stream", "astream"])
def test_parallel_tool_calls(vendor, server, method):
    provider = make_provider(vendor, server)
    server.add(
        FakeReply(
            "Checking both.",
            [
                FakeToolCall("get_price", {"product": "phone"}),
                FakeToolCall("get_price", {"product": "laptop"}),
            ],
        )
    )
    result = call(provider, method, tools=[get_price])
    if method in ("complete", "acomplete"):
        message, _ = result
        text, calls = message.content, message.tool_calls or []
    else:
        text, calls, usages = as_reply(result)
        assert len(usages) == 1 and result[-1] is usages[0]
    assert text == "Checking both."
    assert [(c.tool_name, c.parameters) for c in calls] == [
        ("get_price", {"product": "phone"}),
        ("get_price", {"product": "laptop"}),
    ]
    assert all(c.error is None for c in calls)
    ids = [c.id for c in calls]
    assert all(ids) and len(set(ids)) == 2


@pytest.mark.parametrize("method", ["complete", "stream"])
def test_unreadable_tool_arguments_become_tool_call_errors(vendor, server, method):
    provider = make_provider(vendor, server)
    server.add(FakeReply(tool_calls=[FakeToolCall("get_price", '{"product": "ph')]))
    result = call(provider, method, tools=[get_price])
    calls = result[0].tool_calls if method == "complete" else as_reply(result)[1]
    assert len(calls) == 1
    assert calls[0].tool_name == "get_price" and calls[0].parameters == {}
    assert "not valid JSON" in calls[0].error


# -- what goes over the wire ---------------------------------------------------------------
def _history():
    calls = [
        ToolCall("get_price", {"product": "phone"}, id="call_a"),
        ToolCall("get_price", {"product": "laptop"}, id="call_b"),
    ]
    return [
        Message(role=Role.USER, content="Prices?"),
        Message(role=Role.ASSISTANT, content="Checking.", tool_calls=calls),
        Message(role=Role.TOOL, content="$699", tool_name="get_price", tool_call_id="call_a"),
        Message(role=Role.TOOL, content="$999", tool_name="get_price", tool_call_id="call_b"),
    ]


def test_openai_wire_format(server):
    provider = make_provider("openai", server)
    server.add("ok")
    provider.complete(model="gpt-4o", system_prompt="sys", messages=_history(), tools=[get_price])
    request = server.last_request
    assert request.path == "/v1/chat/completions"
    assert request.header("authorization").startswith("Bearer ")
    body = request.json
    assert body["max_tokens"] == 1000 and body["temperature"] == 0.0
    assert body["messages"][0] == {"role": "system", "content": "sys"}
    assistant = body["messages"][2]
    assert assistant["role"] == "assistant" and assistant["content"] == "Checking."
    assert [tc["id"] for tc in assistant["tool_calls"]] == ["call_a", "call_b"]
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"product": "phone"}
    assert body["messages"][3:] == [
        {"role": "tool", "tool_call_id": "call_a", "content": "$699"},
        {"role": "tool", "tool_call_id": "call_b", "content": "$999"},
    ]
    spec = body["tools"][0]
    assert spec["type"] == "function" and spec["function"]["name"] == "get_price"
    assert spec["function"]["parameters"]["required"] == ["product"]


@pytest.mark.parametrize(
    ("model", "param", "sends_temperature"),
    [
        ("gpt-5-mini", "max_completion_tokens", False),
        ("gpt-5.1", "max_completion_tokens", False),
        ("gpt-4.1", "max_completion_tokens", True),
        ("gpt-4.1-mini", "max_completion_tokens", True),
        ("o3", "max_completion_tokens", False),
        ("o4-mini", "max_completion_tokens", False),
        ("gpt-5-codex", "max_completion_tokens", False),
        ("gpt-4o", "max_tokens", True),
        ("gpt-4o-mini", "max_tokens", True),
    ],
)
def test_openai_token_parameter_follows_the_model_family(server, model, param, sends_temperature):
    provider = make_provider("openai", server)
    server.add("ok")
    provider.complete(model=model, system_prompt="", messages=USER, max_tokens=77)
    body = server.last_request.json
    assert body[param] == 77
    other = "max_tokens" if param == "max_completion_tokens" else "max_completion_tokens"
    assert other not in body
    assert ("temperature" in body) is sends_temperature


def test_openai_token_parameter_can_be_forced(server):
    provider = make_provider("openai", server, max_tokens_param="max_completion_tokens")
    server.add("ok")
    provider.complete(model="my-finetune", system_prompt="", messages=USER)
    assert server.last_request.json["max_completion_tokens"] == 1000
    with pytest.raises(ValueError, match="max_tokens_param"):
        make_provider("openai", server, max_tokens_param="max_output_tokens")


def test_openai_stream_asks_for_usage(server):
    provider = make_provider("openai", server)
    server.add("hi")
    list(provider.stream(model="gpt-4o", system_prompt="", messages=USER))
    assert server.last_request.json["stream_options"] == {"include_usage": True}


def test_azure_routes_by_deployment_and_sends_api_key_header(server):
    provider = make_provider("azure", server)
    server.add("ok", "ok")
    provider.complete(system_prompt="", messages=USER)
    request = server.last_request
    assert request.path == "/openai/deployments/gpt-4o/chat/completions"
    assert request.query["api-version"] == "2024-10-21"
    assert request.header("api-key")
    provider.complete(model="other-deployment", system_prompt="", messages=USER)
    assert server.last_request.path == "/openai/deployments/other-deployment/chat/completions"


def test_azure_ad_token_replaces_the_key(server):
    from selectools import AzureOpenAIProvider

    provider = AzureOpenAIProvider(
        azure_endpoint=server.azure_endpoint, azure_deployment="gpt-4o", azure_ad_token="aad-token"
    )
    server.add("ok")
    provider.complete(system_prompt="", messages=USER)
    assert server.last_request.header("authorization") == "Bearer aad-token"
    assert server.last_request.header("api-key") is None


def test_anthropic_wire_format(server):
    provider = make_provider("anthropic", server)
    server.add("ok")
    history = [Message(role=Role.SYSTEM, content="extra rule"), *_history()]
    provider.complete(model="", system_prompt="sys", messages=history, tools=[get_price])
    request = server.last_request
    assert request.path == "/v1/messages"
    body = request.json
    assert body["system"] == "sys\n\nextra rule"
    assert body["max_tokens"] == 1000 and body["model"] == provider.default_model
    assert [turn["role"] for turn in body["messages"]] == ["user", "assistant", "user"]
    assistant = body["messages"][1]["content"]
    assert assistant[0] == {"type": "text", "text": "Checking."}
    assert assistant[1] == {
        "type": "tool_use",
        "id": "call_a",
        "name": "get_price",
        "input": {"product": "phone"},
    }
    # both results of the parallel calls share one user turn
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "call_a", "content": "$699"},
        {"type": "tool_result", "tool_use_id": "call_b", "content": "$999"},
    ]
    assert body["tools"][0]["input_schema"]["properties"]["product"]["type"] == "string"


def test_anthropic_marks_failed_tool_results(server):
    provider = make_provider("anthropic", server)
    server.add("ok")
    history = _history()[:3]
    history[2].is_error = True
    provider.complete(model="", system_prompt="", messages=history)
    result = server.last_request.json["messages"][2]["content"][0]
    assert result["is_error"] is True


def test_gemini_wire_format_and_thought_signatures(server):
    provider = make_provider("gemini", server)
    server.add(FakeReply("Checking.", [FakeToolCall("get_price", {"product": "phone"})]), "ok")
    message, _ = provider.complete(system_prompt="sys", messages=USER, tools=[get_price])
    first = server.last_request
    assert first.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert first.header("x-goog-api-key") and "key" not in first.query
    assert first.json["systemInstruction"] == {"parts": [{"text": "sys"}]}
    assert first.json["generationConfig"] == {"maxOutputTokens": 1000, "temperature": 0.0}
    declaration = first.json["tools"][0]["functionDeclarations"][0]
    assert declaration["name"] == "get_price" and declaration["parameters"]["type"] == "object"
    calls = message.tool_calls
    history = [
        *USER,
        Message(role=Role.ASSISTANT, content=message.content, tool_calls=calls),
        Message(role=Role.TOOL, content="$699", tool_name="get_price", tool_call_id=calls[0].id),
    ]
    provider.complete(system_prompt="sys", messages=history, tools=[get_price])
    contents = server.last_request.json["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    model_parts = contents[1]["parts"]
    assert model_parts[0] == {"text": "Checking."}
    assert model_parts[1]["functionCall"] == {"name": "get_price", "args": {"product": "phone"}}
    assert model_parts[1]["thoughtSignature"].startswith("sig-")
    assert contents[2]["parts"] == [
        {"functionResponse": {"name": "get_price", "response": {"result": "$699"}}}
    ]


def test_ollama_wire_format(server):
    provider = make_provider("ollama", server)
    server.add("ok")
    provider.complete(model="", system_prompt="sys", messages=_history(), tools=[get_price])
    request = server.last_request
    assert request.path == "/api/chat"
    assert "authorization" not in request.headers
    body = request.json
    assert body["stream"] is False
    assert body["options"] == {"num_predict": 1000, "temperature": 0.0}
    assert body["messages"][2]["tool_calls"][0] == {
        "function": {"name": "get_price", "arguments": {"product": "phone"}}
    }
    assert body["messages"][3] == {"role": "tool", "content": "$699", "tool_name": "get_price"}
    assert body["tools"][0]["function"]["name"] == "get_price"


# -- multimodal input -----------------------------------------------------------------------
def _image_message():
    return Message(
        role=Role.USER,
        content=[
            ContentPart(type="text", text="What is this?"),
            ContentPart(type="image_base64", image_base64=PNG),
        ],
    )


def _sent_image(vendor, body):
    if vendor in ("openai", "azure"):
        return body["messages"][-1]["content"][1]
    if vendor == "anthropic":
        return body["messages"][-1]["content"][1]
    if vendor == "gemini":
        return body["contents"][-1]["parts"][1]
    return body["messages"][-1]["images"]


EXPECTED_IMAGE = {
    "openai": {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
    "azure": {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
    "anthropic": {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PNG},
    },
    "gemini": {"inlineData": {"mimeType": "image/png", "data": PNG}},
    "ollama": [PNG],
}


def test_base64_images_use_each_vendors_format(vendor, server):
    provider = make_provider(vendor, server)
    server.add("A tiny PNG.")
    message, _ = provider.complete(model="", system_prompt="", messages=[_image_message()])
    assert message.content == "A tiny PNG."
    assert _sent_image(vendor, server.last_request.json) == EXPECTED_IMAGE[vendor]


def test_legacy_image_path_field(vendor, server, tmp_path):
    image = tmp_path / "photo.png"
    image.write_bytes(base64.b64decode(PNG))
    provider = make_provider(vendor, server)
    server.add("ok")
    message = Message(role=Role.USER, content="What is this?", image_path=str(image))
    provider.complete(model="", system_prompt="", messages=[message])
    assert _sent_image(vendor, server.last_request.json) == EXPECTED_IMAGE[vendor]


def test_missing_image_file_is_a_clear_non_retryable_error(vendor, server, tmp_path):
    provider = make_provider(vendor, server)
    image = tmp_path / "missing.png"
    image.write_bytes(base64.b64decode(PNG))
    message = Message(role=Role.USER, content="What is this?", image_path=str(image))
    image.unlink()  # gone between building the message and sending it
    with pytest.raises(ProviderError, match=r"missing\.png") as caught:
        provider.complete(model="", system_prompt="", messages=[message])
    assert caught.value.retryable is False
    assert server.requests == []


@pytest.mark.parametrize("vendor_name", ["openai", "anthropic", "gemini"])
def test_image_urls_pass_through(vendor_name, server):
    provider = make_provider(vendor_name, server)
    server.add("ok")
    url = "https://example.com/diagram.png"
    message = Message(
        role=Role.USER,
        content=[
            ContentPart(type="text", text="Explain"),
            ContentPart(type="image_url", image_url=url),
        ],
    )
    provider.complete(model="", system_prompt="", messages=[message])
    sent = _sent_image(vendor_name, server.last_request.json)
    expected = {
        "openai": {"type": "image_url", "image_url": {"url": url}},
        "anthropic": {"type": "image", "source": {"type": "url", "url": url}},
        "gemini": {"fileData": {"mimeType": "image/png", "fileUri": url}},
    }[vendor_name]
    assert sent == expected


def test_ollama_rejects_image_urls_with_a_fix(server):
    provider = make_provider("ollama", server)
    message = Message(
        role=Role.USER, content=[ContentPart(type="image_url", image_url="https://x.test/a.png")]
    )
    with pytest.raises(ProviderError, match="local path") as caught:
        provider.complete(model="", system_prompt="", messages=[message])
    assert caught.value.retryable is False


@pytest.mark.parametrize(
    ("vendor_name", "expected"),
    [
        ("openai", {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}),
        ("gemini", {"inlineData": {"mimeType": "audio/wav", "data": "UklGRg=="}}),
    ],
)
def test_audio_parts_where_supported(vendor_name, expected, server):
    provider = make_provider(vendor_name, server)
    server.add("ok")
    message = Message(
        role=Role.USER,
        content=[
            ContentPart(type="text", text="Transcribe"),
            ContentPart(type="audio", image_base64="UklGRg==", media_type="audio/wav"),
        ],
    )
    provider.complete(model="", system_prompt="", messages=[message])
    body = server.last_request.json
    sent = (
        body["messages"][-1]["content"][1]
        if vendor_name == "openai"
        else body["contents"][-1]["parts"][1]
    )
    assert sent == expected


@pytest.mark.parametrize("vendor_name", ["anthropic", "ollama"])
def test_audio_is_refused_where_unsupported(vendor_name, server):
    provider = make_provider(vendor_name, server)
    message = Message(role=Role.USER, content=[ContentPart(type="audio", image_base64="UklGRg==")])
    with pytest.raises(ProviderError, match="audio") as caught:
        provider.complete(model="", system_prompt="", messages=[message])
    assert caught.value.retryable is False


# -- a full agent run on each provider ------------------------------------------------------
def _agent_script(server):
    server.add(
        FakeReply("Let me check.", [tool_call("get_price", product="phone")], usage=(40, 10)),
        FakeReply("The phone costs $699.", usage=(60, 8)),
    )


def _check_run(vendor, server, result):
    assert isinstance(result, AgentResult)
    assert result.content == "The phone costs $699."
    assert result.stop_reason == "final" and result.error is None
    assert result.iterations == 2
    assert [c.tool_name for c in result.tool_calls] == ["get_price"]
    assert result.provider_used == PROVIDER_NAMES[vendor]
    assert result.usage.total_tokens == 118
    tool_steps = result.trace.filter(type="tool_execution")
    assert [s.result for s in tool_steps] == ["$699"]
    # the second request carried the tool result back to the model
    assert "$699" in server.requests[1].body.decode()


@pytest.mark.parametrize("entry", ["run", "arun", "stream", "astream"])
def test_agent_tool_loop(vendor, server, entry):
    agent = Agent(tools=[get_price], provider=make_provider(vendor, server), config=fast_config())
    _agent_script(server)
    if entry == "run":
        result = agent.run("What does the phone cost?")
    elif entry == "arun":
        result = run_async(agent.arun("What does the phone cost?"))
    elif entry == "stream":
        items = list(agent.stream("What does the phone cost?"))
        result = items[-1]
        text = "".join(i.content for i in items if isinstance(i, StreamChunk))
        assert text == "Let me check.The phone costs $699."
    else:
        items = run_async(collect(agent.astream("What does the phone cost?")))
        result = items[-1]
        assert any(isinstance(i, StreamChunk) and i.tool_calls for i in items)
    _check_run(vendor, server, result)
    assert all(r.stream is entry.endswith("stream") for r in server.requests)
