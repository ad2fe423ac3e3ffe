import asyncio
import threading
import time

from selectools import Agent, AgentConfig, AgentObserver, ProviderError
from selectools.testing import ScriptedProvider


class BatchRecorder(AgentObserver):
    def __init__(self):
        self.events = []

    def on_batch_start(self, batch_id, prompts_count):
        self.events.append(("start", prompts_count))

    def on_batch_end(self, batch_id, results_count, errors_count, total_duration_ms):
        self.events.append(("end", results_count, errors_count))


def _provider():
    active = 0
    peak = 0
    lock = threading.Lock()

    def respond(request):
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        time.sleep(0.05)
        with lock:
            active -= 1
        prompt = request.messages[-1].content
        if prompt == "b":
            return ProviderError("bad item", retryable=False)
        return f"answer to {prompt}"

    provider = ScriptedProvider(respond)
    return provider, lambda: peak


def test_batch_keeps_order_isolates_errors_and_limits_concurrency():
    provider, peak = _provider()
    recorder = BatchRecorder()
    progress = []
    agent = Agent(provider=provider, config=AgentConfig(observers=[recorder]))
    results = agent.batch(
        ["a", "b", "c", "d"],
        max_concurrency=2,
        on_progress=lambda done, total: progress.append((done, total)),
    )
    assert [r.content for r in results] == [
        "answer to a",
        "Provider error: bad item",
        "answer to c",
        "answer to d",
    ]
    assert results[1].error is not None
    assert peak() <= 2
    assert sorted(progress) == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert recorder.events == [("start", 4), ("end", 4, 1)]


def test_abatch():
    provider, _ = _provider()
    results = asyncio.run(Agent(provider=provider).abatch(["a", "c", "d"], max_concurrency=2))
    assert [r.content for r in results] == ["answer to a", "answer to c", "answer to d"]


def test_batch_rejects_bad_concurrency():
    import pytest

    with pytest.raises(ValueError, match="max_concurrency"):
        Agent().batch(["a"], max_concurrency=0)


def test_abatch_keeps_order_bounds_concurrency_and_holds_few_tasks():
    from selectools.testing import reply

    def respond(request):
        prompt = request.messages[-1].content
        if prompt == "p3":
            raise RuntimeError("boom")
        # early prompts are the slow ones, so they finish after later ones
        return reply(f"answer to {prompt}", latency=0.06 if prompt in ("p0", "p1") else 0.01)

    tasks_seen = []

    def on_progress(done, total):
        tasks_seen.append(len(asyncio.all_tasks()))

    agent = Agent(provider=ScriptedProvider(respond))
    prompts = [f"p{i}" for i in range(40)]
    began = time.monotonic()
    results = asyncio.run(
        agent.abatch(prompts, max_concurrency=4, on_progress=on_progress, progress=False)
    )
    elapsed = time.monotonic() - began
    assert [r.content for i, r in enumerate(results) if i != 3] == [
        f"answer to p{i}" for i in range(40) if i != 3
    ]
    assert results[3].error is not None and "boom" in results[3].content
    # 0.49 s of model waits (2 x 60 ms + 37 x 10 ms) shared by at most 4 at once; unbounded,
    # the whole batch would take 60 ms
    assert elapsed >= (2 * 0.06 + 37 * 0.01) / 4 * 0.95
    assert len(tasks_seen) == 40
    assert max(tasks_seen) <= 4 + 1  # the workers and the main task, not one per prompt
