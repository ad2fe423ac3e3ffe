"""Composable pipelines of plain functions: ``@step``, ``|``, ``parallel``, ``branch``, ``retry``, ``cache_step``.

Why this package is small: a pipeline is a list of steps called in order, each
receiving the previous output. ``|`` builds that list; nothing is compiled and a
``@step`` function stays an ordinary function (``f(x)`` calls it directly, so
``print`` and breakpoints work). What the wrapper adds is what plain composition
lacks: per-step tracing (name, status, duration), retries, ``on_error="skip"``,
build-time type-contract warnings between adjacent steps, async execution and
streaming of the last step.

An :class:`~selectools.Agent` can be a step: it receives the previous output as
its prompt (an ``AgentResult`` input is reduced to its ``content``) and outputs
the reply text; the full ``AgentResult`` is kept in the step's trace entry under
``"agent_result"``.

A pipeline is also an ``AgentGraph`` callable node: called with a graph state
(an object with a ``data`` dict and a ``messages`` list), it reads the handoff
value ``state.data["__last_output__"]`` (the last message's ``content`` when the
key is absent), runs, writes the output back under the same key and returns the
state. Called with anything else, ``pipeline(x)`` is ``pipeline.run(x).output``.

One module per concept:

- ``_step.py``: :class:`Step`, one function with its retry, error policy and trace;
- ``_kinds.py``: the composite steps (an agent, a nested pipeline, ``parallel``,
  ``branch``, a cached step);
- ``_effects.py``: what a step cannot do the same way blocking and awaiting (an
  async function, an agent, branches side by side), and how each is performed;
- ``_contracts.py``: the type-contract check between adjacent steps;
- ``_pipeline.py``: :class:`Pipeline` and :class:`StepResult`;
- ``_builders.py``: ``step``, ``parallel``, ``branch``, ``retry``, ``cache_step``.

Each step is written once, as an effect program (:mod:`selectools._driver`):
``run`` drives it blocking and ``arun`` on the event loop.
"""

from __future__ import annotations

from ..exceptions import PipelineError
from ._builders import branch, cache_step, parallel, retry, step
from ._contracts import PipelineTypeWarning
from ._pipeline import Pipeline, StepResult
from ._step import Step

__all__ = [
    "Pipeline",
    "PipelineError",
    "PipelineTypeWarning",
    "Step",
    "StepResult",
    "branch",
    "cache_step",
    "parallel",
    "retry",
    "step",
]
