"""``%%eval``: test cases written in the cell (YAML or CSV), run against a notebook agent.

    %%eval --agent support -o report --baseline support
    - input: Cancel my plan
      expect_tool: cancel
    - input: Hi
      expect_starts_with: Hello

The suite runs on a worker thread while the cell's own thread redraws one
progress output (display updates from the cell's thread always reach the right
cell); then the report is shown, and with ``--baseline NAME`` the comparison
with the baseline kept in ``eval_baselines/NAME.json`` next to the notebook
(the kernel's working folder). A first run saves the baseline; ``--save``
replaces it after a run that did not regress.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._view.evals import progress_html
from ._options import Option, parse_line
from .errors import NotebookUsageError

__all__ = ["BASELINE_DIR", "EVAL_OPTIONS", "EvalProgress", "run_eval", "run_eval_cell"]

BASELINE_DIR = "eval_baselines"

EVAL_OPTIONS = (
    Option("--agent", metavar="NAME", help="the Agent variable to evaluate (default: agent)"),
    Option(
        "--format", metavar="FORMAT", choices=("yaml", "csv"), help="yaml or csv (default: guessed)"
    ),
    Option("--concurrency", metavar="N", integer=True, help="cases run at once (default 4)"),
    Option(
        "--baseline", metavar="NAME", help=f"compare with {BASELINE_DIR}/NAME.json (saved if new)"
    ),
    Option("--save", kind="flag", help="replace the baseline after a run that did not regress"),
    Option("--name", metavar="NAME", help="suite name (default: the agent variable)"),
    Option("--output", short="-o", metavar="NAME", help="store the EvalReport in this variable"),
)


class EvalProgress:
    """One notebook output showing ``done/total``, redrawn from the cell's thread."""

    def __init__(self, total: int) -> None:
        from IPython.display import display

        self.total = total
        self.done = 0
        self.redraws = 0
        self._handle: Any = display(self._bundle(), raw=True, display_id=True)

    def _bundle(self) -> dict[str, str]:
        return {
            "text/html": progress_html(self.done, self.total),
            "text/plain": f"{self.done}/{self.total} cases",
        }

    def __call__(self, done: int, total: int) -> None:  # on_progress, from any thread
        self.done = done

    def redraw(self) -> None:
        self.redraws += 1
        self._handle.update(self._bundle(), raw=True)

    def __repr__(self) -> str:
        return f"EvalProgress({self.done}/{self.total})"


def run_eval(suite: Any, *, interval: float = 0.1) -> Any:
    """Run ``suite`` with a live progress bar in the cell; returns the EvalReport."""
    progress = EvalProgress(len(suite.cases))
    outcome: dict[str, Any] = {}
    user_callback = suite.on_progress

    def on_progress(done: int, total: int) -> None:
        progress(done, total)
        if user_callback is not None:
            user_callback(done, total)

    def work() -> None:
        try:
            outcome["report"] = suite.run()
        except BaseException as exc:  # handed to the cell's thread below
            outcome["error"] = exc

    suite.on_progress = on_progress
    worker = threading.Thread(target=work, name="selectools-eval-cell", daemon=True)
    try:
        worker.start()
        while worker.is_alive():
            worker.join(interval)
            progress.redraw()
        progress.redraw()  # the final count, however fast the run was
    finally:
        suite.on_progress = user_callback
    if "error" in outcome:
        raise outcome["error"]
    return outcome["report"]


def _cases(cell: str, fmt: str | None) -> list[Any]:
    from ..evals.dataset import DatasetLoader

    text = cell.strip("\n")
    if not text.strip():
        raise NotebookUsageError("%%eval: write the test cases in the cell (YAML list or CSV)")
    first = text.lstrip().splitlines()[0]
    guessed = "csv" if fmt is None and first.startswith("input,") else (fmt or "yaml")
    parse = DatasetLoader.parse_csv if guessed == "csv" else DatasetLoader.parse_yaml
    return parse(text + "\n", f"%%eval cell ({guessed})")


def run_eval_cell(
    line: str, cell: str, namespace: Mapping[str, Any] | dict[str, Any]
) -> tuple[Any, Any]:
    """Parse, run and show one ``%%eval`` cell; returns (report, regression result or None)."""
    from IPython.display import display

    from ..agent.core import Agent
    from ..evals import BaselineStore, EvalError, EvalSuite

    options = parse_line("%%eval", line, EVAL_OPTIONS).options
    name = options.get("agent") or "agent"
    agent = namespace.get(name)
    if not isinstance(agent, Agent):
        what = "is not defined" if agent is None else f"is a {type(agent).__name__}, not an Agent"
        raise NotebookUsageError(f"%%eval: '{name}' {what}; pass --agent NAME of an Agent variable")
    try:
        cases = _cases(cell, options.get("format"))
    except EvalError as exc:
        raise NotebookUsageError(str(exc)) from None
    suite = EvalSuite(
        agent,
        cases,
        max_concurrency=options.get("concurrency") or 4,
        name=options.get("name") or name,
    )
    report = run_eval(suite)
    display(report)
    regression = None
    baseline = options.get("baseline")
    if baseline:
        store = BaselineStore(Path.cwd() / BASELINE_DIR)
        try:
            regression = store.compare(report, baseline)
        except EvalError as exc:
            raise NotebookUsageError(f"%%eval: {exc}") from None
        display(regression)
        if not regression.has_baseline or (options.get("save") and not regression.is_regression):
            path = store.save(report, baseline)
            print(f"saved baseline {BASELINE_DIR}/{path.name}")
    elif options.get("save"):
        raise NotebookUsageError("%%eval: --save needs --baseline NAME")
    return report, regression
