"""Views of the core types, registered with the display port in one table.

``VIEWS`` maps a core type's qualified name to the view module holding its
renderers (that module's ``RENDERERS[name]``: ``"text"`` and ``"html"`` always,
plus ``"dataframe"``, ``"gantt"``, ``"chart"``, ``"svg"`` ... where the type offers
them). Types are named, not imported, so showing a ``Message`` loads neither
``Agent`` nor any other view. The front door (``selectools/__init__.py``) hands
:func:`lookup` to :func:`selectools._display.install`; adding a displayable type
is one row here and its renderers in a view module.

Everything here is plain string building over public attributes with no IPython
import; pandas and plotly are imported inside the chart functions only, with an
error naming the ``notebook`` extra when missing. The IPython glue (magics,
live view, frontend detection) is :mod:`selectools.notebook`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._display import Renderers

__all__ = ["VIEWS", "lookup"]

#: qualified type name -> view module (relative to this package) with its renderers
VIEWS: dict[str, str] = {
    "selectools.types.AgentResult": ".core",
    "selectools.types.Message": ".core",
    "selectools.types.ToolCall": ".core",
    "selectools.usage.UsageStats": ".core",
    "selectools.usage.AgentUsage": ".core",
    "selectools.trace.AgentTrace": ".trace",
    "selectools.trace.TraceStep": ".trace",
    "selectools.agent.core.Agent": ".agent",
    "selectools.tools._tool.Tool": ".agent",
    "selectools.pipeline._pipeline.Pipeline": ".pipeline",
    "selectools.pipeline._pipeline.StepResult": ".pipeline",
    "selectools.orchestration.graph.AgentGraph": ".graph_view",
    "selectools.orchestration.graph.GraphResult": ".graph_view",
    "selectools.rag.document.SearchResults": ".rag",
    "selectools.rag.vector_store.VectorStore": ".rag",
    "selectools.evals.report.EvalReport": ".evals",
    "selectools.evals.regression.RegressionResult": ".evals",
    "selectools.evals.runs.EvalRuns": ".eval_runs",
    "selectools.evals.runs.RunDiff": ".eval_runs",
    "selectools.evals.dashboard.DashboardServer": ".servers",
    "selectools.serve.app.ServerHandle": ".servers",
    "selectools.scheduler._scheduler.AgentScheduler": ".scheduler",
    "selectools.memory.entity.EntityMemory": ".memory",
    "selectools.memory.knowledge._memory.KnowledgeMemory": ".memory",
    "selectools.memory.knowledge_graph._memory.KnowledgeGraphMemory": ".memory",
    "selectools.observe.trace_store.TraceStore": ".traces",
    "selectools.audit.AuditLog": ".audit",
    "selectools.run_ledger.Ledger": ".ledger",
}


def lookup(qualname: str) -> Renderers | None:
    """The renderers of the type named ``qualname``, or None when it has no row."""
    module = VIEWS.get(qualname)
    if module is None:
        return None
    renderers: Renderers = import_module(module, __name__).RENDERERS[qualname]
    return renderers
