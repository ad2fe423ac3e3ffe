"""Pipeline behaviour through the public API: composition, tracing, retry/skip, parallel, branch,
caching, type-contract warnings, async and streaming, agents as steps, the graph-node bridge."""

from __future__ import annotations

import asyncio
import warnings
from dataclasses import dataclass, field
from html import unescape
from typing import Any

import pytest

from selectools import (
    Agent,
    AgentConfig,
    Message,
    Pipeline,
    Role,
    Step,
    StepResult,
    branch,
    cache_step,
    parallel,
    retry,
    step,
)
from selectools.exceptions import SelectoolsError
from selectools.pipeline import PipelineError, PipelineTypeWarning
from selectools.testing import ScriptedProvider


@step
def clean(text: str) -> str:
    return text.strip().lower()


@step
def shout(text: str) -> str:
    return text.upper() + "!"


def mismatch_warnings(build: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build()
    return [str(w.message) for w in caught if issubclass(w.category, PipelineTypeWarning)]


# -- composition -----------------------------------------------------------------------------


def test_step_stays_a_plain_function_and_pipe_runs_in_order() -> None:
    assert clean("  Hello World  ") == "hello world"
    pipeline = clean | shout
    assert isinstance(pipeline, Pipeline)
    result = pipeline.run("  Hi There ")
    assert isinstance(result, StepResult)
    assert result.output == "HI THERE!"
    assert result.steps_run == 2
    assert [e["step"] for e in result.trace] == ["clean", "shout"]
    assert all(e["status"] == "ok" and e["duration_ms"] >= 0 for e in result.trace)


def test_plain_callables_are_wrapped_and_pipelines_flatten() -> None:
    assert (clean | str.upper).run("  hello  ").output == "HELLO"
    assert (str.strip | shout).run("  a ").output == "A!"  # a plain callable on the left
    pre = clean | (lambda s: s + "?")
    post = shout | str.strip
    full = pre | shout | post
    assert [s.name for s in full.steps] == ["clean", "<lambda>", "shout", "shout", "strip"]
    assert full.run(" Ok ").output == "OK?!!"
    same = Pipeline(steps=[pre, shout, post], name="full")
    assert same.name == "full" and same.run(" Ok ").output == "OK?!!"
    assert Pipeline().run("x").output == "x"  # no steps: the input passes through


def test_steps_property_is_a_copy_and_pipeline_is_callable() -> None:
    pipeline = clean | shout
    pipeline.steps.clear()
    assert len(pipeline.steps) == 2
    assert pipeline(" a ") == "A!"
    assert repr(pipeline) == "Pipeline(clean | shout)"


def test_keyword_arguments_reach_the_steps_that_take_them() -> None:
    @step
    def prefix(text: str, *, tag: str = "-") -> str:
        return f"{tag}{text}"

    @step
    def anything(text: str, **extra: Any) -> str:
        return text + "".join(sorted(extra))

    assert (clean | prefix | anything).run(" A ", tag="#").output == "#atag"


def test_bad_steps_and_options_raise_clear_errors() -> None:
    with pytest.raises(PipelineError, match="cannot use 42"):
        clean | 42
    with pytest.raises(PipelineError, match="on_error must be 'raise' or 'skip'"):
        step(on_error="ignore")(str.strip)
    with pytest.raises(PipelineError, match="retry must be a non-negative int"):
        Step(str.strip, retry=-1)
    assert issubclass(PipelineError, SelectoolsError)


# -- error handling, retries and the trace ----------------------------------------------------


def test_on_error_raise_stops_the_pipeline() -> None:
    calls = []

    @step
    def boom(x: Any) -> Any:
        raise ValueError("failed")

    with pytest.raises(ValueError, match="failed"):
        (boom | (lambda x: calls.append(x))).run("input")
    assert calls == []


def test_on_error_skip_passes_the_previous_output_on() -> None:
    @step(on_error="skip")
    def optional(x: Any) -> Any:
        raise ValueError("not critical")

    result = (optional | shout).run("input")
    assert result.output == "INPUT!"
    assert result.steps_run == 1
    skipped = result.trace[0]
    assert skipped["status"] == "skipped" and skipped["error"] == "ValueError: not critical"


def test_retry_retries_then_succeeds_and_records_each_attempt() -> None:
    attempts = []

    @step(retry=3)
    def flaky(x: str) -> str:
        attempts.append(x)
        if len(attempts) < 3:
            raise ConnectionError(f"try {len(attempts)}")
        return x + " done"

    result = (clean | flaky).run(" Job ")
    assert result.output == "job done"
    assert attempts == ["job", "job", "job"]
    flaky_entries = [e for e in result.trace if e["step"] == "flaky"]
    assert [(e["status"], e.get("retry")) for e in flaky_entries] == [
        ("retrying", None),
        ("retrying", 1),
        ("ok", 2),
    ]
    assert flaky_entries[1]["error"] == "ConnectionError: try 2"
    assert result.steps_run == 2


def test_retry_then_skip_after_every_attempt_fails() -> None:
    attempts = []

    @step(retry=2, on_error="skip")
    def resilient(x: str) -> str:
        attempts.append(x)
        raise TimeoutError("down")

    result = (resilient | shout).run("a")
    assert len(attempts) == 3 and result.output == "A!"
    assert [e["status"] for e in result.trace] == ["retrying", "retrying", "skipped", "ok"]


def test_retry_helper_copies_the_step() -> None:
    attempts = []

    @step
    def flaky(x: str) -> str:
        attempts.append(x)
        if len(attempts) < 4:
            raise RuntimeError("no")
        return x

    wrapped = retry(flaky, attempts=3)
    assert wrapped.retry == 3 and flaky.retry == 0 and wrapped.name == "flaky"
    assert (clean | wrapped).run("X").output == "x"
    attempts.clear()
    with pytest.raises(RuntimeError):
        (clean | flaky).run("X")  # the original still fails on the first error
    assert len(attempts) == 1
    assert retry(str.strip).retry == 3
    with pytest.raises(PipelineError):
        retry(flaky, attempts=-2)


# -- parallel ----------------------------------------------------------------------------------


def test_parallel_runs_every_step_on_the_same_input() -> None:
    research = parallel(clean, shout, str.title)
    assert research(" Quantum ") == {
        "clean": "quantum",
        "shout": " QUANTUM !",
        "title": " Quantum ",
    }

    @step
    def merge(results: dict) -> str:
        return "|".join(results.values())

    result = (research | merge).run("ab")
    assert result.output == "ab|AB!|Ab"
    group = result.trace[0]
    assert group["step"] == "parallel" and group["status"] == "ok"
    assert [e["step"] for e in group["steps"]] == ["clean", "shout", "title"]


def test_a_failing_parallel_branch_stops_its_siblings_in_arun_as_in_run() -> None:
    # run stops at the first failing branch; arun must not leave the others running behind it
    finished: list[str] = []

    async def fails(x: str) -> str:
        await asyncio.sleep(0.01)
        raise ValueError("branch a failed")

    async def slow(x: str) -> str:
        await asyncio.sleep(0.3)
        finished.append("b")
        return x

    group = parallel(step(fails, name="a"), step(slow, name="b"))

    async def main() -> None:
        with pytest.raises(ValueError, match="branch a failed"):
            await Pipeline([group]).arun("x")
        await asyncio.sleep(0.6)  # long past the slow branch's end, had it kept running

    asyncio.run(main())
    assert finished == []


def test_parallel_rejects_duplicate_names_and_no_steps() -> None:
    with pytest.raises(PipelineError, match="repeated: \\['clean'\\]"):
        parallel(clean, clean)
    with pytest.raises(PipelineError):
        parallel()


def test_parallel_async_steps_run_concurrently_in_arun() -> None:
    # Each step waits for the other to have started: only a concurrent run can finish.
    started = {"a": asyncio.Event(), "b": asyncio.Event()}

    def make(me: str, other: str) -> Step:
        async def fn(x: str) -> str:
            started[me].set()
            await started[other].wait()
            return f"{me}:{x}"

        return step(fn, name=me)

    async def main() -> StepResult:
        return await asyncio.wait_for(
            parallel(make("a", "b"), make("b", "a")).__or__(str).arun("q"), 5
        )

    result = asyncio.run(main())
    assert result.output == str({"a": "a:q", "b": "b:q"})


def test_parallel_with_a_skipped_branch_leaves_it_out() -> None:
    @step(on_error="skip")
    def broken(x: str) -> str:
        raise KeyError("gone")

    result = (parallel(clean, broken) | (lambda d: sorted(d))).run("X")
    assert result.output == ["clean"]
    assert [e["status"] for e in result.trace[0]["steps"]] == ["ok", "skipped"]


# -- branch ------------------------------------------------------------------------------------


def test_branch_routes_on_the_input_string_and_dict_key() -> None:
    route = branch(technical=lambda x: f"tech:{x}", general=lambda x: f"gen:{x}")
    assert route("technical") == "tech:technical"
    assert route({"branch": "general", "q": 1}) == "gen:{'branch': 'general', 'q': 1}"
    result = (str.strip | route).run(" general ")
    assert result.output == "gen:general"
    assert result.trace[1]["branch"] == "general"
    assert result.trace[1]["steps"][0]["step"] == "<lambda>"


def test_branch_with_router_and_default() -> None:
    @step
    def code_review(x: dict) -> str:
        return "reviewed " + x["text"]

    @step
    def passthrough(x: dict) -> str:
        return x["text"]

    route = branch(router=lambda x: x["category"], technical=code_review, default=passthrough)
    assert route({"category": "technical", "text": "t"}) == "reviewed t"
    assert route({"category": "poetry", "text": "p"}) == "p"
    traced = Pipeline(steps=[route]).run({"category": "technical", "text": "t"})
    assert traced.trace[0]["branch"] == "technical"
    assert (
        Pipeline(steps=[route]).run({"category": "x", "text": "t"}).trace[0]["branch"] == "default"
    )
    assert traced.trace[0]["steps"][0]["step"] == "code_review"


def test_branch_without_match_or_usable_key_raises() -> None:
    route = branch(a=str.upper)
    with pytest.raises(KeyError, match="'b' matches no branch \\(a\\)"):
        route("b")
    with pytest.raises(PipelineError, match="needs a str or a dict"):
        route(3)
    with pytest.raises(PipelineError):
        branch()


# -- cache_step --------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_cache_step_reuses_outputs_until_ttl_and_evicts_lru() -> None:
    calls: list[str] = []

    @step
    def embed(text: str) -> list:
        calls.append(text)
        return [len(text)]

    clock = Clock()
    cached = cache_step(embed, ttl=60, max_size=2, clock=clock)
    pipeline = clean | cached
    first = pipeline.run("Abc")
    second = pipeline.run(" ABC ")
    assert first.output == second.output == [3]
    assert calls == ["abc"]
    assert "cached" not in first.trace[1] and second.trace[1]["cached"] is True

    cached("d")
    cached("e")  # max_size 2: "abc" (least recently used) is evicted
    assert calls == ["abc", "d", "e"]
    cached("abc")
    assert calls == ["abc", "d", "e", "abc"]

    clock.now += 61  # every entry expired
    cached("e")
    assert calls[-1] == "e" and len(calls) == 5
    cached("e")
    assert len(calls) == 5


def test_cache_is_per_step_instance_and_keyed_by_type() -> None:
    calls: list[Any] = []

    def ident(x: Any) -> Any:
        calls.append(x)
        return x

    one, two = cache_step(ident), cache_step(ident)
    one(1)
    one("1")  # str(1) == "1" but a different input
    two(1)
    one(1)
    assert calls == [1, "1", 1]
    with pytest.raises(PipelineError):
        cache_step(ident, ttl=0)


# -- type contracts ----------------------------------------------------------------------------


def test_type_mismatch_warns_once_per_junction_and_still_runs() -> None:
    @step
    def to_int(text: str) -> int:
        return int(text)

    @step
    def join_words(words: list) -> str:
        return " ".join(words)

    @step
    def count(items: list) -> int:
        return len(items)

    assert mismatch_warnings(lambda: to_int | join_words) == [
        "Pipeline type mismatch: 'to_int' outputs int but 'join_words' expects list"
    ]
    # a longer chain: each junction is checked once, when it is made
    assert mismatch_warnings(lambda: to_int | join_words | count | join_words) == [
        "Pipeline type mismatch: 'to_int' outputs int but 'join_words' expects list",
        "Pipeline type mismatch: 'join_words' outputs str but 'count' expects list",
        "Pipeline type mismatch: 'count' outputs int but 'join_words' expects list",
    ]
    assert len(mismatch_warnings(lambda: Pipeline(steps=[to_int, join_words, count]))) == 2

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError):  # advisory only: the pipeline is built and runs
            (to_int | join_words).run("3")


def test_compatible_generic_untyped_and_numeric_types_do_not_warn() -> None:
    @step
    def parse(raw: str) -> dict[str, Any]:
        return {"items": raw.split()}

    @step
    def extract(data: dict) -> list[str]:
        return data["items"]

    @step
    def count(items: list) -> int:
        return len(items)

    @step
    def half(x: float) -> float:
        return x / 2

    @step
    def untyped(x):  # type: ignore[no-untyped-def]
        return x

    assert mismatch_warnings(lambda: parse | extract | count | half | untyped | str.upper) == []
    assert (parse | extract | count | half).run("a b c d").output == 2.0


def test_explicit_contracts_override_inference() -> None:
    custom = Step(lambda x: {"v": x}, name="custom", input_type=str, output_type=dict)
    assert (custom.input_type, custom.output_type) == (str, dict)
    assert mismatch_warnings(lambda: custom | Step(len, name="size", input_type=list)) == [
        "Pipeline type mismatch: 'custom' outputs dict but 'size' expects list"
    ]


# -- async and streaming -----------------------------------------------------------------------


@step
async def fetch(x: str) -> str:
    await asyncio.sleep(0)
    return f"<{x}>"


def test_async_steps_in_run_and_arun() -> None:
    pipeline = clean | fetch | shout
    assert pipeline.run(" Page ").output == "<PAGE>!"
    assert asyncio.run(pipeline.arun(" Page ")).output == "<PAGE>!"

    async def inside_a_loop() -> Any:  # a notebook cell: sync run() under a running loop
        return pipeline.run(" Page ").output

    assert asyncio.run(inside_a_loop()) == "<PAGE>!"


def test_astream_yields_the_last_steps_chunks() -> None:
    @step
    def sentences(text: str):  # type: ignore[no-untyped-def]
        for part in text.split(". "):
            yield part + ". "

    @step
    async def words(text: str):  # type: ignore[no-untyped-def]
        for part in text.split():
            yield part

    async def collect(pipeline: Pipeline, value: str) -> list[Any]:
        return [chunk async for chunk in pipeline.astream(value)]

    assert asyncio.run(collect(clean | sentences, "A. B")) == ["a. ", "b. "]
    assert asyncio.run(collect(clean | words, "One Two")) == ["one", "two"]
    assert asyncio.run(collect(clean | fetch, " X")) == ["<x>"]
    # outside streaming a generator step's chunks are joined
    assert (clean | sentences).run("A. B").output == "a. b. "


def test_async_errors_retry_and_skip_like_sync() -> None:
    attempts = []

    @step(retry=1, on_error="skip")
    async def down(x: str) -> str:
        attempts.append(x)
        raise OSError("503")

    result = asyncio.run((down | shout).arun("a"))
    assert result.output == "A!" and len(attempts) == 2
    assert [e["status"] for e in result.trace] == ["retrying", "skipped", "ok"]


# -- agents as steps ----------------------------------------------------------------------------


def agent_replying(fmt: str, name: str = "agent") -> Agent:
    provider = ScriptedProvider(lambda request: fmt.format(request.messages[-1].content))
    return Agent(provider=provider, config=AgentConfig(name=name))


def test_agents_are_steps_in_a_pipeline() -> None:
    summarizer = agent_replying("summary of {}", name="summarizer")
    translator = agent_replying("ES({})", name="translator")
    pipeline = clean | summarizer | translator | shout
    result = pipeline.run(" Long ARTICLE ")
    assert result.output == "ES(SUMMARY OF LONG ARTICLE)!"
    assert [e["step"] for e in result.trace] == ["clean", "summarizer", "translator", "shout"]
    assert result.trace[1]["agent_result"].content == "summary of long article"
    assert asyncio.run(pipeline.arun(" x ")).output == "ES(SUMMARY OF X)!"

    @step
    def summarize(text: str) -> str:  # the documented form: an agent called inside a step
        return summarizer.run(f"Summarize: {text}").content

    assert (summarize | translator).run("doc").output == "ES(summary of Summarize: doc)"


def test_an_agent_last_step_streams_its_text() -> None:
    writer = agent_replying("hello {}")

    async def collect() -> list[Any]:
        return [chunk async for chunk in (clean | writer).astream(" World ")]

    assert "".join(asyncio.run(collect())) == "hello world"


# -- pipeline as a graph node --------------------------------------------------------------------


@dataclass
class StandInState:
    """The GraphState attributes the bridge relies on: ``data`` (dict) and ``messages`` (list)."""

    messages: list[Message] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


def test_pipeline_called_with_graph_state_reads_and_writes_last_output() -> None:
    enrich = step(lambda t: f"[enriched] {t}", name="enrich")
    preprocessing = clean | enrich
    state = StandInState(messages=[Message(role=Role.USER, content="  Raw User Input  ")])
    assert preprocessing(state) is state
    assert state.data == {"__last_output__": "[enriched] raw user input"}
    again = preprocessing(state)  # the handoff key, once present, wins over the messages
    assert again.data["__last_output__"] == "[enriched] [enriched] raw user input"
    with pytest.raises(PipelineError, match=r"no '__last_output__' in state\.data and no messages"):
        preprocessing(StandInState())


def test_pipeline_inside_parallel_and_branch_nests_its_trace() -> None:
    inner = Pipeline(steps=[clean, shout], name="tidy")
    result = (parallel(inner, str.strip) | (lambda d: d["tidy"])).run(" Mix ")
    assert result.output == "MIX!"
    nested = result.trace[0]["steps"][0]
    assert nested["step"] == "tidy" and [e["step"] for e in nested["steps"]] == ["clean", "shout"]


# -- notebook displays ----------------------------------------------------------------------------


def test_html_views_show_the_chain_and_the_trace() -> None:
    pipeline = clean | parallel(shout, str.title) | retry(str, attempts=2) | cache_step(str.strip)
    html = pipeline._repr_html_()
    assert html.count("&rarr;") == 3
    for text in ("clean", "parallel", "title", "retry 2", "cached", "str → str"):
        assert text in unescape(html)

    @step(on_error="skip")
    def broken(x: Any) -> Any:
        raise ValueError("<bad>")

    shown = (clean | broken).run("A")._repr_html_()
    assert "skipped" in shown and "ValueError: &lt;bad&gt;" in shown and "<bad>" not in shown


# -- one program, two drivers ----------------------------------------------------------------


def _shape(trace: list[dict[str, Any]]) -> list[Any]:
    """A trace without its timings: what ``run`` and ``arun`` must agree on."""
    return [
        {k: (_shape(v) if k == "steps" else v) for k, v in entry.items() if k != "duration_ms"}
        for entry in trace
    ]


def test_run_and_arun_record_the_same_trace_also_when_a_parallel_group_fails() -> None:
    """Each step is written once: blocking and awaiting give the same output and trace."""

    def build() -> tuple[Pipeline, list[int]]:
        tries: list[int] = []

        @step(name="flaky")
        async def flaky(text: str) -> str:
            tries.append(1)
            if len(tries) == 1:
                raise ValueError("first try fails")
            return text[::-1]

        @step(name="words", on_error="skip")
        def words(text: str) -> int:
            raise RuntimeError("no words today")

        @step(name="agen")
        async def spell(outputs: dict):  # type: ignore[no-untyped-def]
            for char in outputs["flaky"][:3]:
                yield char

        # the failing branch last: blocking, the branches run in order and stop at a failure
        group = retry(parallel(shout, words, flaky), attempts=1)
        routes = branch(lambda out: "long" if len(out["shout"]) > 4 else "short", long=spell)
        return clean | group | routes | cache_step(str.title), tries

    blocking, tries_blocking = build()
    awaiting, tries_awaiting = build()
    ran = blocking.run("  Hello ")
    awaited = asyncio.run(awaiting.arun("  Hello "))
    assert ran.output == awaited.output == "Oll"
    assert ran.steps_run == awaited.steps_run == 4
    assert tries_blocking == tries_awaiting == [1, 1]
    assert _shape(ran.trace) == _shape(awaited.trace)
    retried = ran.trace[1]
    assert retried["status"] == "retrying"
    assert [e["step"] for e in retried["steps"]] == ["shout", "words", "flaky"]
