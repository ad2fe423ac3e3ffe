"""An in-process IPython shell with ``%load_ext selectools`` and a recording display publisher."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.displaypub import CapturingDisplayPublisher
from IPython.core.interactiveshell import InteractiveShell

ROOT = Path(__file__).resolve().parents[2]

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
    ip.config.pop("SelectoolsMagics", None)  # settings another test or a docs example left
    publisher = CapturingDisplayPublisher()
    monkeypatch.setattr(ip, "display_pub", publisher)
    ip.extension_manager.load_extension("selectools")
    ip.outputs = publisher.outputs
    yield ip
    ip.extension_manager.unload_extension("selectools")
    ip.config.pop("SelectoolsMagics", None)  # %config values outlive the extension, not the test
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


@contextlib.contextmanager
def checkout_on_path() -> Iterator[None]:
    """Put this checkout first on PYTHONPATH, for kernels started meanwhile (nbclient's too)."""
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), before]))
    try:
        yield
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before


@contextlib.contextmanager
def kernel_client() -> Iterator[Any]:
    """A real kernel that imports this checkout, and its (interactive) jupyter_client client."""
    from jupyter_client.manager import start_new_kernel

    with checkout_on_path():
        manager, client = start_new_kernel(kernel_name="python3", cwd=str(ROOT))
    try:
        yield client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
