"""The live run as a widget: streamed transcript, approval cards below it, and a Stop button.

:class:`WidgetSurface` is a :class:`~._frontend.Surface` for ``run_live``: it shows
a :class:`LiveRunWidget` (``widgets/live_run.js``) and a box for the run's approval
cards, redraws the transcript into the widget, and at the end replaces the widget's
output with the same final render the display-id view ends with (so a saved
notebook, a kernel restart or a viewer without widgets show the same thing).
Stop cancels the run's :class:`~selectools.cancellation.CancellationToken`:
between steps, or inside a streaming model call, the run ends ``cancelled``.
Its messages are handled on a kernel subshell, so Stop works while the cell blocks.
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

from ._kernel import route_to_subshell
from ._widget_files import widget_path

__all__ = ["LiveRunWidget", "WidgetSurface"]


class LiveRunWidget(anywidget.AnyWidget):
    """The running view; ``token`` is cancelled by its Stop button."""

    _esm = widget_path("live_run.js")
    _css = widget_path("live_run.css")

    html = traitlets.Unicode("").tag(sync=True)
    status = traitlets.Unicode("running").tag(sync=True)

    def __init__(self, title: str = "") -> None:
        super().__init__()
        self.title = title
        self.token: Any = None
        self.on_msg(self._on_message)

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("action") == "stop" and self.token:
            self.status = "stopping"
            self.token.cancel("stopped from the notebook")

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        data, meta = bundle if isinstance(bundle, tuple) else (bundle or {}, {})
        data = dict(data or {})
        data["text/html"] = self.html or "<div></div>"
        data["text/plain"] = repr(self)
        return data, meta

    def __repr__(self) -> str:
        return f"LiveRunWidget({self.title!r}, {self.status})"


class WidgetSurface:
    """Draws a run into a :class:`LiveRunWidget`; cards go to a box shown below it."""

    def __init__(self, token: Any = None) -> None:
        from IPython.display import display

        from .approvals import card_host

        self.widget = LiveRunWidget()
        self.widget.token = token
        route_to_subshell(self.widget)
        self._handle = display(self.widget, display_id=True)
        self.cards = card_host()
        self.updates = 0

    def start(self) -> None:
        return None

    def refresh(self, view: Any) -> None:
        self.updates += 1
        self.widget.html = view.html()

    def finish(self, outputs: list[tuple[dict[str, Any], dict[str, Any]]], view: Any) -> None:
        bundle, metadata = outputs[0] if outputs else ({"text/plain": view.text()}, {})
        self.widget.status = str(metadata.get("selectools", {}).get("stop_reason") or "ended")
        self.widget.html = bundle.get("text/html", "")
        self._handle.update(bundle, metadata=metadata, raw=True)
        self.cards.settle()
