"""HTML and number formatting shared by every notebook view.

Plain string building only: no IPython, no templates. Styles are inline (they
survive JupyterLab's sanitizer for untrusted notebooks and need no ``<style>``
tag), colours are translucent so they read on light and dark themes, and
structure uses ``<details>``/``<table>`` so GitHub and nbviewer still show it.
Durations are wrapped in ``<span class="st-ms">`` so a notebook test can
sanitize the only clock-dependent text with one regular expression.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from .._text import one_line

__all__ = [
    "badge",
    "box",
    "box_open",
    "details",
    "duration",
    "esc",
    "format_cost",
    "format_ms",
    "format_tokens",
    "json_text",
    "muted",
    "one_line",
    "plural",
    "pre",
    "pre_parts",
    "table",
]

_FONT = "font-family: var(--jp-ui-font-family, system-ui, -apple-system, sans-serif)"
_MONO = "font-family: var(--jp-code-font-family, ui-monospace, SFMono-Regular, Menlo, monospace)"
_TONES = {
    "ok": "rgba(46, 160, 67, 0.18)",
    "warn": "rgba(210, 153, 34, 0.22)",
    "error": "rgba(218, 54, 51, 0.22)",
    "info": "rgba(56, 132, 244, 0.16)",
    "muted": "rgba(128, 128, 128, 0.16)",
}
_EDGES = {
    "ok": "#2ea043",
    "warn": "#d29922",
    "error": "#da3633",
    "info": "#3884f4",
    "muted": "#8b8b8b",
}
_BORDER = "1px solid rgba(128, 128, 128, 0.35)"


def esc(value: Any) -> str:
    """HTML-escape ``str(value)`` (safe in text and in quoted attribute values), in ASCII.

    Characters beyond ASCII become character references (``·`` is ``&#183;``): the
    views' own text is then ASCII, so a render whose content is ASCII too is an
    ASCII string, which the kernel's JSON encoder copies instead of re-encoding
    (about 25 µs less per 60 KB sent). Long content (answers, tool results) goes
    through :func:`esc_text` and keeps its characters.
    """
    text = escape(str(value), quote=True)
    return text if text.isascii() else text.encode("ascii", "xmlcharrefreplace").decode("ascii")


#: ``str.translate`` table for element content
_TEXT_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def esc_text(text: str) -> str:
    """Escape ``text`` for element content: ``&``, ``<`` and ``>`` only.

    Quotes need no escaping outside attributes, and one ``translate`` pass is
    about three times faster than ``html.escape``'s five replaces on long texts
    (a streamed answer, a tool result), which every render escapes; a text without
    any of the three (most answers) is returned as it is after three ``in`` scans,
    five times faster again.
    """
    if "&" in text or "<" in text or ">" in text:
        return text.translate(_TEXT_ESCAPES)
    return text


def box(inner: str, kind: str, tone: str = "") -> str:
    """The outer frame every view is drawn in (``kind`` becomes a CSS class)."""
    return f"{box_open(kind, tone)}{inner}</div>"


def box_open(kind: str, tone: str = "") -> str:
    """The opening tag of :func:`box` (close it with ``</div>``), for views that join parts once."""
    edge = f" border-left: 3px solid {_EDGES[tone]};" if tone else ""
    return (
        f'<div class="selectools selectools-{esc(kind)}" style="{_FONT}; font-size: 13px; '
        f"line-height: 1.45; border: {_BORDER};{edge} border-radius: 4px; padding: 6px 10px; "
        f'margin: 2px 0;">'
    )


def details(summary: str, body: str, *, open: bool = False) -> str:
    """A collapsible section; ``summary`` is HTML."""
    flag = " open" if open else ""
    return (
        f'<details{flag} style="margin: 4px 0;"><summary style="cursor: pointer;">{summary}'
        f'</summary><div style="margin: 4px 0 4px 14px;">{body}</div></details>'
    )


def badge(text: str, tone: str = "muted") -> str:
    return (
        f'<span style="background: {_TONES[tone]}; border-radius: 3px; padding: 0 5px; '
        f'font-size: 12px;">{esc(text)}</span>'
    )


def muted(text: str) -> str:
    return f'<span style="opacity: 0.7;">{esc(text)}</span>'


def pre(text: str, tone: str = "") -> str:
    """Preformatted text that wraps (answers, tool results, source code)."""
    return "".join(pre_parts(text, tone))


def pre_parts(text: str, tone: str = "") -> tuple[str, str, str]:
    """:func:`pre` as its three pieces: a long answer is copied once, by the view's final join."""
    background = f"background: {_TONES[tone]}; " if tone else ""
    return (
        f'<pre style="{_MONO}; font-size: 12px; white-space: pre-wrap; word-break: break-word; '
        f'{background}margin: 2px 0; padding: 4px 6px; border-radius: 3px;">',
        esc_text(str(text)),
        "</pre>",
    )


def table(
    headers: Sequence[str], rows: Iterable[Sequence[str]], *, numeric: Iterable[int] = ()
) -> str:
    """A compact table; cells are HTML, columns listed in ``numeric`` align right."""
    head, opens = _table_frame(tuple(headers), frozenset(numeric))
    width = len(opens)
    body = "".join(
        "<tr>"
        + "".join(
            f"{opens[i] if i < width else _cell_open('td', 'left')}{c}</td>"
            for i, c in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return (
        f'<table style="border-collapse: collapse; font-size: 12px; margin: 2px 0;">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def _cell_open(tag: str, align: str) -> str:
    return f'<{tag} style="text-align: {align}; padding: 1px 8px;">'


@functools.lru_cache(maxsize=64)
def _table_frame(headers: tuple[str, ...], right: frozenset[int]) -> tuple[str, tuple[str, ...]]:
    """A table's header row and its cells' opening tags (the same few tables are drawn every render)."""
    aligns = ["right" if i in right else "left" for i in range(len(headers))]
    head = "".join(
        f"{_cell_open('th', align)}{esc(name)}</th>"
        for name, align in zip(headers, aligns, strict=True)
    )
    return head, tuple(_cell_open("td", align) for align in aligns)


def duration(ms: float | None) -> str:
    """A formatted duration inside the ``st-ms`` span (the one clock-dependent text)."""
    if ms is None:
        return ""
    return f'<span class="st-ms" style="opacity: 0.7;">{format_ms(ms)}</span>'


def format_ms(ms: float) -> str:
    if ms < 1000:
        return f"{ms:.1f} ms"
    return f"{ms / 1000:.2f} s"


def format_cost(usd: float) -> str:
    if usd == 0:
        return "$0"
    if usd < 0.01:
        return f"${usd:.6f}"
    return f"${usd:.4f}"


def format_tokens(count: int) -> str:
    return f"{count:,} token" + ("" if count == 1 else "s")


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def json_text(value: Any, *, indent: int | None = None) -> str:
    """``value`` as JSON when it can be (tool arguments, parsed output), else ``repr``."""
    try:
        return json.dumps(value, ensure_ascii=False, indent=indent, default=_fallback)
    except (TypeError, ValueError):
        return repr(value)


def _fallback(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump()
    return str(value)
