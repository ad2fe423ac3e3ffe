"""AgentGraph through its public API: routing, merging, subgraphs, policies, limits, events, traces."""

from __future__ import annotations

import asyncio

import pytest

from selectools import Agent, AgentConfig, AgentObserver, CancellationToken
from selectools.orchestration import (
    STATE_KEY_LAST_OUTPUT,
    AgentGraph,
    ContextMode,
    ErrorPolicy,
    GraphEventType,
    GraphExecutionError,
    GraphState,
    MergePolicy,
    Scatter,
    goto,
    update,
)
from selectools.providers.stubs import LocalProvider
from selectools.testing import ScriptedProvider
from selectools.trace import StepType


def agent(*replies: str) -> Agent:
    return Agent(provider=ScriptedProvider(list(replies)), config=AgentConfig(model="m"))


def test_linear_agents_hand_on_the_last_output_and_aggregate_results_usage_and_trace():
    seen = []

    def spy(state: GraphState) -> None:
        seen.append(state.last_output)

    graph = AgentGraph.chain(agent("plan"), spy, agent("draft"), names=["planner", "spy", "writer"])
    result = graph.run("Write a post")
    assert result.content == "draft"
    assert seen == ["plan"]
    assert list(result.node_results) == ["planner", "spy", "writer"]
    assert result.node_results["planner"][0].content == "plan"
    assert result.steps == 3 and result.stop_reason == "end" and not result.interrupted
    assert result.total_usage.total_tokens == sum(
        r.usage.total_tokens for rs in result.node_results.values() for r in rs
    )
    assert result.total_usage.total_tokens > 0
    # one trace: node spans plus the agents' LLM spans tagged with their node
    spans = result.trace.filter(type=StepType.GRAPH_NODE_END)
    assert [s.node_name for s in spans] == ["planner", "spy", "writer"]
    llm = result.trace.filter(type=StepType.LLM_CALL)
    assert [s.node_name for s in llm] == ["planner", "writer"]
    for span, call in zip([spans[0], spans[2]], llm, strict=True):
        assert span.started_at <= call.started_at <= call.ended_at <= span.ended_at
    assert [m.role.value for m in result.state.messages] == ["user", "assistant", "assistant"]


def test_local_provider_quickstart_graph_echoes_and_rejects_scripted_responses():
    graph = AgentGraph()
    graph.add_node("planner", Agent(provider=LocalProvider()))
    graph.add_node("writer", Agent(provider=LocalProvider()))
    graph.add_edge("planner", "writer")
    graph.add_edge("writer", AgentGraph.END)
    result = graph.run("Write a blog post about Python")
    assert result.content == "Write a blog post about Python"
    assert list(result.node_results) == ["planner", "writer"]
    with pytest.raises(TypeError, match="ScriptedProvider"):
        LocalProvider(responses=["x"])


def test_conditional_routing_with_path_map_goto_and_update():
    def score(state: GraphState) -> GraphState:
        state.data["n"] = state.data.get("n", 0) + 1
        return state

    def route(state: GraphState) -> str:
        return "done" if state.data["n"] >= 3 else "again"

    graph = AgentGraph()
    graph.add_node("score", score)
    graph.add_conditional_edge("score", route, path_map={"again": "score", "done": AgentGraph.END})
    result = graph.run("x")
    assert result.state.data["n"] == 3 and result.steps == 3
    assert graph.validate() == []

    g2 = AgentGraph()
    g2.add_node("a", lambda s: "a")
    g2.add_node("b", lambda s: s.last_output + "b")
    g2.add_node("c", lambda s: s.last_output + "c")
    g2.add_edge("a", "b")
    g2.add_edge("b", AgentGraph.END)
    g2.add_conditional_edge("a", lambda s: goto("c") if s.last_output == "a" else goto("b"))
    assert g2.run("x").content == "ac"
    g3 = AgentGraph()
    g3.add_node("a", lambda s: "a")
    g3.add_node("b", lambda s: f"{s.last_output}{s.data['k']}")
    g3.add_edge("a", "b")
    g3.add_conditional_edge("a", lambda s: update({"k": 7}))
    assert g3.run("x").content == "a7"
    bad = AgentGraph()
    bad.add_node("a", lambda s: None)
    bad.add_conditional_edge("a", lambda s: "x", path_map={"x": "nowhere"})
    assert bad.validate() == ["path_map of 'a': 'x' -> unknown node 'nowhere'"]
    with pytest.raises(GraphExecutionError, match="unknown node 'nowhere'"):
        bad.run("x")


def _branch(key: str, value: object):
    def node(state: GraphState) -> GraphState:
        state.data[key] = value
        state.data.setdefault("items", [])
        state.data["items"] = [*state.data["items"], value]
        state.last_output = str(value)
        return state

    return node


@pytest.mark.parametrize(
    ("policy", "shared", "items"),
    [
        (MergePolicy.LAST_WINS, 2, [0, 2]),
        (MergePolicy.FIRST_WINS, 1, [0, 1]),
        (MergePolicy.APPEND, 2, [0, 1, 2]),
    ],
)
def test_parallel_group_merges_by_policy(policy, shared, items):
    graph = AgentGraph()
    graph.add_node("start", lambda s: {"items": [0], "untouched": "keep"})
    graph.add_node("one", _branch("shared", 1))
    graph.add_node("two", _branch("shared", 2))
    graph.add_parallel_nodes("team", ["one", "two"], merge_policy=policy)
    graph.add_edge("start", "team")
    graph.add_edge("team", AgentGraph.END)
    graph.set_entry("start")
    result = graph.run("go")
    assert result.state.data["shared"] == shared
    assert result.state.data["items"] == items
    assert result.state.data["untouched"] == "keep"
    lanes = {s.node_name: s.lane for s in result.trace.filter(type=StepType.GRAPH_NODE_END)}
    assert lanes["one"] == 1 and lanes["two"] == 2


def test_parallel_agents_run_concurrently_and_custom_merge_fn():
    a = Agent(provider=ScriptedProvider(["A"], latency=0.2), config=AgentConfig(model="m"))
    b = Agent(provider=ScriptedProvider(["B"], latency=0.2), config=AgentConfig(model="m"))

    def merge(states: list[GraphState]) -> GraphState:
        combined = GraphState()
        combined.data["all"] = sorted(s.last_output for s in states)
        combined.last_output = "+".join(combined.data["all"])
        return combined

    graph = AgentGraph()
    graph.add_node("a", a)
    graph.add_node("b", b)
    graph.add_parallel_nodes("both", ["a", "b"], merge_fn=merge)
    graph.set_entry("both")
    result = graph.run("q")
    assert result.content == "A+B"
    spans = {s.node_name: s for s in result.trace.filter(type=StepType.GRAPH_NODE_END)}
    # side by side: each branch started before the other ended
    assert (
        spans["a"].started_at < spans["b"].ended_at and spans["b"].started_at < spans["a"].ended_at
    )


def test_scatter_fans_out_with_patches_then_follows_the_targets_edge():
    def research(state: GraphState) -> GraphState:
        state.data.setdefault("found", [])
        state.data["found"] = [*state.data["found"], state.data["topic"]]
        return state

    graph = AgentGraph()
    graph.add_node("plan", lambda s: {"topics": ["AI", "ML", "RL"]})
    graph.add_node("research", research)
    graph.add_node("write", lambda s: ", ".join(s.data["found"]))
    graph.add_conditional_edge(
        "plan", lambda s: [Scatter("research", {"topic": t}) for t in s.data["topics"]]
    )
    graph.add_edge("research", "write")
    result = graph.run("x")
    # LAST_WINS on the list: the last branch's write wins
    assert result.content == "RL"
    assert len(result.trace.filter(type=StepType.GRAPH_NODE_END, node_name="research")) == 3


def test_subgraph_with_input_and_output_maps_and_graph_as_callable():
    inner = AgentGraph(name="research")
    inner.add_node("search", lambda s: {"findings": f"facts about {s.data['query']}"})
    inner.add_node(
        "analyze",
        Agent(provider=ScriptedProvider(default="analysis"), config=AgentConfig(model="m")),
    )
    inner.add_edge("search", "analyze")
    parent = AgentGraph(name="pipeline")
    parent.add_node("planner", lambda s: {"topic": "quantum"})
    parent.add_subgraph(
        "research", inner, input_map={"topic": "query"}, output_map={"findings": "results"}
    )
    parent.add_node("writer", lambda s: f"wrote from {s.data['results']}")
    parent.add_edge("planner", "research")
    parent.add_edge("research", "writer")
    result = parent.run("go")
    assert result.content == "wrote from facts about quantum"
    assert "query" not in result.state.data
    assert result.node_results["research.analyze"][0].content == "analysis"
    assert result.total_usage.total_tokens > 0
    nodes = [s.node_name for s in result.trace.filter(type=StepType.GRAPH_NODE_END)]
    assert nodes == ["planner", "research.search", "research.analyze", "research", "writer"]

    passthrough = AgentGraph()
    passthrough.add_node("inner", inner)
    state = GraphState.from_prompt("x")
    state.data["query"] = "q"
    assert passthrough(state).last_output == "analysis"


def test_loop_detection_and_max_steps_raise_with_partial_result():
    seen = []

    class Watch(AgentObserver):
        def on_loop_detected(self, run_id, node_name, loop_count):
            seen.append((node_name, loop_count))

    graph = AgentGraph(observers=[Watch()])
    graph.add_node("spin", lambda s: None)
    graph.add_edge("spin", "spin")
    with pytest.raises(GraphExecutionError, match="looping") as info:
        graph.run("x")
    assert seen == [("spin", 1)] and info.value.result.loops_detected == 1

    counter = AgentGraph(max_steps=5)
    counter.add_node("inc", lambda s: {"i": s.data.get("i", 0) + 1})
    counter.add_edge("inc", "inc")
    with pytest.raises(GraphExecutionError, match="max_steps=5") as info:
        counter.run("x")
    assert info.value.result.state.data["i"] == 5


def test_stall_detection_counts_steps_without_state_change():
    stalls = []

    class Watch(AgentObserver):
        def on_stall_detected(self, run_id, node_name, stall_count):
            stalls.append(node_name)

    graph = AgentGraph(stall_threshold=2, observers=[Watch()])
    for name in "abcde":
        graph.add_node(name, lambda s: None)
    for x, y in zip("abcd", "bcde", strict=True):
        graph.add_edge(x, y)
    result = graph.run("x")
    assert result.stalls == 2 and stalls == ["c", "e"]


def test_error_policies_abort_skip_retry_and_per_node_override():
    calls = {"n": 0}

    def flaky(state):
        calls["n"] += 1
        if calls["n"] < 3:
            raise ConnectionError("down")
        return "ok"

    def broken(state):
        raise ValueError("bad input")

    retry = AgentGraph(error_policy=ErrorPolicy.RETRY, error_retry_limit=3)
    retry.add_node("flaky", flaky)
    assert retry.run("x").content == "ok" and calls["n"] == 3

    skip = AgentGraph(error_policy=ErrorPolicy.SKIP)
    skip.add_node("broken", broken, next_node="after")
    skip.add_node("after", lambda s: "after")
    result = skip.run("x")
    assert result.content == "after"
    assert result.state.errors == [{"node": "broken", "step": 1, "error": "ValueError: bad input"}]

    override = AgentGraph(error_policy=ErrorPolicy.SKIP)
    override.add_node("critical", broken, error_policy=ErrorPolicy.ABORT)
    with pytest.raises(GraphExecutionError, match=r"node 'critical'.*bad input") as info:
        override.run("x")
    assert isinstance(info.value.cause, ValueError) and info.value.node_name == "critical"


def test_token_budget_stops_at_a_step_boundary_and_cancellation_stops_cleanly():
    graph = AgentGraph(max_total_tokens=1)
    graph.add_node("a", agent("one"), next_node="b")
    graph.add_node("b", agent("two"))
    result = graph.run("x")
    assert result.stop_reason == "budget_exceeded" and list(result.node_results) == ["a"]

    token = CancellationToken()

    def cancel(state):
        token.cancel()
        return "stopped here"

    cg = AgentGraph(cancellation_token=token)
    cg.add_node("a", cancel, next_node="b")
    cg.add_node("b", lambda s: "never")
    result = cg.run("x")
    assert result.stop_reason == "cancelled" and result.content == "stopped here"


def test_a_failing_agent_fails_its_node():
    graph = AgentGraph()
    graph.add_node("a", agent())  # no replies: the provider call fails
    with pytest.raises(GraphExecutionError, match=r"node 'a'.*ran out of replies"):
        graph.run("x")


def test_visits_limit_and_context_modes():
    graph = AgentGraph(enable_loop_detection=False, max_steps=20)
    graph.add_node("again", lambda s: {"i": s.data.get("i", 0) + 1}, max_visits=3)
    graph.add_edge("again", "again")
    with pytest.raises(GraphExecutionError, match="max_visits=3"):
        graph.run("x")

    prompts = []

    def record(request):
        prompts.append([m.text for m in request.messages])
        return "out"

    full = Agent(provider=ScriptedProvider(record), config=AgentConfig(model="m"))
    g = AgentGraph()
    g.add_node("first", agent("first-out"), next_node="full")
    g.add_node("full", full, context_mode=ContextMode.FULL)
    g.run("task")
    assert prompts == [["task", "first-out"]]


def test_async_nodes_arun_and_astream_events_with_run_ids():
    async def fetch(state):
        await asyncio.sleep(0)
        return {"fetched": True, STATE_KEY_LAST_OUTPUT: "fetched"}

    graph = AgentGraph()
    graph.add_node("fetch", fetch, next_node="talk")
    graph.add_node(
        "talk",
        Agent(provider=ScriptedProvider(default="hello world"), config=AgentConfig(model="m")),
    )

    async def go():
        result = await graph.arun("x")
        events = [e async for e in graph.astream("x")]
        return result, events

    result, events = asyncio.run(go())
    assert result.content == "hello world" and result.state.data["fetched"] is True
    kinds = [e.type for e in events]
    assert kinds[0] is GraphEventType.GRAPH_START and kinds[-1] is GraphEventType.GRAPH_END
    assert GraphEventType.NODE_CHUNK in kinds
    chunks = "".join(e.chunk for e in events if e.type is GraphEventType.NODE_CHUNK)
    assert chunks == "hello world"
    starts = [e.node_name for e in events if e.type is GraphEventType.NODE_START]
    assert starts == ["fetch", "talk"]
    assert len({e.run_id for e in events}) == 1
    assert events[-1].result.content == "hello world"
    routes = [(e.node_name, e.next_node) for e in events if e.type is GraphEventType.ROUTING]
    assert routes == [("fetch", "talk"), ("talk", AgentGraph.END)]


def test_observer_graph_events_in_order():
    got = []

    class Monitor(AgentObserver):
        def on_graph_start(self, run_id, graph_name, entry_node, state):
            got.append(("start", graph_name, entry_node))

        def on_node_start(self, run_id, node_name, step):
            got.append(("node", node_name, step))

        def on_graph_routing(self, run_id, from_node, to_node):
            got.append(("route", from_node, to_node))

        def on_graph_end(self, run_id, graph_name, steps, total_duration_ms):
            got.append(("end", graph_name, steps))

    graph = AgentGraph(name="g", observers=[Monitor()])
    graph.add_node("a", lambda s: None, next_node="b")
    graph.add_node("b", lambda s: "x")
    graph.run("x")
    assert got == [
        ("start", "g", "a"),
        ("node", "a", 1),
        ("route", "a", "b"),
        ("node", "b", 2),
        ("route", "b", "__end__"),
        ("end", "g", 2),
    ]


def test_langgraph_start_and_end_spellings_are_accepted():
    graph = AgentGraph()
    graph.add_node("researcher", lambda s: "r")
    graph.add_node("writer", lambda s: s.last_output + "w")
    graph.add_edge("START", "writer")
    graph.add_edge("writer", "END")
    assert graph.entry == "writer" and graph.validate() == []
    assert graph.run("x").content == "w"


def test_mermaid_and_ascii():
    graph = AgentGraph(name="pipeline")
    graph.add_node("planner", agent())
    graph.add_node("writer", agent())
    graph.add_node("reviewer", agent())
    graph.add_edge("planner", "writer")
    graph.add_conditional_edge(
        "writer", lambda s: "pass", path_map={"pass": "reviewer", "fail": AgentGraph.END}
    )
    assert graph.to_mermaid() == (
        "graph TD\n"
        '    planner["planner (Agent)"] --> writer["writer (Agent)"]\n'
        '    writer["writer (Agent)"] -->|"pass"| reviewer["reviewer (Agent)"]\n'
        '    writer["writer (Agent)"] -->|"fail"| __end__["END"]'
    )
    text = graph.visualize("ascii")
    assert text.splitlines()[:5] == [
        "Graph: pipeline",
        "=" * 40,
        "Entry: planner",
        "",
        "-> [node]     planner (Agent)",
    ]
    assert "  writer --[pass]--> reviewer" in text


def test_node_results_lists_every_node_that_ran_function_nodes_included():
    """ORCHESTRATION: ``node_results`` is keyed by node name; QUICKSTART prints its keys as "Nodes executed"."""

    async def fetch(state: GraphState) -> GraphState:
        state.data["fetched"] = True
        return state

    def shout(state: GraphState) -> str:
        return state.last_output.upper()

    def quiet(state: GraphState) -> None:
        state.data["seen"] = True

    graph = AgentGraph()
    graph.add_node("fetch", fetch, next_node="plan")
    graph.add_node("plan", agent("plan"), next_node="shout")
    graph.add_node("shout", shout, next_node="quiet")
    graph.add_node("quiet", quiet, next_node=AgentGraph.END)
    result = graph.run("go")
    assert list(result.node_results) == ["fetch", "plan", "shout", "quiet"]
    shouted = result.node_results["shout"]
    assert [r.content for r in shouted] == ["PLAN"]
    # the page's loop over node results reads usage.total_tokens: zero for a function
    assert shouted[0].usage is not None and shouted[0].usage.total_tokens == 0
    assert result.node_results["quiet"][0].content == "PLAN"
    assert result.total_usage.total_tokens == result.node_results["plan"][0].usage.total_tokens

    # only functions: the case the issue measured (node_results was empty)
    only = AgentGraph.chain(lambda s: "a", lambda s: s.last_output + "b", names=["one", "two"])
    ran = only.run("x")
    assert list(ran.node_results) == ["one", "two"]
    assert ran.node_results["two"][0].content == "ab"
    assert "nodes=['one', 'two']" in repr(ran)

    # a node visited twice has two entries; a parallel group is listed through its children
    loop = AgentGraph()
    loop.add_node("count", lambda s: {"n": s.data.get("n", 0) + 1, "__last_output__": "c"})
    loop.add_conditional_edge("count", lambda s: "count" if s.data["n"] < 2 else "team")
    loop.add_node("left", lambda s: "L")
    loop.add_node("right", lambda s: "R")
    loop.add_parallel_nodes("team", ["left", "right"])
    loop.add_edge("team", AgentGraph.END)
    looped = loop.run("x")
    assert len(looped.node_results["count"]) == 2
    assert sorted(looped.node_results) == ["count", "left", "right"]
    assert [r.content for r in looped.node_results["left"]] == ["L"]


def test_node_results_of_function_nodes_with_arun_and_in_a_subgraph():
    inner = AgentGraph(name="research")
    inner.add_node("search", lambda s: "found")
    outer = AgentGraph()
    outer.add_node("research", inner, next_node="write")
    outer.add_node("write", lambda s: "wrote " + s.last_output)
    result = asyncio.run(outer.arun("x"))
    assert list(result.node_results) == ["research.search", "write"]
    assert result.node_results["write"][0].content == "wrote found"


def test_adding_a_node_under_a_used_name_replaces_it_with_a_warning():
    """The ORCHESTRATION page adds ``writer`` again (with transforms) a few blocks after adding it."""
    first = agent("first")
    second = Agent(provider=ScriptedProvider(default="second"), config=AgentConfig(model="m"))
    graph = AgentGraph()
    graph.add_node("writer", first)
    graph.add_node("after", lambda s: "after " + s.last_output)
    graph.add_edge("writer", "after")
    with pytest.warns(UserWarning, match="replaces the earlier node 'writer'") as caught:
        graph.add_node("writer", second, context_mode=ContextMode.FULL)
    assert caught[0].filename == __file__  # the warning points at the caller's line
    assert graph.nodes["writer"].target is second
    assert graph.nodes["writer"].context_mode is ContextMode.FULL
    assert list(graph.nodes) == ["writer", "after"] and graph.entry == "writer"
    assert graph.run("x").content == "after second"
    # an agent and a function are both steps: one may replace the other
    with pytest.warns(UserWarning, match="'after'"):
        graph.add_node("after", lambda s: "replaced")
    assert graph.run("x").content == "replaced"

    # a subgraph replaces a subgraph (add_subgraph, then add_node with a graph, as the page does)
    inner = AgentGraph(name="inner")
    inner.add_node("only", lambda s: "inner")
    graph.add_subgraph("research", inner, input_map={"topic": "query"})
    with pytest.warns(UserWarning, match="subgraph 'research'"):
        graph.add_node("research", inner)
    assert graph.nodes["research"].kind == "graph"


def test_a_name_clash_with_another_kind_of_node_or_a_reserved_name_still_fails():
    graph = AgentGraph()
    graph.add_node("a", lambda s: None)
    graph.add_node("b", lambda s: None)
    graph.add_parallel_nodes("team", ["a", "b"])
    inner = AgentGraph(name="inner")
    inner.add_node("x", lambda s: None)
    graph.add_subgraph("sub", inner)
    before = dict(graph.nodes)
    with pytest.raises(ValueError, match=r"already has a node named 'a'.*parallel group cannot"):
        graph.add_parallel_nodes("a", ["b"])
    with pytest.raises(ValueError, match="already has a parallel group named 'team'"):
        graph.add_node("team", lambda s: None)
    with pytest.raises(ValueError, match="already has a subgraph named 'sub'"):
        graph.add_node("sub", agent("x"))
    with pytest.raises(ValueError, match=r"already has a node named 'b'.*subgraph cannot"):
        graph.add_subgraph("b", inner)
    with pytest.raises(ValueError, match="reserved"):
        graph.add_node(AgentGraph.END, lambda s: None)
    with pytest.raises(ValueError, match="names must differ"):
        AgentGraph.chain(agent("1"), agent("2"), names=["same", "same"])
    assert graph.nodes == before
