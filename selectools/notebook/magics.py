"""The magics ``%load_ext selectools`` registers: ``%selectools``, ``%%tool``, ``%%agent``/``%agent``.

Magics are thin: they parse their line, call the module that does the work and
turn a :class:`NotebookUsageError` into IPython's one-line ``UsageError`` (no
traceback). IPython's own ``{var}`` expansion of magic lines is switched off so
interpolation (and its error messages) are ours.
"""

from __future__ import annotations

import contextlib
import difflib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import (
    Magics,
    cell_magic,
    line_cell_magic,
    line_magic,
    magics_class,
    no_var_expand,
)
from traitlets import Enum, Float, Integer, Unicode, observe

from .._view._components import error_line
from ..exceptions import SelectoolsError
from ..guardrails._base import GuardrailError
from . import _frontend
from ._interpolate import DEFAULT_CONTEXT_LIMIT
from ._magic_options import AGENT_OPTIONS, TOOL_OPTIONS
from ._options import Option, parse_budget, parse_line
from .approvals import APPROVAL_RULES, notebook_approver
from .errors import NotebookUsageError
from .eval_cell import EVAL_OPTIONS
from .providers import PROVIDERS, provider_variables
from .state import NotebookState
from .status import Status, status

if TYPE_CHECKING:
    from ..run_ledger import Ledger
    from ..serve import ServerHandle
    from .builder_widget import BuilderWidget

__all__ = ["SelectoolsMagics"]

#: the settings ``%selectools k=v`` sets: each is a trait of SelectoolsMagics
_SETTINGS = ("provider", "model", "display", "approval", "budget", "context_limit")


@contextlib.contextmanager
def _usage_errors() -> Iterator[None]:
    """Bad input becomes one ``UsageError: ...`` line; nothing of our internals is shown."""
    try:
        yield
    except NotebookUsageError as exc:
        raise UsageError(str(exc)) from None


def _help(options: tuple[Option, ...]) -> str:
    """The option table, indented like the docstring it is appended to."""
    return "".join(" " * 10 + option.usage() + "\n" for option in options)


@magics_class
class SelectoolsMagics(Magics):
    """Define tools and run agents from notebook cells.

    Its traits are the notebook's defaults, configurable the IPython way:
    ``%config SelectoolsMagics.model = "gpt-4o-mini"`` in a cell,
    ``c.SelectoolsMagics.provider = "anthropic"`` in ``ipython_config.py``, or the
    short form ``%selectools model=gpt-4o-mini`` (which sets the same traits).
    """

    provider = Unicode(
        "auto",
        help="Provider for %%agent: a provider name (openai, anthropic, gemini, ollama, local, "
        "scripted, ...), auto (the first with an API key set, else local) or a provider variable.",
    ).tag(config=True)
    model = Unicode("", help="Model id for %%agent; empty for the provider's default.").tag(
        config=True
    )
    display = Enum(
        _frontend.DISPLAY_MODES,
        default_value="auto",
        help="How runs are shown: auto, live, text, or widget (a live widget with a Stop button).",
    ).tag(config=True)
    approval = Enum(
        APPROVAL_RULES,
        default_value="ask",
        help="Tool calls that need review: ask (an approval card), allow or deny.",
    ).tag(config=True)
    budget = Float(
        None,
        allow_none=True,
        help="Cost limit in USD for each %%agent run (the agent's max_cost_usd); None: no limit. "
        "%%agent --budget overrides it for one cell.",
    ).tag(config=True)
    context_limit = Integer(
        DEFAULT_CONTEXT_LIMIT,
        min=200,
        help="Characters a {variable} may take in a prompt (tables, arrays, long text are "
        "shown bounded, saying what was left out).",
    ).tag(config=True)

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell, **kwargs)
        self.state = NotebookState(settings=self)
        notebook_approver().set_rule(self.approval)

    @observe("approval")
    def _approval_changed(self, change: dict[str, Any]) -> None:
        notebook_approver().set_rule(change["new"])

    @property
    def _shell(self) -> Any:
        return self.shell

    def _cell_number(self) -> int | None:
        """The execution count of the cell running now (``In [n]``)."""
        running = getattr(self._shell.displayhook, "exec_result", None)
        return getattr(running, "execution_count", None)

    @property
    def _namespace(self) -> dict[str, Any]:
        namespace: dict[str, Any] = self._shell.user_ns
        return namespace

    # -- %selectools ----------------------------------------------------------------
    @no_var_expand
    @line_magic
    def selectools(self, line: str) -> Status | ServerHandle | BuilderWidget | Ledger | str | None:
        """Show or set the notebook's selectools defaults.

        %selectools                                     status: version, provider, model,
                                                        API keys found (never their values), tools
        %selectools provider=openai model=gpt-4o-mini   set defaults for %%agent
        %selectools provider=auto                       a provider whose key is set, else offline
        %selectools display=text                        print plain text (auto, live, text, or
                                                        widget: a live widget with a Stop button)
        %selectools approval=deny approval.read=allow   tool calls needing review: ask (a card),
                                                        allow or deny; per tool with approval.NAME
        %selectools budget=0.05                         stop each %%agent run at this cost (USD)
        %selectools context_limit=4000                  characters a {variable} may fill in a prompt
        %selectools ledger                              every run of the session as a table
        %selectools mcp NAME -- COMMAND ARGS...         attach a stdio MCP server: its tools
                                                        join the notebook's tools (--url URL for
                                                        streamable HTTP, --detach to stop it)
        %selectools serve AGENT [--port N] [--stop]     serve an agent in the background and
                                                        show its playground (serve_cell)
        %selectools builder GRAPH                       the visual builder bound to an AgentGraph
                                                        variable (as GRAPH.edit())

        The settings are the traits of SelectoolsMagics: `%config SelectoolsMagics` lists them,
        and c.SelectoolsMagics.model = "..." in ipython_config.py sets them for every session.

        Providers: openai, azure_openai, anthropic, gemini, ollama, local (offline echo), scripted
        (the notebook's ScriptedProvider), auto, or any provider variable.
        """
        if line.split(None, 1)[:1] == ["ledger"]:
            return self._ledger(line.strip()[6:].strip())
        if line.split(None, 1)[:1] == ["mcp"]:
            self._mcp(line.strip()[3:])
            return None
        if line.split(None, 1)[:1] == ["builder"]:
            return self._builder(line.strip()[7:].strip())
        if line.split(None, 1)[:1] == ["serve"]:
            from .serve_cell import serve_line

            with _usage_errors():
                return serve_line(line.strip()[5:], self._namespace)
        with _usage_errors():
            self._apply_settings(line)
        frontend = _frontend.detect(self.shell)
        return status(self.state, self._namespace, os.environ, frontend)

    def _ledger(self, rest: str) -> Ledger | None:
        """``%selectools ledger``: the session's runs; ``ledger clear`` empties it."""
        if rest == "clear":
            self.state.ledger.clear()
            return None
        if rest:
            raise UsageError(
                f"%selectools ledger: unexpected '{rest}' (use ledger or ledger clear)"
            )
        return self.state.ledger

    def after_cell(self, result: Any) -> None:
        """After every cell: add the runs it left in the notebook to the ledger."""
        named: list[tuple[str | None, Any]] = [
            (k, v) for k, v in list(self._namespace.items()) if not k.startswith("_")
        ]
        named.append((None, getattr(result, "result", None)))
        self.state.ledger.record_all(named, getattr(result, "execution_count", None))

    def _builder(self, name: str) -> BuilderWidget:
        """``%selectools builder VAR``: the visual builder bound to the graph in VAR."""
        from ..orchestration import AgentGraph
        from .builder_widget import BuilderWidget

        with _usage_errors():
            graph = self._namespace.get(name)
            if not name.isidentifier() or not isinstance(graph, AgentGraph):
                raise NotebookUsageError(
                    f"%selectools builder VAR: {name!r} is not a notebook variable holding an "
                    "AgentGraph"
                )
            return BuilderWidget(graph, var=name, shell=self.shell)

    def _mcp(self, rest: str) -> None:
        """``%selectools mcp ...``: attach, detach or list MCP servers (see mcp_attach)."""
        from .._display import mimebundle
        from .mcp_attach import attach_mcp, detach_mcp, parse_mcp_line

        with _usage_errors():
            action, target = parse_mcp_line(rest)
            if action == "list":
                attached = [repr(a) for a in self.state.mcp.values()]
                print(
                    "\n".join(attached) or "no MCP servers attached (%selectools mcp NAME -- CMD)"
                )
                return
            if action == "detach":
                detach_mcp(self.state, target)
                print(f"detached MCP server '{target}'")
                return
            try:
                tools = attach_mcp(self.state, target)
            except SelectoolsError as exc:
                raise NotebookUsageError(f"%selectools mcp: {error_line(exc)}") from None
        for made in tools:
            _frontend.show(self.shell, mimebundle(made), self.state.display)

    def _apply_settings(self, line: str) -> None:
        """``k=v`` words set the traits (all checked first, so a typo changes nothing)."""
        changes: dict[str, Any] = {}
        rules: list[tuple[str, str]] = []
        for item in line.split():
            key, sep, value = item.partition("=")
            if sep and key.startswith("approval."):
                rules.append((self._check_setting("approval", value), key.partition(".")[2]))
                continue
            if not sep:
                raise NotebookUsageError(
                    f"%selectools: expected key=value, got '{item}' (keys: {', '.join(_SETTINGS)})"
                )
            if key not in _SETTINGS:
                close = difflib.get_close_matches(key, _SETTINGS, n=1)
                hint = f" (did you mean {close[0]}?)" if close else ""
                raise NotebookUsageError(
                    f"%selectools: unknown setting '{key}'{hint}; settings: {', '.join(_SETTINGS)}"
                )
            changes[key] = self._check_setting(key, value)
        for key, setting in changes.items():
            setattr(self, key, setting)
        for rule, tool in rules:
            notebook_approver().set_rule(rule, tool)

    def _check_setting(self, key: str, value: str) -> Any:
        """``value`` as the trait ``key`` takes it, or a usage error saying what fits."""
        if key == "model":
            return "" if value == "default" else value
        if key == "budget":
            return parse_budget("%selectools: budget", value)
        if key == "context_limit":
            minimum = SelectoolsMagics.context_limit.min
            if not value.isdigit() or int(value) < minimum:
                raise NotebookUsageError(
                    f"%selectools: context_limit must be a whole number of characters, at least "
                    f"{minimum}; got '{value}'"
                )
            return int(value)
        if key in ("display", "approval"):
            choices = _frontend.DISPLAY_MODES if key == "display" else APPROVAL_RULES
            if value not in choices:
                raise NotebookUsageError(
                    f"%selectools: {key} must be one of {', '.join(choices)}, got '{value}'"
                )
            return value
        if value == "auto" or value in PROVIDERS or value in provider_variables(self._namespace):
            return value
        known = [*PROVIDERS, "auto", *provider_variables(self._namespace)]
        close = difflib.get_close_matches(value, known, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise NotebookUsageError(
            f"%selectools: unknown provider '{value}'{hint}; use one of {', '.join(known)}"
        )

    # -- %%graph ----------------------------------------------------------------------
    @no_var_expand
    @cell_magic
    def graph(self, line: str, cell: str) -> None:
        """Define an AgentGraph in the cell and, with --prompt, run it with the live graph view.

        %%graph [NAME] [--prompt TEXT] [--answer TEXT ...]
        Lines: `a -> b -> END` (edges), `a -> b : EXPR` (taken when EXPR over `state` is
        true), `team = [a, b]` (parallel group). Names are notebook variables. See
        selectools.notebook.graph_cell for interrupts and headless runs.
        """
        from .graph_cell import graph_magic

        with _usage_errors():
            try:
                graph_magic(line, cell, self._namespace, self.shell, self.state.display)
            except SelectoolsError as exc:
                raise NotebookUsageError(f"%%graph: the run failed: {error_line(exc)}") from None

    # -- %%tool -----------------------------------------------------------------------
    @no_var_expand
    @cell_magic
    def tool(self, line: str, cell: str) -> None:
        """Turn the functions defined in this cell into tools.

        Each public function (a name not starting with _) becomes a @tool: its
        description comes from the docstring, its schema from the type hints.
        The tool replaces the function in the notebook (still callable like it),
        joins the notebook's tool set used by %%agent, and keeps the cell source.
        Running the cell again replaces the tools.

        Options:
        """
        from .._display import mimebundle
        from ..tools import ToolOptions
        from .tool_cell import define_tools

        with _usage_errors():
            options = parse_line("%%tool", line, TOOL_OPTIONS).options
            compiler = self._shell.compile
            tools = define_tools(
                cell,
                self._namespace,
                ToolOptions(**options),
                filename=compiler.cache(cell, self._cell_number() or self._shell.execution_count),
                flags=compiler.flags,
            )
        for made in tools:
            self.state.tools[made.name] = made
            _frontend.show(self.shell, mimebundle(made), self.state.display)

    # -- %%agent / %agent -----------------------------------------------------------------
    @no_var_expand
    @line_cell_magic
    def agent(self, line: str, cell: str | None = None) -> Any:
        """Run an agent on the cell (or the rest of the line), streaming live.

        %%agent [NAME] [options]      the cell is the prompt; {var} inserts a notebook variable
        %agent [options] PROMPT       one-line form

        Without NAME or --agent an agent is built from the options, the %selectools
        defaults and every %%tool tool. The output streams text and tool cards and
        ends with the rendered result; its metadata records model, provider, tokens,
        cost, latency and trace id.

        Options:
        """
        from .agent_cell import cell_budget, cell_guardrails, prepare_run
        from .approvals import card_host, cell_approvals
        from .live import run_live, widget_surface_available

        magic = "%agent" if cell is None else "%%agent"
        with _usage_errors():
            if cell is None:
                parsed = parse_line(magic, line, AGENT_OPTIONS, text_rest=True)
                prompt = parsed.rest
                if not prompt:
                    raise NotebookUsageError(
                        "%agent: give a prompt after the options (or use %%agent and write it "
                        "in the cell)"
                    )
            else:
                parsed = parse_line(magic, line, AGENT_OPTIONS, positional=1)
                prompt = cell
            request = prepare_run(magic, parsed, prompt, self.state, self._namespace)

            surface: Any = None
            host: Any = None
            if parsed.options["background"] and _frontend.detect(self.shell) == "live":
                # opened now: once the cell has ended only display updates reach it
                if self.state.display == "widget" and widget_surface_available():
                    from .live_widget import WidgetSurface

                    surface = WidgetSurface()
                    host = surface.cards
                else:
                    surface = _frontend.BackgroundSurface(self.shell)
                    surface.start()
                    host = card_host()

            cell_number = self._cell_number()

            def go(token: Any = None) -> Any:
                if token is not None and hasattr(surface, "widget"):
                    surface.widget.token = token  # its Stop button cancels this run
                with (
                    cell_budget(request.agent, request.budget),
                    cell_guardrails(request.agent, request.guardrails),
                    cell_approvals(request.agent, host),
                ):
                    try:
                        ran = run_live(
                            request.agent,
                            request.prompt,
                            response_format=request.response_format,
                            output_format=request.output_format,
                            shell=self.shell,
                            display=self.state.display,
                            cancellation_token=token,
                            surface=surface,
                        )
                        self.state.ledger.record(ran, cell_number, request.agent.name)
                        return ran
                    finally:
                        if host is not None:
                            host.settle()  # the saved notebook keeps the cards' records

            if parsed.options["background"]:
                from ..agent.background import RunHandle

                handle = RunHandle(go, request.agent.name)
                if request.output is not None:
                    self._namespace[request.output] = handle
                return handle
            try:
                result = go()
            except NotebookUsageError:
                raise
            except GuardrailError:
                return None  # the view shows the block, once: a safety rule held, no misuse
            except SelectoolsError as exc:
                raise NotebookUsageError(f"{magic}: the run failed: {error_line(exc)}") from None
        if request.output is not None:
            self._namespace[request.output] = result

    # -- %%eval ----------------------------------------------------------------------------
    @no_var_expand
    @cell_magic
    def eval(self, line: str, cell: str) -> None:
        """Run the test cases written in the cell (a YAML list or CSV) against an agent.

        %%eval --agent NAME -o report --baseline NAME

        Shows a progress bar, then the report (failing rows expand to the output
        and the trace); with --baseline the comparison with eval_baselines/NAME.json.

        Options:
        """
        from .eval_cell import run_eval_cell

        with _usage_errors():
            report, _ = run_eval_cell(line, cell, self._namespace)
            self.state.ledger.record(report, self._cell_number())
            output = parse_line("%%eval", line, EVAL_OPTIONS).options.get("output")
        if output:
            self._namespace[output] = report


def _document() -> None:
    """Append the option lists to the magics' docstrings (shown by ``%%agent?``)."""
    for method, options in (
        (SelectoolsMagics.tool, TOOL_OPTIONS),
        (SelectoolsMagics.agent, AGENT_OPTIONS),
        (SelectoolsMagics.eval, EVAL_OPTIONS),
    ):
        if method.__doc__ is not None:
            method.__doc__ = method.__doc__.rstrip() + "\n" + _help(options)


_document()
