"""API keys never show up in reprs, errors, tracebacks, traces or logs — even when the
server quotes the key back in its error message."""

from __future__ import annotations

import asyncio
import copy
import logging
import pickle
import traceback

import pytest

from selectools import Agent, FallbackProvider, LoggingObserver, tool
from selectools.embeddings import GeminiEmbeddingProvider, OpenAIEmbeddingProvider
from selectools.providers._secret import Secret, redact, safe_url
from selectools.testing import FakeReply, Fault, tool_call

from .conftest import KEY, fast_config, make_provider

pytestmark = pytest.mark.timeout(60)

KEYED = ["openai", "azure", "anthropic", "gemini"]


@tool()
def lookup(q: str) -> str:
    """Look something up."""
    return f"result for {q}"


def _texts_of(result, agent, provider):
    texts = [
        repr(provider),
        str(provider),
        repr(agent),
        repr(result),
        result.content,
        result.trace.to_json(),
        repr(result.trace.steps),
    ]
    if result.error is not None:
        error = result.error
        texts += [str(error), repr(error), "".join(traceback.format_exception(error))]
    return texts


@pytest.mark.parametrize("vendor", KEYED)
@pytest.mark.parametrize("entry", ["run", "astream"])
def test_keys_stay_out_of_everything(vendor, entry, server, caplog):
    caplog.set_level(logging.DEBUG)
    provider = make_provider(vendor, server)
    echo = f"Incorrect API key provided: {KEY}. key={KEY}"
    server.add(
        FakeReply("Looking.", [tool_call("lookup", q="x")]),
        "All good.",
        Fault.rate_limit(retry_after=0, message=echo),
        Fault.status_code(401, echo),
    )
    config = fast_config(observers=[LoggingObserver(level=logging.DEBUG)], max_retries=1)
    agent = Agent(tools=[lookup], provider=provider, config=config)
    texts: list[str] = []
    for _ in range(2):  # one run that succeeds, one that fails on a 429 and then a 401
        if entry == "run":
            result = agent.run("go")
        else:

            async def collect():
                return [item async for item in agent.astream("go")]

            result = asyncio.run(collect())[-1]
        texts += _texts_of(result, agent, provider)
    assert result.error is not None and result.error.status_code == 401
    assert "[REDACTED]" in str(result.error)
    texts.append(caplog.text)
    leaks = [text for text in texts if KEY in text]
    assert leaks == []
    assert len(server.requests) == 4  # the key did go to the server, in a header
    assert all(KEY not in r.path and KEY not in str(r.query) for r in server.requests)


def test_fallback_and_embedder_reprs_hide_keys(server):
    provider = FallbackProvider([make_provider("openai", server), make_provider("gemini", server)])
    embedders = [
        OpenAIEmbeddingProvider(api_key=KEY, base_url=server.openai_base_url),
        GeminiEmbeddingProvider(api_key=KEY, base_url=server.gemini_base_url),
    ]
    for obj in [provider, *embedders]:
        assert KEY not in repr(obj) and KEY not in str(obj)


def test_embedding_errors_are_redacted(server):
    embedder = OpenAIEmbeddingProvider(api_key=KEY, base_url=server.openai_base_url)
    server.add_embeddings(Fault.status_code(401, f"bad key {KEY}"))
    with pytest.raises(Exception) as caught:
        embedder.embed_query("hello")
    rendered = "".join(traceback.format_exception(caught.value))
    assert KEY not in rendered and "HTTP 401" in rendered


def test_secret_value_is_hidden_and_unpicklable():
    secret = Secret(KEY)
    assert KEY not in repr(secret) and KEY not in str(secret) and KEY not in f"{secret}"
    assert secret.reveal() == KEY
    assert copy.deepcopy(secret) is secret
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(secret)
    with pytest.raises(TypeError, match="must be a str"):
        Secret(123)  # type: ignore[arg-type]


def test_redact_masks_the_secret_and_key_value_pairs():
    text = f"failed for {KEY} at https://x.test/v1?key=abc123&alt=sse (x-goog-api-key: zzz999)"
    cleaned = redact(text, Secret(KEY))
    assert KEY not in cleaned and "abc123" not in cleaned and "zzz999" not in cleaned
    assert cleaned.count("[REDACTED]") == 3
    assert redact("max_tokens: 1000", None) == "max_tokens: 1000"


def test_safe_url_drops_credentials_and_query():
    assert safe_url("https://user:pw@host.test:8443/v1?key=abc") == "https://host.test:8443/v1"
