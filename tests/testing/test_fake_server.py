"""FakeLLMServer itself, driven with plain httpx: routes, recording, scripting, faults."""

from __future__ import annotations

import base64
import json
import socket
import struct
import threading
import time

import httpx
import pytest

from selectools.testing import (
    FakeLLMServer,
    FakeReply,
    FakeToolCall,
    Fault,
    RecordedRequest,
    ScriptedReply,
    tool_call,
)
from selectools.usage import UsageStats

pytestmark = pytest.mark.timeout(30)

CHAT = {
    "openai": ("/v1/chat/completions", {"model": "gpt-4o", "messages": []}),
    "azure": ("/openai/deployments/dep/chat/completions?api-version=2024-10-21", {"messages": []}),
    "anthropic": ("/v1/messages", {"model": "claude", "max_tokens": 10, "messages": []}),
    "gemini": ("/v1beta/models/gemini-2.5-flash:generateContent", {"contents": []}),
    "ollama": ("/api/chat", {"model": "llama3.2", "messages": [], "stream": False}),
}


@pytest.fixture
def server():
    with FakeLLMServer() as fake:
        yield fake


def post(server, path, body, **headers):
    return httpx.post(server.url + path, json=body, headers=headers, timeout=5)


def stream_lines(server, path, body):
    with httpx.stream("POST", server.url + path, json=body, timeout=5) as response:
        return response.status_code, list(response.iter_lines())


def test_lifecycle_and_addresses():
    fake = FakeLLMServer()
    with pytest.raises(RuntimeError, match="not running"):
        _ = fake.port
    with fake as running:
        assert running.url.startswith("http://127.0.0.1:")
        assert running.openai_base_url == running.url + "/v1"
        assert running.start() is running  # idempotent
        env = running.env(api_key="k", deployment="dep")
        assert env["OPENAI_BASE_URL"] == running.openai_base_url
        assert env["AZURE_OPENAI_DEPLOYMENT"] == "dep" and env["GEMINI_API_KEY"] == "k"
        assert repr(running).startswith(f"FakeLLMServer({running.url}")
    assert repr(fake) == "FakeLLMServer(stopped, scripted=0, requests=0)"
    fake.close()  # closing twice is fine


def test_a_fixed_port_can_be_requested():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with FakeLLMServer(port=port) as fake:
        assert fake.port == port


@pytest.mark.parametrize("vendor", list(CHAT))
def test_every_route_answers_and_is_recorded(server, vendor):
    path, body = CHAT[vendor]
    server.add("Hi!")
    response = post(server, path, body, **{"X-Custom": "yes"})
    assert response.status_code == 200
    text = json.dumps(response.json())
    assert "Hi!" in text
    request = server.last_request
    assert isinstance(request, RecordedRequest)
    assert request.vendor == vendor and request.route == "chat"
    assert request.header("x-custom") == "yes" and request.json == body
    assert request.stream is False


def test_unknown_paths_get_a_404(server):
    response = post(server, "/v2/whatever", {})
    assert response.status_code == 404
    assert "serves no POST /v2/whatever" in response.json()["error"]["message"]
    assert httpx.get(server.url + "/", timeout=5).status_code == 404
    assert server.requests == []


def test_running_out_of_script_is_a_clear_400(server):
    server.add("only one")
    path, body = CHAT["openai"]
    assert post(server, path, body).status_code == 200
    response = post(server, path, body)
    assert response.status_code == 400
    assert "no scripted reply left (1 played)" in response.json()["error"]["message"]


def test_default_responder_and_remaining():
    with FakeLLMServer(["a", "b"], default="again") as fake:
        assert fake.remaining == 2
        path, body = CHAT["ollama"]
        answers = [post(fake, path, body).json()["message"]["content"] for _ in range(4)]
        assert answers == ["a", "b", "again", "again"] and fake.remaining == 0
    seen = []

    def respond(request):
        seen.append(request.model)
        return f"you asked {request.model}"

    with FakeLLMServer(respond) as fake:
        path, body = CHAT["openai"]
        message = post(fake, path, body).json()["choices"][0]["message"]
        assert message["content"] == "you asked gpt-4o" and seen == ["gpt-4o"]


def test_scripts_are_checked_when_added(server):
    with pytest.raises(TypeError, match="cannot play int"):
        server.add(42)
    with pytest.raises(TypeError, match="script a Fault instead"):
        server.add(ScriptedReply(error=RuntimeError("x")))
    with pytest.raises(TypeError, match="lists of vectors or Faults"):
        server.add_embeddings("nope")
    with pytest.raises(ValueError, match="4xx or 5xx"):
        Fault.status_code(302)
    with pytest.raises(ValueError, match="after_chunks"):
        Fault.reset(after_chunks=-1)
    with pytest.raises(ValueError, match="kind"):
        Fault("explode")
    with pytest.raises(ValueError, match="embedding_dimensions"):
        FakeLLMServer(embedding_dimensions=0)


def test_scripted_replies_from_scripted_provider_are_accepted(server):
    usage = UsageStats(prompt_tokens=7, completion_tokens=3)
    server.add(ScriptedReply(text="shared", tool_calls=[tool_call("f", x=1)], usage=usage))
    path, body = CHAT["openai"]
    data = post(server, path, body).json()
    assert data["choices"][0]["message"]["content"] == "shared"
    assert data["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "f"
    assert data["usage"] == {
        "prompt_tokens": 7,
        "completion_tokens": 3,
        "total_tokens": 10,
        "prompt_tokens_details": {"cached_tokens": 0},  # as OpenAI sends it
    }


def test_api_key_is_enforced_in_each_vendors_header():
    with FakeLLMServer(default="ok", api_key="right") as fake:
        ok = {
            "openai": {"Authorization": "Bearer right"},
            "azure": {"api-key": "right"},
            "anthropic": {"x-api-key": "right"},
            "gemini": {"x-goog-api-key": "right"},
        }
        for vendor, headers in ok.items():
            path, body = CHAT[vendor]
            assert post(fake, path, body, **headers).status_code == 200, vendor
            denied = post(fake, path, body, Authorization="Bearer wrong")
            assert denied.status_code == 401, vendor
        anthropic_error = post(fake, *CHAT["anthropic"]).json()
        assert anthropic_error["error"]["type"] == "authentication_error"


def test_error_bodies_have_each_vendors_shape(server):
    for _ in CHAT:
        server.add(Fault.rate_limit(retry_after=7, message="slow down"))
    shapes = {}
    for vendor, (path, body) in CHAT.items():
        response = post(server, path, body)
        assert response.status_code == 429 and response.headers["retry-after"] == "7"
        shapes[vendor] = response.json()
    assert shapes["openai"]["error"]["code"] == "rate_limit_exceeded"
    assert shapes["anthropic"] == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "slow down"},
    }
    gemini = shapes["gemini"]["error"]
    assert gemini["status"] == "RESOURCE_EXHAUSTED" and gemini["details"][0]["retryDelay"] == "7s"
    assert shapes["ollama"] == {"error": "slow down"}


def test_openai_stream_framing(server):
    server.add(FakeReply("Hi there", [FakeToolCall("f", {"a": 1})]))
    body = {"model": "m", "messages": [], "stream": True, "stream_options": {"include_usage": True}}
    status, lines = stream_lines(server, "/v1/chat/completions", body)
    events = [line[6:] for line in lines if line.startswith("data: ")]
    assert status == 200 and events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] > 0
    arguments = "".join(
        tc["function"].get("arguments", "")
        for c in chunks
        for choice in c["choices"]
        for tc in choice["delta"].get("tool_calls", [])
    )
    assert json.loads(arguments) == {"a": 1}
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"


def test_anthropic_stream_framing(server):
    server.add(FakeReply("Hi", [FakeToolCall("f", {"a": 1})]))
    body = {"model": "m", "max_tokens": 5, "messages": [], "stream": True}
    _, lines = stream_lines(server, "/v1/messages", body)
    names = [line[7:] for line in lines if line.startswith("event: ")]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert names.count("content_block_start") == 2 == names.count("content_block_stop")


def test_gemini_stream_with_and_without_sse(server):
    server.add("one two", "one two")
    path = "/v1beta/models/g:streamGenerateContent"
    _, lines = stream_lines(server, path + "?alt=sse", {"contents": []})
    events = [json.loads(line[6:]) for line in lines if line.startswith("data: ")]
    assert events[-1]["candidates"][0]["finishReason"] == "STOP"
    as_array = post(server, path, {"contents": []}).json()
    assert isinstance(as_array, list) and len(as_array) == len(events)


def test_ollama_streams_ndjson_by_default(server):
    server.add("one two")
    _, lines = stream_lines(server, "/api/chat", {"model": "m", "messages": []})
    parsed = [json.loads(line) for line in lines if line]
    assert [p["done"] for p in parsed] == [False, False, True]
    assert parsed[-1]["eval_count"] > 0


def test_after_chunks_counts_content_events(server):
    server.add(FakeReply("a b c d", fault=Fault.truncated_stream(after_chunks=2)))
    body = {"model": "m", "max_tokens": 5, "messages": [], "stream": True}
    _, lines = stream_lines(server, "/v1/messages", body)
    deltas = [line for line in lines if '"text_delta"' in line]
    assert len(deltas) == 2 and not any("message_stop" in line for line in lines)


def test_mid_stream_error_event(server):
    server.add(Fault.status_code(529, "Overloaded", after_chunks=1))
    body = {"model": "m", "max_tokens": 5, "messages": [], "stream": True}
    _, lines = stream_lines(server, "/v1/messages", body)
    assert "event: error" in lines
    assert any("overloaded_error" in line for line in lines)


def test_reset_drops_the_connection(server):
    server.add(Fault.reset(), FakeReply("a b c", fault=Fault.reset(after_chunks=1)))
    with pytest.raises(httpx.TransportError):
        post(server, *CHAT["openai"])
    body = {"model": "m", "messages": [], "stream": True}
    with pytest.raises(httpx.TransportError):
        stream_lines(server, "/v1/chat/completions", body)


def test_malformed_and_truncated_bodies(server):
    server.add(Fault.malformed_json(), Fault.truncated_stream())
    for _ in range(2):
        response = post(server, *CHAT["openai"])
        assert response.status_code == 200
        with pytest.raises(ValueError):
            response.json()


def test_a_stall_is_released_when_the_server_closes():
    fake = FakeLLMServer([Fault.stall(30)]).start()
    errors = []

    def call():
        try:
            post(fake, *CHAT["openai"])
        except httpx.HTTPError as exc:
            errors.append(exc)

    worker = threading.Thread(target=call)
    worker.start()
    while not fake.requests:
        time.sleep(0.01)
    started = time.monotonic()
    fake.close()
    worker.join(5)
    assert time.monotonic() - started < 3 and not worker.is_alive()


def test_stall_shorter_than_the_timeout_just_delays(server):
    server.add(FakeReply("late", fault=Fault.stall(0.2)))
    started = time.monotonic()
    response = post(server, *CHAT["ollama"])
    assert response.json()["message"]["content"] == "late"
    assert time.monotonic() - started >= 0.2


def test_embeddings_are_deterministic_and_openai_base64_is_honoured(server):
    first = post(server, "/v1/embeddings", {"model": "e", "input": ["x", "y"]}).json()
    again = post(server, "/v1/embeddings", {"model": "e", "input": "x"}).json()
    assert first["data"][0]["embedding"] == again["data"][0]["embedding"]
    assert len(first["data"][0]["embedding"]) == 8
    encoded = post(
        server, "/v1/embeddings", {"model": "e", "input": "x", "encoding_format": "base64"}
    ).json()["data"][0]["embedding"]
    raw = base64.b64decode(encoded)
    decoded = struct.unpack(f"<{len(raw) // 4}f", raw)
    assert decoded == pytest.approx(first["data"][0]["embedding"], abs=1e-6)
    assert post(server, "/v1/messages:embed", {}).status_code == 404


def test_reset_forgets_everything(server):
    server.add("x")
    server.add_embeddings([[1.0]])
    post(server, "/api/embed", {"model": "e", "input": ["a"]})
    server.reset()
    assert server.remaining == 0 and server.requests == []
    with pytest.raises(LookupError):
        _ = server.last_request
