"""An in-process IPython shell with ``%load_ext selectools`` and a recording display publisher."""

from __future__ import annotations

import re

import pytest
from IPython.core.displaypub import CapturingDisplayPublisher
from IPython.core.interactiveshell import InteractiveShell

#: the only clock-dependent text of a rendering (see selectools._view._html.duration)
_DURATION = re.compile(r'<span class="st-ms"[^>]*>[^<]*</span>')


def sanitize(html: str) -> str:
    return _DURATION.sub("<ms/>", html)


@pytest.fixture
def shell(monkeypatch):
    """The IPython shell, reset, with selectools loaded; rich output goes to ``shell.outputs``."""
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    ip = InteractiveShell.instance()
    ip.reset(new_session=False)
    publisher = CapturingDisplayPublisher()
    monkeypatch.setattr(ip, "display_pub", publisher)
    ip.extension_manager.load_extension("selectools")
    ip.outputs = publisher.outputs
    yield ip
    ip.extension_manager.unload_extension("selectools")
    ip.reset(new_session=False)


def final_outputs(ip) -> list[dict]:
    """The outputs a saved notebook keeps: each display with its last update applied."""
    return notebook_outputs(ip.outputs)


def notebook_outputs(published: list[dict]) -> list[dict]:
    """Fold display updates into the displays they update (by display id), as a notebook does."""
    outputs: list[dict] = []
    for message in published:
        display_id = (message.get("transient") or {}).get("display_id")
        if not message["update"]:
            outputs.append(dict(message))
            continue
        for output in outputs:
            if display_id and (output.get("transient") or {}).get("display_id") == display_id:
                output.update(data=message["data"], metadata=message["metadata"])
    return outputs
