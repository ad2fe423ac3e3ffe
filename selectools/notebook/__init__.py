"""The Jupyter layer of selectools: the extension, magics, live streaming view and frontend glue.

``%load_ext selectools`` registers ``%selectools``, ``%%tool`` and ``%%agent``
(see :mod:`.magics`). Only IPython glue lives here; the renderings of the core
types and the trace charts are core code in :mod:`selectools._view`, which
nothing here is needed for. Names load lazily; ``trace_gantt`` and
``trace_to_dataframe`` are re-exported from the view package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "ApprovalCard",
    "Ledger",
    "LiveRun",
    "LiveRunWidget",
    "NotebookApprover",
    "NotebookUsageError",
    "SchedulerView",
    "ledger",
    "llm_view",
    "load_ipython_extension",
    "notebook_approver",
    "run_live",
    "show_scheduler",
    "trace_gantt",
    "trace_to_dataframe",
    "unload_ipython_extension",
]

_EXPORTS = {
    "ApprovalCard": ".approval_card",
    "Ledger": "selectools.run_ledger",
    "ledger": ".state",
    "llm_view": "._interpolate",
    "LiveRun": ".live",
    "LiveRunWidget": ".live_widget",
    "NotebookApprover": ".approvals",
    "notebook_approver": ".approvals",
    "NotebookUsageError": ".errors",
    "load_ipython_extension": ".extension",
    "run_live": ".live",
    "SchedulerView": ".scheduler",
    "show_scheduler": ".scheduler",
    "trace_gantt": "selectools._view.charts",
    "trace_to_dataframe": "selectools._view.charts",
    "unload_ipython_extension": ".extension",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'selectools.notebook' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .._view.charts import trace_gantt, trace_to_dataframe
    from ..run_ledger import Ledger
    from ._interpolate import llm_view
    from .approval_card import ApprovalCard
    from .approvals import NotebookApprover, notebook_approver
    from .errors import NotebookUsageError
    from .extension import load_ipython_extension, unload_ipython_extension
    from .live import LiveRun, run_live
    from .live_widget import LiveRunWidget
    from .scheduler import SchedulerView, show_scheduler
    from .state import ledger
