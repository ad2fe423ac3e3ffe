"""``%%agent`` / ``%agent``: from the magic's options and cell to an agent, a prompt and where to store the result.

Everything is checked before the run starts (variables exist, options fit
together, the core supports what was asked), so a mistake costs one error line
and leaves the notebook as it was.
"""

from __future__ import annotations

import contextlib
import keyword
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .._view._components import error_line
from ..agent import Agent, AgentConfig
from ..exceptions import SelectoolsError
from ..tools import ToolLike
from ._interpolate import interpolate
from ._options import ParsedLine, parse_budget
from .errors import NotebookUsageError
from .providers import build_provider
from .state import NotebookState

if TYPE_CHECKING:
    from ..guardrails import GuardrailsPipeline

__all__ = ["BUILTIN_GUARDRAILS", "AgentRequest", "cell_budget", "cell_guardrails", "prepare_run"]

#: ``--guardrails`` names that need no configuration (anything else is a notebook variable)
BUILTIN_GUARDRAILS = ("pii", "toxicity", "injection")

#: options that describe an agent to build, so they cannot go with an existing one
_BUILD_OPTIONS = ("provider", "model", "tools", "system", "memory", "max_iterations")


@dataclass
class AgentRequest:
    """A checked request to run: the agent, the interpolated prompt and output choices."""

    agent: Agent
    prompt: str
    response_format: Any = None
    output_format: str = "text"
    output: str | None = None
    #: ``--guardrails`` for this cell, on top of the agent's own
    guardrails: GuardrailsPipeline | None = None
    #: ``--budget`` (or the ``budget`` setting): the run stops once it has cost this much
    budget: float | None = None


def prepare_run(
    magic: str,
    parsed: ParsedLine,
    prompt: str,
    state: NotebookState,
    namespace: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
) -> AgentRequest:
    """Validate the options and build (or find) the agent; raises :class:`NotebookUsageError`."""
    options = parsed.options
    limit = state.settings.context_limit
    text = interpolate(prompt, namespace, where=magic, limit=limit).strip()
    if not text:
        raise NotebookUsageError(f"{magic}: the prompt is empty; write it in the cell")
    output = options["output"]
    if output is not None and (not output.isidentifier() or keyword.iskeyword(output)):
        raise NotebookUsageError(f"{magic}: -o needs a variable name, got '{output}'")
    name = _agent_name(magic, parsed)
    if name is not None:
        given = [f"--{o.replace('_', '-')}" for o in _BUILD_OPTIONS if options[o] is not None]
        if given:
            raise NotebookUsageError(
                f"{magic}: {', '.join(given)} describe a new agent and cannot be used with "
                f"the existing agent '{name}'"
            )
        agent = _existing_agent(magic, name, namespace)
    else:
        agent = _build_agent(magic, options, state, namespace, environ)
    return AgentRequest(
        agent=agent,
        prompt=text,
        response_format=_response_format(magic, options["response_format"], namespace),
        output_format=options["format"] or "text",
        output=output,
        guardrails=_guardrails(magic, options["guardrails"], namespace),
        budget=(
            parse_budget(f"{magic}: --budget", options["budget"])
            if options["budget"] is not None
            else state.settings.budget
        ),
    )


def _guardrails(
    magic: str, spec: str | None, namespace: Mapping[str, Any]
) -> GuardrailsPipeline | None:
    """``--guardrails a,b``: built-in names, or variables holding a Guardrail or a pipeline."""
    if spec is None:
        return None
    from ..guardrails import (
        Guardrail,
        GuardrailsPipeline,
        PIIGuardrail,
        PromptInjectionGuardrail,
        ToxicityGuardrail,
    )

    builtins = {
        "pii": PIIGuardrail,
        "toxicity": ToxicityGuardrail,
        "injection": PromptInjectionGuardrail,
    }
    inputs: list[Any] = []
    outputs: list[Any] = []
    for name in (part.strip() for part in spec.split(",")):
        if not name:
            continue
        value = namespace.get(name)
        if isinstance(value, GuardrailsPipeline):
            inputs += value.input
            outputs += value.output
        elif isinstance(value, Guardrail):
            inputs.append(value)
        elif name in builtins:
            inputs.append(builtins[name]())
        else:
            mine = sorted(
                k
                for k, v in namespace.items()
                if isinstance(v, (Guardrail, GuardrailsPipeline)) and k[0] != "_"
            )
            known = ", ".join([*BUILTIN_GUARDRAILS, *mine])
            raise NotebookUsageError(
                f"{magic}: unknown guardrail '{name}'; use one of: {known} "
                "(or a variable holding a Guardrail or a GuardrailsPipeline)"
            )
    return GuardrailsPipeline(input=inputs, output=outputs)


@contextlib.contextmanager
def cell_guardrails(agent: Agent, extra: GuardrailsPipeline | None) -> Iterator[None]:
    """Run with ``extra`` guardrails added to the agent's own, for this cell only."""
    if extra is None:
        yield
        return
    from ..guardrails import GuardrailsPipeline

    config = agent.config
    own = config.guardrails
    merged = GuardrailsPipeline(
        input=[*(own.input if own is not None else ()), *extra.input],
        output=[*(own.output if own is not None else ()), *extra.output],
    )
    agent.config = replace(config, guardrails=merged)
    try:
        yield
    finally:
        agent.config = config


@contextlib.contextmanager
def cell_budget(agent: Agent, budget: float | None) -> Iterator[None]:
    """Run with the core's cost limit (``max_cost_usd``) at ``budget``, for this cell only.

    An agent's own, lower limit still holds.
    """
    config = agent.config
    if budget is None or (config.max_cost_usd is not None and config.max_cost_usd <= budget):
        yield
        return
    agent.config = replace(config, max_cost_usd=budget)
    try:
        yield
    finally:
        agent.config = config


def _agent_name(magic: str, parsed: ParsedLine) -> str | None:
    named = parsed.options["agent"]
    positional = parsed.positional[0] if parsed.positional else None
    if named and positional and named != positional:
        raise NotebookUsageError(
            f"{magic}: two agents given ('{positional}' and --agent {named}); give one"
        )
    return named or positional


def _existing_agent(magic: str, name: str, namespace: Mapping[str, Any]) -> Agent:
    value = namespace.get(name)
    if isinstance(value, Agent):
        return value
    agents = sorted(k for k, v in namespace.items() if isinstance(v, Agent) and k[0] != "_")
    found = f"Agent variables: {', '.join(agents)}" if agents else "the notebook has no Agent"
    what = "is not defined" if name not in namespace else f"is a {type(value).__name__}"
    raise NotebookUsageError(f"{magic}: '{name}' {what}, not an Agent ({found})")


def _tools(
    magic: str, spec: str | None, state: NotebookState, namespace: Mapping[str, Any]
) -> list[Any]:
    if spec is None:
        return list(state.tools.values())
    tools = []
    for name in (part.strip() for part in spec.split(",")):
        if not name:
            continue
        value = state.tools.get(name, namespace.get(name))
        if isinstance(value, ToolLike) or (callable(value) and not isinstance(value, type)):
            tools.append(value)
            continue
        known = ", ".join(state.tools) or "none yet (define them with %%tool)"
        raise NotebookUsageError(f"{magic}: unknown tool '{name}'; notebook tools: {known}")
    return tools


def _memory(magic: str, name: str, state: NotebookState) -> Any:
    from ..memory.conversation import ConversationMemory

    key = name or "default"
    if key not in state.memories:
        state.memories[key] = ConversationMemory()
    return state.memories[key]


def _build_agent(
    magic: str,
    options: dict[str, Any],
    state: NotebookState,
    namespace: Mapping[str, Any],
    environ: Mapping[str, str] | None,
) -> Agent:
    iterations = options["max_iterations"]
    if iterations is not None and iterations < 1:
        raise NotebookUsageError(f"{magic}: --max-iterations must be 1 or more, got {iterations}")
    tools = _tools(magic, options["tools"], state, namespace)
    system = options["system"]
    if system is not None:
        system = interpolate(
            system, namespace, where=f"{magic} --system", limit=state.settings.context_limit
        )
    provider = build_provider(options["provider"] or state.provider, namespace, environ)
    memory = _memory(magic, options["memory"], state) if options["memory"] is not None else None
    settings: dict[str, Any] = {"name": "notebook"}
    model = options["model"] or state.model
    if model:
        settings["model"] = model
    if iterations is not None:
        settings["max_iterations"] = iterations
    try:
        return Agent(
            tools=tools,
            provider=provider,
            config=AgentConfig(**settings),
            memory=memory,
            system_prompt=system,
        )
    except (SelectoolsError, TypeError, ValueError) as exc:
        raise NotebookUsageError(f"{magic}: cannot build the agent: {error_line(exc)}") from None


def _response_format(magic: str, name: str | None, namespace: Mapping[str, Any]) -> Any:
    if name is None:
        return None
    if name not in namespace:
        raise NotebookUsageError(
            f"{magic}: --response-format '{name}' is not defined in the notebook"
        )
    value = namespace[name]
    if not isinstance(value, (type, dict)):
        raise NotebookUsageError(
            f"{magic}: --response-format needs a class (such as a pydantic model) or a JSON "
            f"Schema dict; '{name}' is a {type(value).__name__}"
        )
    return value
