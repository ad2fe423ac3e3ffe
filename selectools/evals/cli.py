"""``python -m selectools.evals run|compare``: run a dataset against an agent from the shell.

``run`` prints the summary and writes the requested reports; ``compare`` also
checks the run against the baseline in ``--baseline DIR`` and exits 1 on a
regression (``--save`` then stores the run as the new baseline only when it did
not regress). A missing or malformed dataset exits 2 with ``file:line: what was
expected``. The agent is ``--agent module:name`` (your agent, with its tools) or
a tool-less agent on ``--provider``/``--model`` (default: the offline ``local``
provider).

``--snapshots DIR`` runs in snapshot mode (a changed output fails its case and
exits 1; ``--update-snapshots`` accepts it). ``--github-output FILE`` appends
the numbers as GitHub step outputs and ``--comment FILE`` writes the
pull-request comment: what ``.github/actions/eval`` uses. ``--dashboard``
serves the live page on 127.0.0.1 while the cases run (its URL, with the
token, goes to stderr) and, on a terminal, until Enter is pressed.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any, TextIO

from .case import EvalError
from .dataset import DatasetLoader

__all__ = ["ProgressBar", "main"]

EXIT_OK, EXIT_REGRESSION, EXIT_USAGE = 0, 1, 2


class ProgressBar:
    """``[#####.....] 50/100`` on a terminal (redrawn in place), a line per 10% otherwise."""

    def __init__(self, stream: TextIO, width: int = 30) -> None:
        self.stream = stream
        self.width = width
        self.tty = stream.isatty()
        self._last_decile = -1

    def __call__(self, done: int, total: int) -> None:
        share = done / total if total else 1.0
        filled = int(share * self.width)
        bar = f"[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} ({share:.0%})"
        if self.tty:
            self.stream.write("\r" + bar + ("\n" if done == total else ""))
            self.stream.flush()
            return
        decile = int(share * 10)
        if decile != self._last_decile:
            self._last_decile = decile
            self.stream.write(bar + "\n")
            self.stream.flush()


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Run selectools eval datasets.")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (("run", "run a dataset"), ("compare", "run and compare with a baseline")):
        cmd = commands.add_parser(name, help=text)
        cmd.add_argument("cases", help="dataset file: .json, .jsonl, .yaml/.yml or .csv")
        cmd.add_argument("--agent", help="your agent, as module:name or path/to/file.py:name")
        cmd.add_argument("--provider", default="local", help="provider name (default: local)")
        cmd.add_argument("--model", default="", help="model id for the provider")
        cmd.add_argument("--name", help="suite name (default: the dataset's file name)")
        cmd.add_argument("--html", metavar="PATH", help="write the interactive HTML report")
        cmd.add_argument("--junit", metavar="PATH", help="write JUnit XML for CI")
        cmd.add_argument("--json", metavar="PATH", help="write the JSON report")
        cmd.add_argument("--concurrency", type=int, default=1, help="cases run at once")
        cmd.add_argument("--executor", choices=["local", "ray"], default="local")
        cmd.add_argument("--baseline", metavar="DIR", help="baseline folder")
        cmd.add_argument("--save", action="store_true", help="save the run as the baseline")
        cmd.add_argument(
            "--fail-under", type=float, metavar="ACC", help="exit 1 below this accuracy"
        )
        cmd.add_argument("--snapshots", metavar="DIR", help="snapshot mode: outputs recorded here")
        cmd.add_argument(
            "--update-snapshots", action="store_true", help="accept changed outputs as snapshots"
        )
        cmd.add_argument(
            "--github-output", metavar="FILE", help="append step outputs ($GITHUB_OUTPUT)"
        )
        cmd.add_argument("--comment", metavar="FILE", help="write the PR comment (Markdown)")
        cmd.add_argument(
            "--dashboard", action="store_true", help="follow the run live in a browser page"
        )
        cmd.add_argument(
            "--dashboard-port", type=int, default=0, metavar="PORT", help="(default: a free one)"
        )
        cmd.add_argument("--verbose", "-v", action="store_true", help="print every case")
        cmd.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    return parser


def _load_object(spec: str) -> Any:
    target, _, attribute = spec.rpartition(":")
    if not target or not attribute:
        raise EvalError(f"--agent {spec!r}: expected module:name or path/to/file.py:name")
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise EvalError(f"--agent {spec!r}: no such file {target}")
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        if module_spec is None or module_spec.loader is None:
            raise EvalError(f"--agent {spec!r}: cannot import {target}")
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(target)
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise EvalError(f"--agent {spec!r}: {target} has no {attribute!r}") from None


def _provider(name: str) -> Any:
    from ..providers._specs import SPECS, provider_spec

    spec = provider_spec(name)
    if spec is None:
        raise EvalError(f"--provider {name!r}: unknown provider; choose from {', '.join(SPECS)}")
    module = importlib.import_module(f"selectools.providers.{spec.module}")
    return getattr(module, spec.class_name)()


def _agent(args: argparse.Namespace) -> Any:
    from ..agent.config import AgentConfig
    from ..agent.core import Agent

    if args.agent:
        agent = _load_object(args.agent)
        if callable(agent) and not isinstance(agent, Agent):
            agent = agent()
        if not isinstance(agent, Agent):
            raise EvalError(f"--agent {args.agent!r} is a {type(agent).__name__}, not an Agent")
        return agent
    config = AgentConfig(model=args.model) if args.model else AgentConfig()
    return Agent(provider=_provider(args.provider), config=config)


def _executor(name: str) -> Any:
    if name == "ray":
        from .executors import RayExecutor

        return RayExecutor()
    return None


def _run(suite: Any, args: argparse.Namespace, err: TextIO) -> Any:
    """``suite.run()``, followed by the live dashboard when ``--dashboard`` asks for it."""
    if not args.dashboard:
        return suite.run()
    from .dashboard import EvalDashboard

    try:
        server = EvalDashboard(suite).serve(port=args.dashboard_port)
    except OSError as exc:
        raise EvalError(f"--dashboard: {exc}; pick another --dashboard-port") from None
    with server:
        err.write(f"dashboard: {server.url}\n")
        err.flush()
        report = suite.run()
        if sys.stdin is not None and sys.stdin.isatty():
            err.write("the dashboard shows the finished run; press Enter to stop it\n")
            sys.stdin.readline()
    return report


def main(argv: list[str] | None = None, prog: str = "python -m selectools.evals") -> int:
    """The eval command line (``python -m selectools.evals`` and ``selectools eval``)."""
    args = _parser(prog).parse_args(argv)
    out, err = sys.stdout, sys.stderr
    if args.update_snapshots and not args.snapshots:
        err.write("error: --update-snapshots needs --snapshots DIR\n")
        return EXIT_USAGE
    try:
        cases = DatasetLoader.load(args.cases)
        agent = _agent(args)
    except EvalError as exc:
        err.write(f"error: {exc}\n")
        return EXIT_USAGE
    from .suite import EvalSuite

    suite = EvalSuite(
        agent,
        cases,
        max_concurrency=max(1, args.concurrency),
        on_progress=None if args.quiet else ProgressBar(err),
        executor=_executor(args.executor),
        name=args.name or Path(args.cases).stem,
        snapshots=args.snapshots,
        update_snapshots=args.update_snapshots,
    )
    try:
        report = _run(suite, args, err)
    except EvalError as exc:
        err.write(f"error: {exc}\n")
        return EXIT_USAGE
    if args.verbose:
        for index, case_result in enumerate(report.results, 1):
            out.write(
                f"{index:>4} {case_result.verdict.value.upper():<5} {case_result.case.label}"
                f"  ({case_result.latency_ms:.0f} ms)\n"
            )
            for failure in case_result.failures:
                out.write(f"       {failure.evaluator}: {failure.message}\n")
    out.write(report.summary() + "\n")
    for path, writer in (
        (args.html, report.to_html),
        (args.junit, report.to_junit_xml),
        (args.json, report.to_json),
    ):
        if path:
            writer(path)
            out.write(f"wrote {path}\n")
    code = EXIT_OK
    if args.fail_under is not None and report.accuracy < args.fail_under:
        out.write(f"accuracy {report.accuracy:.1%} is under {args.fail_under:.1%}\n")
        code = EXIT_REGRESSION
    if report.snapshots is not None and not report.snapshots.ok:
        out.write(report.snapshots.summary() + "\n")
        code = EXIT_REGRESSION
    result = None
    if args.command == "compare" or args.baseline:
        from .regression import BaselineStore

        store = BaselineStore(args.baseline or "baselines")
        try:
            result = store.compare(report)
        except EvalError as exc:
            err.write(f"error: {exc}\n")
            return EXIT_USAGE
        out.write(result.summary() + "\n")
        if result.is_regression:
            code = EXIT_REGRESSION
        elif args.save:
            out.write(f"saved baseline {store.save(report)}\n")
    elif args.save:
        err.write("error: --save needs --baseline DIR\n")
        return EXIT_USAGE
    if args.comment or args.github_output:
        from .._storage import atomic_write_text
        from .github import action_outputs, comment_markdown, write_github_output

        comment = comment_markdown(report, result)
        if args.comment:
            atomic_write_text(args.comment, comment)
        if args.github_output:
            write_github_output(args.github_output, action_outputs(report, result, comment))
    return code
