"""The transcript of one run as the live view shows it.

It is fed in order with the run's observer events (iterations, model calls and
their messages, retries, tool starts and ends, the run's end with its
:class:`AgentResult`) and, while a model call streams, with the text it has
streamed so far (:meth:`Transcript.stream_text`). Rendering is a pure function
of that input, so the final render is deterministic; durations appear only
inside ``<span class="st-ms">``.

Every render, running or final, is bounded: it shows the most recent turns in
full (at most :data:`~selectools._view._components.MAX_TURNS` turns and
:data:`~selectools._view._components.MAX_TOOL_CARDS` tool cards) after one line
saying exactly how many earlier turns, tool calls and notes it leaves out, and
that ``result.trace`` has every step. A short run is shown whole; a run of
10,000 calls stays about 100 KB a redraw instead of 10 MB, and so does the final
render a saved notebook keeps. Counts and totals (the footer) cover the whole run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from .._display import render
from .._view import _html as h
from .._view._components import (
    MAX_TOOL_CARDS,
    MAX_TURNS,
    GuardNote,
    ToolCard,
    calls_phrase,
    denial_card,
    error_line,
    guard_note,
    guard_note_html,
    guard_note_text,
    not_shown_html,
    not_shown_text,
    tool_card_html,
    tool_card_text,
)
from .._view.core import (
    STOP_TONES,
    result_details_html,
    result_header_html,
    result_header_text,
)
from ..guardrails._base import GuardrailError
from ..types import AgentResult, Message

if TYPE_CHECKING:
    from ..agent.stream import AgentStream
    from ..observer import Event, EventName

__all__ = ["PLAIN_TEXT_LIMIT", "Iteration", "Transcript"]

#: characters of a model turn's text the plain-text render shows (the HTML shows all)
PLAIN_TEXT_LIMIT = 4_000
#: where the steps a bounded render leaves out are
_EVERY_STEP = "result.trace has every step"


def _bounded(text: str) -> str:
    """``text`` up to :data:`PLAIN_TEXT_LIMIT` characters, then how many were left out."""
    if len(text) <= PLAIN_TEXT_LIMIT:
        return text
    more = len(text) - PLAIN_TEXT_LIMIT
    note = f"… {more:,} more characters (the HTML view and the AgentResult have them all)"
    return f"{text[:PLAIN_TEXT_LIMIT]}\n{note}"


@dataclass
class Iteration:
    """One model turn: the text it streamed, notes (retries), safety decisions and the tools it ran.

    ``call`` numbers the streamed model call still in progress (0 when none is):
    its partial text is shown until ``on_llm_end`` brings the whole message.
    """

    number: int
    text: str = ""
    notes: list[str] = field(default_factory=list)
    cards: list[ToolCard] = field(default_factory=list)
    guards: list[GuardNote] = field(default_factory=list)
    version: int = 0
    call: int = 0
    #: how many of ``cards`` are refusals (counted as they come: a render needs the number)
    denied: int = 0


class Transcript:
    """Text, tool cards and notes of a run, grouped by iteration; renders HTML and text.

    ``log`` is the append-only text a terminal prints as the run goes; ``html()``
    and ``text()`` render it (live, or final once ``result`` is set), bounded to the
    most recent turns (see the module docstring).
    """

    def __init__(self, title: str) -> None:
        self.title = title
        self.iterations: list[Iteration] = []
        self.cards: dict[str, ToolCard] = {}
        self.messages: list[Message] = []
        self.system_prompt = ""
        self.errors: list[str] = []
        self.result: AgentResult | None = None
        self.stopped = False
        #: a guardrail blocked the run: its note says so, the stop adds nothing to it
        self.blocked = False
        self.log: list[str] = []
        self._line_open = False
        self._cache: dict[tuple[int, bool, bool], tuple[int, int, list[str]]] = {}
        self._calls = 0  # on_llm_start events seen: the number of the call in progress
        # cards (denials among them) and notes of every turn, counted as they come, so a
        # render counts what it leaves out from the turns it shows, however long the run
        self._card_count = 0
        self._denied_count = 0
        self._note_count = 0

    # -- input ----------------------------------------------------------------
    def _iteration(self, number: int) -> Iteration:
        if not self.iterations or self.iterations[-1].number != number:
            for block in reversed(self.iterations):
                if block.number == number:
                    return block
            self.iterations.append(Iteration(number))
        return self.iterations[-1]

    def _current(self) -> Iteration:
        return self.iterations[-1] if self.iterations else self._iteration(1)

    def _write(self, text: str, *, line: bool = False) -> None:
        if line:
            text = ("\n" if self._line_open else "") + text + "\n"
        self.log.append(text)
        self._line_open = not text.endswith("\n")

    def _set_text(self, block: Iteration, text: str) -> None:
        """Show ``text`` as the turn's text; the log gets what was added to it."""
        if text == block.text:
            return
        added = text[len(block.text) :] if text.startswith(block.text) else "\n" + text
        block.text = text
        block.version += 1
        self._write(added)

    def stream_text(self, call: int, text: str) -> bool:
        """The partial ``text`` of streamed model call number ``call``; True if it changed the view.

        Ignored unless that call is the one in progress (its ``on_llm_start`` was
        applied and its ``on_llm_end`` not yet).
        """
        if not self.iterations:
            return False
        block = self.iterations[-1]
        if call == 0 or block.call != call or text == block.text:
            return False
        self._set_text(block, text)
        return True

    def follow(
        self, events: list[Event], start: int, stream: AgentStream | None
    ) -> tuple[int, bool]:
        """Apply ``events[start:]`` (others than :attr:`EVENTS` are skipped), then the text
        of the model call in progress from ``stream``.

        Returns where the next call starts and whether the view changed. ``events``
        may grow in another thread meanwhile: its length is read once.
        """
        end = len(events)
        changed = end > start
        shown = self.EVENTS
        for event in events[start:end]:
            if event.name in shown:
                self.apply(event)
        if stream is not None and self.result is None:
            call = stream.model_calls  # first: the text read next is of this call or a later one
            changed = self.stream_text(call, stream.partial_text) or changed
        return end, changed

    #: the events :meth:`apply` uses; the live view subscribes to these only
    EVENTS: ClassVar[frozenset[EventName]] = frozenset(
        {
            "on_run_start",
            "on_run_end",
            "on_iteration_start",
            "on_llm_start",
            "on_llm_end",
            "on_llm_retry",
            "on_tool_start",
            "on_tool_end",
            "on_tool_error",
            "on_error",
            "on_cancelled",
            "on_guardrail_triggered",
            "on_coherence_blocked",
            "on_tool_output_screened",
            "on_policy_decision",
        }
    )

    def apply(self, event: Event) -> None:
        """Add one observer event (one of :attr:`EVENTS`; others are ignored)."""
        data = event.data
        name = event.name
        if name == "on_tool_start":
            call_id = data["call_id"]
            card = ToolCard(
                name=data["tool_name"], args=dict(data["tool_args"] or {}), call_id=call_id
            )
            block = self._current()
            block.cards.append(card)
            block.version += 1
            self._card_count += 1
            self.cards[call_id] = card
            self._write(tool_card_text(card), line=True)
        elif name == "on_tool_end":
            self._finish_card(
                data["call_id"], "ok", data["duration_ms"], result=str(data["result"])
            )
        elif name == "on_tool_error":
            self._finish_card(
                data["call_id"], "error", data["duration_ms"], error=error_line(data["error"])
            )
        elif name == "on_policy_decision":
            if str(getattr(data["decision"], "value", data["decision"])) == "deny":
                self._add_denial(data)
        elif name == "on_iteration_start":
            self._iteration(data["iteration"])
        elif name == "on_llm_start":
            self._calls += 1
            self._current().call = self._calls
        elif name == "on_llm_end":
            block = self._current()
            block.call = 0
            self._set_text(block, data["response"])
        elif name == "on_llm_retry":
            block = self._current()
            block.call = 0
            block.text = ""  # the failed attempt's partial text is replaced by the retry's
            note = (
                f"retry {data['attempt']}/{data['max_retries']} after {error_line(data['error'])}"
            )
            block.notes.append(note)
            block.version += 1
            self._note_count += 1
            self._write(f"  ↻ {note}", line=True)
        elif name == "on_run_start":
            self.messages = list(data["messages"])
            self.system_prompt = data["system_prompt"]
        elif name == "on_run_end":
            self.result = data["result"]
        elif name == "on_error":
            if not (self.blocked and isinstance(data["error"], GuardrailError)):
                self._add_error(error_line(data["error"]))
        elif name == "on_cancelled":
            self._add_error(f"cancelled ({data['reason']})")
        else:
            guard = guard_note(name, data)
            if guard is not None:
                if name == "on_guardrail_triggered" and data["action"] == "block":
                    self.blocked = True
                block = self._current()
                block.guards.append(guard)
                block.version += 1
                self._note_count += 1
                self._write(guard_note_text(guard), line=True)

    def _add_denial(self, data: dict[str, Any]) -> None:
        """A call that was refused: a row in its turn saying so, by whom and why (it never ran)."""
        card = denial_card(data["tool_name"], data["tool_args"], data.get("call_id"), data)
        block = self._current()
        block.cards.append(card)
        block.denied += 1
        block.version += 1
        self._card_count += 1
        self._denied_count += 1
        self._write(tool_card_text(card), line=True)

    def _add_error(self, line: str) -> None:
        self.errors.append(line)
        self._write(f"  ✗ {line}", line=True)

    def _finish_card(self, call_id: str, status: str, duration_ms: float, **values: Any) -> None:
        card = self.cards.get(call_id)
        if card is None:
            return
        card.status = status
        card.duration_ms = duration_ms
        for key, value in values.items():
            setattr(card, key, value)
        self._current().version += 1
        self._write(f"{tool_card_text(card)} ({h.format_ms(duration_ms)})", line=True)

    def stop(self, reason: str) -> None:
        """The run ended by raising: say why (unless its events already did)."""
        self.stopped = True
        if not self.errors and not self.blocked:
            self.errors.append(reason)
            self._write(f"  ✗ {reason}", line=True)

    # -- output -----------------------------------------------------------------
    def _answer_block(self) -> Iteration | None:
        """The block holding the final answer's text (hidden when shown separately)."""
        result = self.result
        if result is None or result.stop_reason != "final" or not self.iterations:
            return None
        return self.iterations[-1]

    def _shown(self) -> tuple[int, int]:
        """What a render shows: ``iterations[start:]``, the first of them without its first ``cut`` cards.

        The most recent turns that fit in :data:`MAX_TURNS` turns and
        :data:`MAX_TOOL_CARDS` cards; the turn that does not fit whole shows its
        last cards up to the budget.
        """
        budget = MAX_TOOL_CARDS
        start = len(self.iterations)
        while start > 0 and len(self.iterations) - start < MAX_TURNS:
            count = len(self.iterations[start - 1].cards)
            if count > budget:
                if budget == 0:
                    break
                return start - 1, count - budget
            budget -= count
            start -= 1
        return start, 0

    def _not_shown(self, start: int, cut: int) -> str:
        """What ``_shown`` leaves out, counted: ``990 earlier iterations with 9,900 tool calls``.

        From the run's totals less what the shown turns hold: the cost does not grow with the run.
        """
        said = []
        shown = self.iterations[start:]
        if start:
            calls = self._card_count - sum(len(block.cards) for block in shown)
            denied = self._denied_count - sum(block.denied for block in shown)
            notes = self._note_count - sum(len(block.notes) + len(block.guards) for block in shown)
            what = f"{h.plural(start, 'earlier iteration')} with {calls_phrase(calls, denied)}"
            said.append(what + (f" and {h.plural(notes, 'note')}" if notes else ""))
        if cut:
            block = shown[0]
            denied = block.denied - sum(card.status == "denied" for card in block.cards[cut:])
            said.append(f"the first {calls_phrase(cut, denied)} of iteration {block.number}")
        return " and ".join(said)

    def _block_parts(
        self, block: Iteration, numbered: bool, hide_text: bool, cut: int = 0
    ) -> list[str]:
        """The block's HTML as parts (cached per version): the answer's text is one of them, uncopied.

        ``cut``: how many of its first cards are left out.
        """
        key = (block.number, numbered, hide_text)
        cached = self._cache.get(key)
        if cached is not None and cached[0] == block.version and cached[1] == cut:
            return cached[2]
        parts = [f"<div>{h.muted(f'iteration {block.number}')}</div>"] if numbered else []
        parts += [f"<div>{h.muted('↻ ' + note)}</div>" for note in block.notes]
        if block.text and not hide_text:
            parts += h.pre_parts(block.text)
        parts += [tool_card_html(card) for card in block.cards[cut:]]
        parts += [guard_note_html(note) for note in block.guards]
        self._cache[key] = (block.version, cut, parts)
        return parts

    def html(self, *, hide_answer: bool = False) -> str:
        """The transcript as HTML; with a result, the final render (status, usage, details).

        Built as a list of parts joined once, so a long answer is copied once per render.
        """
        result = self.result
        hidden = self._answer_block() if hide_answer else None
        numbered = len(self.iterations) > 1
        if result is None:
            tone = "error" if self.stopped else "info"
            word = "blocked" if self.blocked else "stopped" if self.stopped else "running"
            status = h.badge(word, tone)
        else:
            status = result_header_html(result)
            tone = STOP_TONES.get(result.stop_reason, "muted")
        parts = [
            h.box_open("run", tone),
            f"<div>{h.badge('agent', tone)} {h.esc(self.title)}</div>",
        ]
        start, cut = self._shown()
        if start or cut:
            parts.append(not_shown_html(self._not_shown(start, cut), _EVERY_STEP))
        for index in range(start, len(self.iterations)):
            block = self.iterations[index]
            parts += self._block_parts(
                block, numbered, block is hidden, cut if index == start else 0
            )
        parts += [h.pre(error, tone="error") for error in self.errors]
        parts.append(status if result is not None else f"<div>{status}</div>")
        if result is not None:
            parts.append(result_details_html(result, tool_calls=False))
            if self.messages or self.system_prompt:
                parts.append(self._messages_html())
        parts.append("</div>")
        return "".join(parts)

    def _messages_html(self) -> str:
        """The messages the run started with: the last :data:`MAX_TURNS` (a history grows every run)."""
        body = ""
        if self.system_prompt:
            body += h.details("System prompt", h.pre(self.system_prompt))
        hidden = max(len(self.messages) - MAX_TURNS, 0)
        if hidden:
            where = "the agent's memory (or the list the run was given) has them all"
            body += not_shown_html(f"the first {h.plural(hidden, 'message')}", where)
        body += "".join(render(message, "html") for message in self.messages[hidden:])
        return h.details(h.esc(f"Messages ({len(self.messages)})"), body)

    def text(self, *, hide_answer: bool = False) -> str:
        """The transcript as plain text, without durations (deterministic).

        Each model turn's text stops after :data:`PLAIN_TEXT_LIMIT` characters with
        a line saying how many more there are: the plain text is the fallback next
        to the HTML (which has all of it), and a notebook stores and the kernel sends
        both, so a long answer would otherwise travel and be saved twice. Like
        ``AgentResult``'s own plain-text view, which shows 500 characters.
        """
        hidden = self._answer_block() if hide_answer else None
        lines = [f"[agent] {self.title}"]
        numbered = len(self.iterations) > 1
        start, cut = self._shown()
        if start or cut:
            lines.append(not_shown_text(self._not_shown(start, cut), _EVERY_STEP))
        for index in range(start, len(self.iterations)):
            block = self.iterations[index]
            if numbered:
                lines.append(f"--- iteration {block.number}")
            lines += [f"  ↻ {note}" for note in block.notes]
            if block.text and block is not hidden:
                lines.append(_bounded(block.text))
            lines += [tool_card_text(card) for card in block.cards[cut if index == start else 0 :]]
            lines += [guard_note_text(note) for note in block.guards]
        lines += [f"  ✗ {error}" for error in self.errors]
        if self.result is not None:
            lines.append(f"[{result_header_text(self.result)}]")
        return "\n".join(lines)
