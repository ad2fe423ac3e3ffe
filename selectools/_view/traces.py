"""Tables of stored runs for notebooks: one DataFrame row per trace (pandas loaded on use)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from .._display import Renderers
from .charts import _require

if TYPE_CHECKING:
    import pandas

    from ..observe.trace_store import TraceStore, TraceSummary

__all__ = ["RENDERERS", "SUMMARY_COLUMNS", "summaries_to_dataframe"]

SUMMARY_COLUMNS = (
    "run_id",
    "parent_run_id",
    "started",
    "duration_ms",
    "steps",
    "total_tokens",
    "cost_usd",
    "metadata",
)


def summaries_to_dataframe(summaries: Sequence[TraceSummary]) -> pandas.DataFrame:
    """One row per run; ``started`` is a UTC timestamp, metadata keys become ``meta.<key>`` columns."""
    pd = _require("pandas", "TraceStore.to_dataframe()")
    columns: dict[str, list[Any]] = {name: [] for name in SUMMARY_COLUMNS}
    keys: list[str] = []
    for summary in summaries:
        for key in summary.metadata:
            if key not in keys:
                keys.append(key)
    meta: dict[str, list[Any]] = {f"meta.{key}": [] for key in keys}
    for s in summaries:
        row = (
            s.run_id,
            s.parent_run_id,
            datetime.fromtimestamp(s.started_at, tz=timezone.utc),
            s.duration_ms,
            s.steps,
            s.total_tokens,
            s.total_cost_usd,
            dict(s.metadata),
        )
        for name, value in zip(SUMMARY_COLUMNS, row, strict=True):
            columns[name].append(value)
        for key in keys:
            meta[f"meta.{key}"].append(s.metadata.get(key))
    return pd.DataFrame({**columns, **meta}, columns=[*SUMMARY_COLUMNS, *meta])


def _store_frame(store: TraceStore, **filters: Any) -> pandas.DataFrame:
    return summaries_to_dataframe(store.summaries(**filters))


RENDERERS: dict[str, Renderers] = {
    "selectools.observe.trace_store.TraceStore": {"dataframe": _store_frame},
}
