"""A long run's live view stays bounded: the recent turns in full, one line counting the rest.

Budgets (``MAX_TOOL_CARDS``, ``MAX_TURNS`` in ``selectools._view._components``) are read
here, never restated: the tests check what a 10,000-call run shows, and that what is
left out is counted exactly.
"""

from __future__ import annotations

import pytest

from selectools import Agent, AgentConfig, tool
from selectools.notebook.live import run_live
from selectools.testing import ScriptedProvider, reply, tool_call

TURNS = 1_000
CALLS_PER_TURN = 10
#: a bound with margin: about 1 KB per card shown, plus the trace (its first 200 rows),
#: usage and reasoning tables of the final render
MAX_BYTES = 300_000


@tool()
def search(q: str) -> str:
    """Searches."""
    return f"found {q}"


def _key(turn: int, call: int) -> str:
    return f"k{turn:04d}x{call}"


class Recorder:
    """A surface that keeps the size of every redraw and the final outputs."""

    def __init__(self) -> None:
        self.sizes: list[int] = []
        self.final: dict = {}

    def start(self) -> None:
        return None

    def refresh(self, view) -> None:
        self.sizes.append(len(view.html()))

    def finish(self, outputs, view) -> None:
        self.final = outputs[0][0]


@pytest.fixture(scope="module")
def long_run():
    script = [
        reply(f"turn {t}", *[tool_call("search", q=_key(t, c)) for c in range(CALLS_PER_TURN)])
        for t in range(TURNS)
    ] + ["All done."]
    agent = Agent(
        tools=[search],
        provider=ScriptedProvider(script),
        config=AgentConfig(max_iterations=TURNS + 5),
    )
    surface = Recorder()
    result = run_live(agent, "go", surface=surface, updates_per_second=30)
    return result, surface


def test_the_final_render_of_ten_thousand_calls_is_bounded_and_counts_what_it_leaves_out(
    long_run,
):
    from selectools._view._components import MAX_TOOL_CARDS

    result, surface = long_run
    assert len(result.tool_calls) == TURNS * CALLS_PER_TURN
    html, text = surface.final["text/html"], surface.final["text/plain"]
    assert len(html) < MAX_BYTES, len(html)
    shown_turns = MAX_TOOL_CARDS // CALLS_PER_TURN
    hidden_turns = TURNS - shown_turns
    line = (
        f"… {hidden_turns:,} earlier iterations with {hidden_turns * CALLS_PER_TURN:,} tool calls "
        "not shown — result.trace has every step"
    )
    assert line in text.splitlines()
    assert "990 earlier iterations with 9,900 tool calls not shown" in html
    # the most recent calls are there in full; the first ones are not
    assert _key(TURNS - 1, CALLS_PER_TURN - 1) in html and _key(hidden_turns, 0) in html
    assert _key(hidden_turns - 1, CALLS_PER_TURN - 1) not in html and _key(0, 0) not in html
    assert _key(0, 0) not in text and _key(TURNS - 1, 0) in text
    # the footer counts the whole run
    assert text.splitlines()[-1].startswith("[final · 1,001 iterations · 10,000 tool calls · ")
    assert "1,001 iterations &#183; 10,000 tool calls &#183; " in html


def test_every_redraw_of_a_long_run_is_bounded(long_run):
    _result, surface = long_run
    assert surface.sizes  # the run lasted long enough to be redrawn
    assert max(surface.sizes) < MAX_BYTES, max(surface.sizes)


def test_one_turn_with_more_calls_than_the_budget_shows_its_last_calls():
    from selectools._view._components import MAX_TOOL_CARDS

    many = MAX_TOOL_CARDS + 25
    script = [reply("fan out", *[tool_call("search", q=_key(0, c)) for c in range(many)]), "ok"]
    surface = Recorder()
    run_live(Agent(tools=[search], provider=ScriptedProvider(script)), "go", surface=surface)
    text = surface.final["text/plain"]
    assert "… the first 25 tool calls of iteration 1 not shown — result.trace has every step" in (
        text.splitlines()
    )
    assert _key(0, 24) not in text and _key(0, 25) in text and _key(0, many - 1) in text
    assert "fan out" in text  # the turn's own text is still shown
    assert text.splitlines()[-1].startswith(f"[final · 2 iterations · {many:,} tool calls · ")


@tool()
def remove(path: str) -> str:
    """Deletes a file."""
    return f"removed {path}"


def test_the_line_counts_denied_calls_and_the_footer_counts_them_apart():
    from selectools import ToolPolicy
    from selectools._view._components import MAX_TOOL_CARDS, MAX_TURNS

    turns = 100
    script = [
        reply("", tool_call("search", q=_key(t, 0)), tool_call("remove", path=f"p{t}"))
        for t in range(turns)
    ] + ["done"]
    config = AgentConfig(
        max_iterations=turns + 5, tool_policy=ToolPolicy(allow=["search"], deny=["remove"])
    )
    surface = Recorder()
    run_live(Agent(tools=[search, remove], provider=ScriptedProvider(script), config=config),
             "go", surface=surface)  # fmt: skip
    text = surface.final["text/plain"]
    # the answer's turn and the last MAX_TURNS - 1 turns of two calls fit the card budget
    assert 2 * (MAX_TURNS - 1) <= MAX_TOOL_CARDS
    hidden = turns - (MAX_TURNS - 1)
    line = (
        f"… {hidden} earlier iterations with {2 * hidden} tool calls ({hidden} denied) "
        "not shown — result.trace has every step"
    )
    assert line in text.splitlines()
    assert text.splitlines()[-1].startswith(
        f"[final · {turns + 1} iterations · {turns} tool calls · {turns} denied · "
    )
    assert text.count("⊘ denied by tool policy") == MAX_TURNS - 1


def test_the_final_render_shows_the_last_messages_of_a_long_history():
    from selectools import ConversationMemory, Message, Role
    from selectools._view._components import MAX_TURNS

    memory = ConversationMemory(max_messages=1_000)
    memory.extend(
        [
            Message(role=Role.USER if i % 2 == 0 else Role.ASSISTANT, content=f"m{i:03d}!")
            for i in range(500)
        ]
    )
    surface = Recorder()
    run_live(Agent(provider=ScriptedProvider(["ok"]), memory=memory), "go", surface=surface)
    html = surface.final["text/html"]
    assert "Messages (501)" in html  # the label counts every message the run started with
    hidden = 501 - MAX_TURNS
    assert f"the first {hidden} messages not shown" in html
    assert "m499!" in html and "go</pre>" in html and f"m{hidden - 1:03d}!" not in html
    assert "m000!" not in html
