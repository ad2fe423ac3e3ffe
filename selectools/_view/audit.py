"""The audit log as a table (pandas loaded on use)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._display import Renderers
from .charts import _require

if TYPE_CHECKING:
    import pandas

    from ..audit import AuditLog

__all__ = ["RENDERERS", "audit_to_dataframe"]


def audit_to_dataframe(log: AuditLog) -> pandas.DataFrame:
    """One row per record; ``ts`` parsed to UTC timestamps (needs pandas)."""
    pd = _require("pandas", "AuditLog.to_dataframe()")
    columns = ["ts", "event", "run_id"]
    for record in log.records:
        for key in record:
            if key not in columns:
                columns.append(key)
    frame = pd.DataFrame.from_records(log.records, columns=columns)
    if len(frame):
        frame["ts"] = pd.to_datetime(frame["ts"], utc=True, format="ISO8601")
    return frame


RENDERERS: dict[str, Renderers] = {"selectools.audit.AuditLog": {"dataframe": audit_to_dataframe}}
