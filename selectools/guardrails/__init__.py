"""Guardrails: validate content before (input) and after (output) every model call.

    from selectools.guardrails import GuardrailsPipeline, TopicGuardrail, PIIGuardrail

    pipeline = GuardrailsPipeline(
        input=[TopicGuardrail(deny=["politics"]), PIIGuardrail(action="rewrite")],
    )
    agent = Agent(tools=[...], config=AgentConfig(guardrails=pipeline))

Built in: :class:`TopicGuardrail`, :class:`PIIGuardrail`,
:class:`ToxicityGuardrail`, :class:`FormatGuardrail`, :class:`LengthGuardrail`
and :class:`PromptInjectionGuardrail`; subclass :class:`Guardrail` for your
own. Each fired guardrail becomes a ``guardrail`` trace step and an
``on_guardrail_triggered`` event.
"""

from __future__ import annotations

from ._base import Guardrail, GuardrailAction, GuardrailError, GuardrailResult
from ._pipeline import GuardrailDecision, GuardrailsPipeline, PipelineOutcome
from .format import FormatGuardrail
from .injection import PromptInjectionGuardrail
from .length import LengthGuardrail
from .pii import BUILTIN_PII_TYPES, PIIGuardrail, PIIMatch, luhn_valid, redact_pii
from .topic import TopicGuardrail
from .toxicity import ToxicityGuardrail

__all__ = [
    "BUILTIN_PII_TYPES",
    "FormatGuardrail",
    "Guardrail",
    "GuardrailAction",
    "GuardrailDecision",
    "GuardrailError",
    "GuardrailResult",
    "GuardrailsPipeline",
    "LengthGuardrail",
    "PIIGuardrail",
    "PIIMatch",
    "PipelineOutcome",
    "PromptInjectionGuardrail",
    "TopicGuardrail",
    "ToxicityGuardrail",
    "luhn_valid",
    "redact_pii",
]
