"""Response caching: keys, the in-memory LRU/TTL cache, Redis, and the loop's use of them."""

import asyncio
import pickle
import threading

import pytest

from selectools import (
    Agent,
    AgentConfig,
    CacheKeyBuilder,
    CacheStats,
    InMemoryCache,
    Message,
    Role,
    SimpleStepObserver,
    UsageStats,
    tool,
)
from selectools.cache import Cache
from selectools.testing import ScriptedProvider, reply, tool_call


@tool()
def search(query: str) -> str:
    """Search for information."""
    return f"Results for: {query}"


@tool()
def fetch(url: str) -> str:
    """Fetch a page."""
    return url


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def _key(**overrides):
    args = {
        "model": "gpt-4o",
        "system_prompt": "You are helpful.",
        "messages": [Message(role=Role.USER, content="Hello")],
        "tools": [search, fetch],
        "temperature": 0.0,
    }
    args.update(overrides)
    return CacheKeyBuilder.build(**args)


# -- keys -------------------------------------------------------------------
def test_key_is_stable_and_shaped():
    key = _key()
    assert key == _key()
    assert key.startswith("selectools:")
    digest = key[len("selectools:") :]
    assert len(digest) == 64 and int(digest, 16) >= 0
    # pinned: a key that changes between releases turns every shared cache cold
    # (without tools, so the pin does not depend on how tool schemas are rendered)
    assert (
        _key(tools=None)
        == "selectools:9960ae1239cf620a64230411c1e9c18eae52de8b26279f1d832633f3f2427835"
    )


@pytest.mark.parametrize(
    "change",
    [
        {"model": "gpt-4o-mini"},
        {"system_prompt": "You are terse."},
        {"messages": [Message(role=Role.USER, content="Hello!")]},
        {"messages": [Message(role=Role.ASSISTANT, content="Hello")]},
        {"tools": [fetch, search]},
        {"tools": [search]},
        {"temperature": 0.7},
        {"messages": [Message(role=Role.USER, content="Hello", image_base64="AAAA")]},
    ],
)
def test_key_changes_with_each_documented_input(change):
    assert _key(**change) != _key()


def test_key_ignores_random_tool_call_ids():
    def history(call_id):
        return [
            Message(role=Role.USER, content="go"),
            Message(role=Role.ASSISTANT, tool_calls=[tool_call("search", query="x")]),
            Message(role=Role.TOOL, content="r", tool_name="search", tool_call_id=call_id),
        ]

    first, second = history("call_a"), history("call_b")
    second[1].tool_calls[0].id = "other"
    assert _key(messages=first) == _key(messages=second)
    changed = history("call_a")
    changed[1].tool_calls[0].parameters["query"] = "y"
    assert _key(messages=changed) != _key(messages=first)


# -- InMemoryCache ----------------------------------------------------------
def test_hits_misses_and_stats_repr():
    cache = InMemoryCache(max_size=10, default_ttl=None)
    assert isinstance(cache, Cache)
    assert cache.get("a") is None
    cache.set("a", ("m", "u"))
    assert cache.get("a") == ("m", "u")
    stats = cache.stats
    assert (stats.hits, stats.misses, stats.evictions) == (1, 1, 0)
    assert stats.hit_rate == 0.5 and stats.total_requests == 2
    assert repr(stats) == "CacheStats(hits=1, misses=1, evictions=0, hit_rate=50.00%)"
    assert CacheStats().hit_rate == 0.0
    assert cache.delete("a") is True and cache.delete("a") is False


def test_lru_eviction_order():
    cache = InMemoryCache(max_size=2, default_ttl=None)
    cache.set("a", (1, 1))
    cache.set("b", (2, 2))
    assert cache.get("a") == (1, 1)  # a is now the most recent
    cache.set("c", (3, 3))  # evicts b, the least recently used
    assert cache.get("b") is None
    assert cache.get("a") == (1, 1) and cache.get("c") == (3, 3)
    assert cache.stats.evictions == 1 and len(cache) == 2


def test_ttl_on_a_fake_monotonic_clock():
    clock = FakeClock()
    cache = InMemoryCache(max_size=10, default_ttl=300, clock=clock)
    cache.set("default", (1, 1))
    cache.set("short", (2, 2), ttl=1)
    clock.now += 1.0
    assert cache.get("short") is None  # expired exactly at its ttl
    assert cache.get("default") == (1, 1)
    clock.now += 299.0
    assert cache.get("default") is None
    assert len(cache) == 0


def test_clear_keeps_stats_and_validation():
    cache = InMemoryCache(max_size=3)
    cache.set("a", (1, 1))
    cache.get("a")
    cache.clear()
    assert len(cache) == 0 and cache.stats.hits == 1
    for bad in ({"max_size": 0}, {"max_size": 1.5}, {"default_ttl": 0}, {"default_ttl": -5}):
        with pytest.raises(ValueError):
            InMemoryCache(**bad)
    with pytest.raises(ValueError, match="ttl"):
        cache.set("a", (1, 1), ttl=0)


def test_thread_safety_under_contention():
    cache = InMemoryCache(max_size=50, default_ttl=None)

    def worker(offset):
        for i in range(2000):
            key = f"k{(i + offset) % 80}"
            if cache.get(key) is None:
                cache.set(key, (i, i))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stats = cache.stats
    assert stats.hits + stats.misses == 6 * 2000
    assert len(cache) <= 50


# -- the agent loop ---------------------------------------------------------
class Recorder:
    def __init__(self):
        self.events = []

    def __call__(self, event):
        self.events.append(event)

    def names(self):
        return [e.name for e in self.events]


def _usage():
    return UsageStats(
        prompt_tokens=30, completion_tokens=12, cost_usd=0.002, model="m", provider="p"
    )


def test_hit_skips_the_provider_and_replays_usage():
    cache = InMemoryCache()
    recorder = Recorder()
    provider = ScriptedProvider([reply("Python is a language.", usage=_usage())])
    agent = Agent(
        tools=[search],
        provider=provider,
        config=AgentConfig(cache=cache, observers=[SimpleStepObserver(recorder)]),
    )
    first = agent.run([Message(role=Role.USER, content="What is Python?")])
    agent.reset()
    recorder.events.clear()
    second = agent.run([Message(role=Role.USER, content="What is Python?")])
    assert provider.calls == 1
    assert second.content == first.content == "Python is a language."
    assert (cache.stats.hits, cache.stats.misses) == (1, 1)
    # usage of the cached call counts again, in the run and in the agent
    assert second.usage.total_tokens == 42 and second.usage.total_cost_usd == pytest.approx(0.002)
    assert agent.total_tokens == 42
    names = recorder.names()
    assert "on_cache_hit" in names and "on_usage" in names and "on_llm_start" not in names
    hit = next(e for e in recorder.events if e.name == "on_cache_hit")
    assert hit["model"] == "m" and hit["response"].text == "Python is a language."
    steps = second.trace.filter(type="cache_hit")
    assert len(steps) == 1 and steps[0].prompt_tokens == 30 and steps[0].completion_tokens == 12
    assert not second.trace.filter(type="llm_call")


def test_tool_turns_are_cached_per_request_and_entries_are_isolated():
    cache = InMemoryCache()
    provider = ScriptedProvider([tool_call("search", query="py"), "answer", "unused"])
    agent = Agent(tools=[search], provider=provider, config=AgentConfig(cache=cache))
    first = agent.run("find py")
    second = agent.run("find py")  # both model turns come from the cache
    assert provider.calls == 2
    assert second.content == "answer" and second.tool_calls[0].parameters == {"query": "py"}
    # each run got its own copy of the cached tool call (ids are per run)
    assert first.tool_calls[0] is not second.tool_calls[0]
    assert cache.stats.hits == 2


def test_streaming_never_reads_or_writes_the_cache():
    cache = InMemoryCache()
    provider = ScriptedProvider(default="streamed")
    agent = Agent(provider=provider, config=AgentConfig(cache=cache))
    list(agent.stream("q"))

    async def consume():
        return [i async for i in agent.astream("q")]

    asyncio.run(consume())
    agent.run("q", stream_handler=lambda text: None)
    assert provider.calls == 3
    assert cache.stats.total_requests == 0 and len(cache) == 0


def test_async_runs_use_the_cache():
    cache = InMemoryCache()
    provider = ScriptedProvider(default="a")
    agent = Agent(provider=provider, config=AgentConfig(cache=cache))

    async def twice():
        await agent.arun("q")
        return await agent.arun("q")

    result = asyncio.run(twice())
    assert provider.calls == 1 and result.content == "a"


class BrokenCache:
    """A backend whose server is down: every call raises."""

    def __init__(self):
        self.calls = 0

    def get(self, key):
        self.calls += 1
        raise ConnectionError("cache server unreachable")

    def set(self, key, value, ttl=None):
        self.calls += 1
        raise ConnectionError("cache server unreachable")

    def delete(self, key):
        return False

    def clear(self):
        pass

    @property
    def stats(self):
        return CacheStats()


def test_a_failing_cache_never_breaks_a_run():
    cache = BrokenCache()
    recorder = Recorder()
    agent = Agent(
        provider=ScriptedProvider(default="fine"),
        config=AgentConfig(cache=cache, observers=[SimpleStepObserver(recorder)]),
    )
    for result in (agent.run("q"), asyncio.run(agent.arun("q"))):
        assert result.content == "fine" and result.error is None
        errors = result.trace.filter(type="error")
        assert [e.summary.split(":")[0] for e in errors] == ["cache get failed", "cache set failed"]
    assert cache.calls == 4
    phases = [e["context"]["phase"] for e in recorder.events if e.name == "on_error"]
    assert phases == ["cache_get", "cache_set", "cache_get", "cache_set"]


def test_cache_must_look_like_a_cache():
    with pytest.raises(TypeError, match="cache must be"):
        AgentConfig(cache={"not": "a cache"})


# -- Redis --------------------------------------------------------------------
@pytest.fixture
def redis_url(redis_server):
    import redis

    client = redis.Redis.from_url(redis_server)
    client.flushdb()
    yield redis_server
    client.flushdb()


@pytest.mark.redis
def test_redis_cache_roundtrip_ttl_and_prefix(redis_url):
    import time

    import redis

    from selectools.cache_redis import RedisCache

    raw = redis.Redis.from_url(redis_url)
    raw.set("unrelated", b"keep me")
    cache = RedisCache(url=redis_url, prefix="t1:", default_ttl=300)
    other = RedisCache(url=redis_url, prefix="t2:", default_ttl=None)
    value = (Message(role=Role.ASSISTANT, content="hi"), _usage())
    assert cache.get("k") is None
    cache.set("k", value)
    other.set("k", value)
    loaded = cache.get("k")
    assert loaded[0].text == "hi" and loaded[1] == value[1]
    assert pickle.loads(raw.get("t1:k"))[0].text == "hi"
    assert 0 < raw.ttl("t1:k") <= 300 and raw.ttl("t2:k") == -1
    cache.set("short", value, ttl=0.2)
    time.sleep(0.35)
    assert cache.get("short") is None  # expired on the server
    stats = cache.stats
    assert (stats.hits, stats.misses) == (1, 2)
    assert cache.delete("k") is True and cache.delete("k") is False
    cache.set("k2", value)
    cache.clear()
    assert cache.get("k2") is None
    assert other.get("k") is not None and raw.get("unrelated") == b"keep me"


@pytest.mark.redis
def test_redis_cache_is_shared_between_agents(redis_url):
    from selectools.cache_redis import RedisCache

    first = ScriptedProvider(default="from the model")
    second = ScriptedProvider(default="should not be called")
    Agent(provider=first, config=AgentConfig(cache=RedisCache(url=redis_url))).run("q")
    result = asyncio.run(
        Agent(provider=second, config=AgentConfig(cache=RedisCache(url=redis_url))).arun("q")
    )
    assert result.content == "from the model" and second.calls == 0
    assert result.trace.filter(type="cache_hit")
