"""Helpers for the view tests (no IPython: the views are core code)."""

from __future__ import annotations

import re

#: the only clock-dependent text of a rendering (see selectools._view._html.duration)
_DURATION = re.compile(r'<span class="st-ms"[^>]*>[^<]*</span>')


def sanitize(html: str) -> str:
    return _DURATION.sub("<ms/>", html)
