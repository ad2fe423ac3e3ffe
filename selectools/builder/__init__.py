"""Workflows of the visual builder: a document you can check, save, export and run.

A workflow is JSON data (the shape is in ``docs/builder.md``): START, Agent,
Loop, Subgraph, Human Input, Agent Tool, Note and END nodes joined by typed
edges. This package turns it into everything else, and back:

- :func:`validate` / :func:`check`: limits, field types and the port-type rule;
  :class:`WorkflowError` says what and where;
- :func:`to_yaml` / :func:`from_yaml`: the same tree as YAML (``yaml.safe_load``);
- :func:`to_python` / :func:`from_python`: a runnable ``AgentGraph`` script, read
  back with ``ast`` (never executed); :func:`import_text` takes either;
- :func:`to_graph` / :func:`from_graph`: the ``AgentGraph`` itself;
- :func:`templates` / :func:`template` / :func:`example`: the starter workflows.

Nothing here is imported by ``import selectools``; the server lives in
:mod:`selectools.serve._builder_app`.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from ._codegen import to_python
from ._document import LIMITS, Problem, WorkflowError, check, compatible, validate
from ._graph import from_graph, to_graph
from ._pyimport import from_python, layout
from ._trace import trace_steps
from ._yaml import from_yaml, to_yaml

__all__ = [
    "LIMITS",
    "TEMPLATES",
    "Problem",
    "WorkflowError",
    "check",
    "code_view",
    "compatible",
    "example",
    "from_graph",
    "from_python",
    "from_yaml",
    "import_text",
    "layout",
    "template",
    "templates",
    "to_graph",
    "to_python",
    "to_yaml",
    "trace_steps",
    "validate",
]

#: the starter workflows, in the File → Templates menu's order: name → (title, description)
TEMPLATES = {
    "simple_chatbot": ("Simple Chatbot", "One agent that answers the user."),
    "researcher_writer": (
        "Researcher + Writer",
        "A researcher gathers facts; a writer turns them into prose.",
    ),
    "rag_pipeline": ("RAG Pipeline", "Rewrite the question, retrieve passages, answer from them."),
    "reviewer_loop": ("Reviewer Loop", "A writer drafts, a reviewer checks; loop until approved."),
    "hitl_approval": ("HITL Approval", "An agent drafts; a human approves or sends it back."),
    "multi_model_panel": ("Multi-Model Panel", "Three models answer in turn; a judge merges them."),
    "chain_of_thought": ("Chain of Thought", "Plan, reason step by step, then answer."),
}


def _data(name: str) -> dict[str, Any]:
    text = (
        resources.files(__name__).joinpath("templates").joinpath(f"{name}.yaml").read_text("utf-8")
    )
    return from_yaml(text)


def templates() -> list[dict[str, str]]:
    """The starter workflows: ``name``, ``title`` and ``description`` of each, in menu order."""
    return [{"name": n, "title": t, "description": d} for n, (t, d) in TEMPLATES.items()]


def template(name: str) -> dict[str, Any]:
    """One starter workflow by name (:func:`templates` lists them); KeyError for others."""
    if name not in TEMPLATES:
        raise KeyError(f"no template {name!r}; templates: {', '.join(TEMPLATES)}")
    return _data(name)


def example() -> dict[str, Any]:
    """The File → Load Example workflow: every node type in one graph."""
    return _data("example")


def code_view(doc: Any) -> dict[str, Any]:
    """The code panel of a workflow: ``{"python", "yaml", "errors": [{"node", "message"}]}``.

    Graph problems (an unconnected node) are listed and the code is still written;
    shape problems leave both texts empty.
    """
    filled, problems = check(doc)
    errors = [p.as_dict() for p in problems]
    python = yaml = ""
    if not any(p.fatal for p in problems):
        yaml = to_yaml(filled)
        try:
            python = to_python(filled)
        except WorkflowError as exc:
            errors.append({"node": exc.node, "message": exc.message})
    return {"python": python, "yaml": yaml, "errors": errors}


def import_text(text: str, format: str = "auto") -> dict[str, Any]:
    """A workflow from pasted text: ``"python"``, ``"yaml"`` (JSON is YAML too) or ``"auto"``."""
    if format not in ("auto", "python", "yaml"):
        raise WorkflowError(f"format must be auto, python or yaml; got {format!r}")
    if format == "auto":
        stripped = text.lstrip()
        looks_python = any(
            marker in text for marker in ("AgentGraph(", "\ndef ", "\nimport ", "\nfrom ")
        ) or stripped.startswith(("def ", "import ", "from ", '"""', "#!"))
        format = "python" if looks_python else "yaml"
    if format == "python":
        return from_python(text)
    return from_yaml(text)
