"""The live view: throttled redraws, true event order, retries, failures, and the final render."""

from __future__ import annotations

import time

import pytest
from IPython.core.displaypub import CapturingDisplayPublisher

from selectools import Agent, AgentConfig, tool
from selectools.exceptions import ProviderError
from selectools.notebook.live import LiveRun, output_metadata, run_live
from selectools.testing import ScriptedProvider, reply, tool_call
from selectools.usage import UsageStats


class FakeShell:
    """Just what the live view uses of a kernel shell: a display publisher."""

    def __init__(self) -> None:
        self.display_pub = CapturingDisplayPublisher()

    @property
    def outputs(self) -> list[dict]:
        return self.display_pub.outputs


@tool()
def lookup(key: str) -> str:
    """Looks a key up."""
    time.sleep(0.01)
    return key.upper()


def test_redraws_are_throttled_and_show_partial_text():
    words = [f"w{i} " for i in range(150)]
    provider = ScriptedProvider([reply("".join(words), chunks=words, chunk_latency=0.005)])
    shell = FakeShell()
    started = time.perf_counter()
    result = run_live(Agent(provider=provider), "go", shell=shell, updates_per_second=30)
    elapsed = time.perf_counter() - started
    # one output drawn, then updated; the last draw is the final render
    updates = shell.outputs[:-1]
    assert not updates[0]["update"] and all(o["update"] for o in shell.outputs[1:])
    assert len(updates) <= 30 * elapsed + 1
    assert len(updates) >= 3  # it did stream, not just render at the end
    assert all(set(o["data"]) == {"text/html"} for o in updates)  # redraws carry HTML only
    partial = [o["data"]["text/html"] for o in updates]
    assert any("w0 " in html and "w149" not in html for html in partial)
    assert result is not None and result.content == "".join(words)


def test_parallel_tool_cards_sit_in_their_iteration_in_call_order():
    provider = ScriptedProvider(
        [reply("Looking.", tool_call("lookup", key="a"), tool_call("lookup", key="b")), "A and B."]
    )
    shell = FakeShell()
    run_live(Agent(tools=[lookup], provider=provider), "go", shell=shell)
    text = shell.outputs[-1]["data"]["text/plain"]
    assert text.splitlines() == [
        "[agent] agent · scripted",  # the scripted model is not named as if it were a paid one
        "--- iteration 1",
        "Looking.",
        '  [tool] lookup({"key": "a"}) → A',
        '  [tool] lookup({"key": "b"}) → B',
        "--- iteration 2",
        "A and B.",
        text.splitlines()[-1],
    ]
    assert text.splitlines()[-1].startswith("[final · 2 iterations · 2 tool calls · ")


class FlakyStream:
    """Streams two words, then fails once with a retryable error; the retry succeeds."""

    name = "flaky"
    supports_streaming = True

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, **kwargs):  # pragma: no cover - the view always streams
        raise AssertionError("not used")

    def stream(self, **kwargs):
        self.calls += 1
        if self.calls == 1:
            yield "half "
            yield "written "
            raise ProviderError("connection reset", retryable=True)
        yield "Whole answer."
        yield UsageStats(prompt_tokens=3, completion_tokens=2, model="m", provider="flaky")


def test_a_retried_stream_replaces_its_partial_text_and_notes_the_retry():
    shell = FakeShell()
    agent = Agent(provider=FlakyStream(), config=AgentConfig(retry_backoff_seconds=0))
    result = run_live(agent, "go", shell=shell)
    assert result is not None and result.content == "Whole answer."
    final = shell.outputs[-1]["data"]
    assert "half" not in final["text/plain"]
    assert "↻ retry 1/2 after ProviderError: connection reset" in final["text/plain"]
    assert "retry 1/2" in final["text/html"]


class Broken:
    name = "broken"

    def complete(self, **kwargs):  # pragma: no cover - the view always streams
        raise AssertionError("not used")

    def stream(self, **kwargs):
        yield "partial "
        raise RuntimeError("provider bug")


def test_a_run_that_raises_closes_the_view_then_propagates():
    shell = FakeShell()
    with pytest.raises(RuntimeError, match="provider bug"):
        run_live(Agent(provider=Broken()), "go", shell=shell)
    [final] = shell.outputs  # ended before a redraw: the final render is the only message
    assert "stopped" in final["data"]["text/html"]
    assert "RuntimeError: provider bug" in final["data"]["text/plain"]
    assert "partial" in final["data"]["text/plain"]


def test_text_display_prints_deltas_tool_lines_and_status(capsys):
    provider = ScriptedProvider([reply("Looking.", tool_call("lookup", key="a")), "Done."])
    run_live(Agent(tools=[lookup], provider=provider), "go", display="text")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Looking."
    assert out[1] == '  [tool] lookup({"key": "a"}) running…'
    assert out[2].startswith('  [tool] lookup({"key": "a"}) → A (') and out[2].endswith(" ms)")
    assert out[3] == "Done."
    assert out[4].startswith("[final · 2 iterations · 1 tool call")


def test_a_long_answer_is_whole_in_the_html_and_bounded_in_the_plain_text():
    from selectools.notebook.transcript import PLAIN_TEXT_LIMIT

    answer = "".join(f"w{i} " for i in range(3000))  # 16,890 characters
    shell = FakeShell()
    result = run_live(Agent(provider=ScriptedProvider([answer])), "go", shell=shell)
    data = shell.outputs[-1]["data"]
    assert result.content == answer and answer in data["text/html"]
    lines = data["text/plain"].splitlines()
    assert lines[1] == answer[:PLAIN_TEXT_LIMIT]
    assert lines[2] == "… 12,890 more characters (the HTML view and the AgentResult have them all)"
    assert lines[3].startswith("[final · 1 iteration · 0 tool calls")
    short = FakeShell()
    run_live(Agent(provider=ScriptedProvider(["w1 w2"])), "go", shell=short)
    assert short.outputs[-1]["data"]["text/plain"].splitlines()[1] == "w1 w2"


def test_the_html_is_ascii_around_content_that_keeps_its_own_characters():
    shell = FakeShell()
    run_live(Agent(provider=ScriptedProvider(["plain answer"])), "go", shell=shell)
    html = shell.outputs[-1]["data"]["text/html"]
    # the views' own separators are character references: an ASCII answer makes an ASCII render
    assert html.isascii() and "&#183;" in html
    shell = FakeShell()
    run_live(Agent(provider=ScriptedProvider(["café · naïve ✓ <b> & co"])), "go", shell=shell)
    html = shell.outputs[-1]["data"]["text/html"]
    assert "café · naïve ✓ &lt;b&gt; &amp; co" in html


def test_output_metadata_describes_the_run():
    result = Agent(provider=ScriptedProvider(["ok"])).run("x")
    meta = output_metadata(result, "asked-for", "scripted")["selectools"]
    assert meta["trace_id"] == result.trace.run_id
    assert meta["tokens"] == result.usage.total_tokens
    assert meta["cost_usd"] == result.usage.total_cost_usd
    assert meta["latency_ms"] == pytest.approx(result.trace.total_duration_ms, abs=1e-3)
    assert (meta["model"], meta["provider"], meta["stop_reason"], meta["iterations"]) == (
        "scripted",  # what the provider reported serving
        "scripted",
        "final",
        1,
    )


def test_bad_arguments_are_clear_errors():
    agent = Agent(provider=ScriptedProvider(["ok"]))
    with pytest.raises(ValueError, match="output_format must be one of"):
        run_live(agent, "x", shell=FakeShell(), output_format="yaml")
    with pytest.raises(ValueError, match="display mode must be one of"):
        run_live(agent, "x", shell=FakeShell(), display="fancy")
    with pytest.raises(ValueError, match="updates_per_second must be > 0"):
        LiveRun(None, "t", updates_per_second=0)  # type: ignore[arg-type]


def test_the_view_subscribes_to_its_events_only_and_keeps_them_as_event_objects():
    from selectools.observer import Event, EventEmitter

    words = [f"w{i} " for i in range(20)]
    provider = ScriptedProvider(
        [reply("", tool_call("lookup", key="a")), reply("".join(words), chunks=words)]
    )
    view = LiveRun(None, "t")  # type: ignore[arg-type]  # no surface: only the observer side
    agent = Agent(tools=[lookup], provider=provider)
    list(agent.stream("go", observers=[view]))
    names = [event.name for event in view.recorded]
    assert "on_stream_chunk" not in names and set(names) <= LiveRun.events
    assert names[0] == "on_run_start" and names[-1] == "on_run_end"
    assert names.count("on_tool_end") == 1 and names.count("on_llm_end") == 2
    assert all(isinstance(event, Event) for event in view.recorded)
    assert "on_stream_chunk" not in EventEmitter("r", [view])._generic
    # what went in is kept as it was when the run started, not as the run grew it
    assert [m.text for m in view.recorded[0].data["messages"]] == ["go"]


def test_a_redraw_shows_the_partial_text_of_the_call_in_progress():
    """The view keeps no chunk: it reads the stream's partial text at each redraw."""
    words = [f"w{i} " for i in range(40)]
    seen: list[str] = []

    class Recorder:
        updates = 0

        def start(self) -> None:
            return None

        def refresh(self, view) -> None:
            seen.append(view.text())

        def finish(self, outputs, view) -> None:
            seen.append(view.text())

    provider = ScriptedProvider(
        [
            reply("Looking.", tool_call("lookup", key="a")),
            reply("".join(words), chunks=words, chunk_latency=0.004),
        ]
    )
    result = run_live(
        Agent(tools=[lookup], provider=provider), "go", surface=Recorder(), updates_per_second=60
    )
    assert result.content == "".join(words)
    partial = [t for t in seen[:-1] if "w0 " in t and "w39" not in t]
    assert partial, seen  # a redraw landed while the second call streamed
    assert all(t.index("Looking.") < t.index("w0 ") for t in partial)  # in its own iteration
    assert seen[-1].count("w39") == 1 and "--- iteration 2" in seen[-1]


def test_runs_nobody_watches_send_the_final_render_only_unless_display_live_asks():
    from selectools.notebook import _kernel

    class Kernel:
        def __init__(self, allow_stdin: bool) -> None:
            self.allow_stdin = allow_stdin

        def get_parent(self) -> dict:  # the execute_request the cell came from
            return {"content": {"allow_stdin": self.allow_stdin}}

    words = [f"w{i} " for i in range(80)]

    def run(allow_stdin: bool, display: str) -> list[dict]:
        shell = FakeShell()
        shell.kernel = Kernel(allow_stdin)  # type: ignore[attr-defined]
        provider = ScriptedProvider([reply("".join(words), chunks=words, chunk_latency=0.003)])
        run_live(Agent(provider=provider), "go", shell=shell, display=display)
        return shell.outputs

    unwatched = run(False, "auto")  # nbclient, nbval, papermill
    assert len(unwatched) == 1 and not unwatched[0]["update"]
    assert "w79" in unwatched[0]["data"]["text/plain"]
    watched = run(True, "auto")  # JupyterLab, VS Code
    assert len(watched) > 2 and all(o["update"] for o in watched[1:])
    forced = run(False, "live")  # %selectools display=live: e.g. a Voila dashboard
    assert len(forced) > 2
    assert _kernel.watched(FakeShell()) is True  # no kernel: a terminal or a test
