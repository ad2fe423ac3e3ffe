"""Exports of selectools traces to observability backends, and a store for traces.

``from selectools.observe import OTelObserver`` loads OpenTelemetry only then;
each name here lives in its own module and is imported on first use, so the
package costs nothing until a feature is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "OTelObserver": ".otel",
    "AsyncOTelObserver": ".otel",
    "LangfuseObserver": ".langfuse",
    "TraceStore": ".trace_store",
    "TraceSummary": ".trace_store",
    "InMemoryTraceStore": ".trace_store",
    "JSONLTraceStore": ".trace_store",
    "SQLiteTraceStore": ".trace_store",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:  # pragma: no cover
    from .langfuse import LangfuseObserver as LangfuseObserver
    from .otel import AsyncOTelObserver as AsyncOTelObserver, OTelObserver as OTelObserver
    from .trace_store import (
        InMemoryTraceStore as InMemoryTraceStore,
        JSONLTraceStore as JSONLTraceStore,
        SQLiteTraceStore as SQLiteTraceStore,
        TraceStore as TraceStore,
        TraceSummary as TraceSummary,
    )
