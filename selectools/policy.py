"""``ToolPolicy``: declarative allow / review / deny rules checked before every tool call.

Rules are glob patterns on the tool name (``"delete_*"``). ``deny_when`` adds
argument-level deny rules: ``{"tool": "send_email", "arg": "to", "pattern":
"*@external.com"}`` denies a call whose ``to`` argument (as text) matches.

Evaluation order: ``deny`` and ``deny_when`` → ``review`` → ``allow`` → no
match means ``review`` (an unknown tool needs a human). A deny is final; a
review goes to the approval handler (see :mod:`selectools.approval`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from fnmatch import fnmatchcase
from typing import Any

__all__ = ["PolicyDecision", "PolicyResult", "ToolPolicy"]


class PolicyDecision(str, Enum):
    """What happens to a tool call."""

    ALLOW = "allow"
    REVIEW = "review"
    DENY = "deny"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class PolicyResult:
    """A decision, why it was made, and the rule that made it (``None``: the default)."""

    decision: PolicyDecision
    reason: str
    rule: str | None = None


_DENY_WHEN_KEYS = frozenset({"tool", "arg", "pattern"})


def _patterns(name: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        raise TypeError(
            f"{name} must be a list of glob patterns; wrap the string: {name}=[{value!r}]"
        )
    if not isinstance(value, Sequence) and not isinstance(value, (set, frozenset)):
        raise TypeError(f"{name} must be a list of glob patterns, got {type(value).__name__}")
    for pattern in value:
        if not isinstance(pattern, str) or not pattern:
            raise TypeError(f"{name} patterns must be non-empty strings, got {pattern!r}")
    return tuple(value)


def _deny_when(value: Any) -> tuple[tuple[str, str, str], ...]:
    if isinstance(value, Mapping):
        value = [value]
    rules = []
    for rule in value:
        if not isinstance(rule, Mapping):
            raise TypeError(f"deny_when entries must be dicts, got {type(rule).__name__}")
        missing = _DENY_WHEN_KEYS - set(rule)
        unknown = set(rule) - _DENY_WHEN_KEYS
        if missing or unknown:
            raise ValueError(
                "deny_when entries need exactly the keys 'tool', 'arg' and 'pattern', e.g. "
                '{"tool": "send_email", "arg": "to", "pattern": "*@external.com"}; '
                f"got {dict(rule)!r}"
            )
        for key in ("tool", "arg", "pattern"):
            if not isinstance(rule[key], str) or not rule[key]:
                raise TypeError(f"deny_when '{key}' must be a non-empty string, got {rule[key]!r}")
        rules.append((rule["tool"], rule["arg"], rule["pattern"]))
    return tuple(rules)


class ToolPolicy:
    """Allow/review/deny rules for tool calls; see the module docstring for the order."""

    def __init__(
        self,
        allow: Sequence[str] = (),
        review: Sequence[str] = (),
        deny: Sequence[str] = (),
        deny_when: Sequence[Mapping[str, str]] = (),
    ) -> None:
        self.allow = _patterns("allow", allow)
        self.review = _patterns("review", review)
        self.deny = _patterns("deny", deny)
        self.deny_when = _deny_when(deny_when)

    def evaluate(self, tool_name: str, tool_args: Mapping[str, Any] | None = None) -> PolicyResult:
        """Decide what happens to a call of ``tool_name`` with ``tool_args``."""
        args = tool_args or {}
        for pattern in self.deny:
            if fnmatchcase(tool_name, pattern):
                return PolicyResult(
                    PolicyDecision.DENY,
                    f"'{tool_name}' matches deny rule '{pattern}'",
                    f"deny:{pattern}",
                )
        for tool_pattern, arg, pattern in self.deny_when:
            if fnmatchcase(tool_name, tool_pattern) and arg in args:
                value = args[arg]
                if fnmatchcase(value if isinstance(value, str) else str(value), pattern):
                    return PolicyResult(
                        PolicyDecision.DENY,
                        f"argument {arg}={value!r} matches deny_when pattern '{pattern}'",
                        f"deny_when:{tool_pattern}.{arg}={pattern}",
                    )
        for pattern in self.review:
            if fnmatchcase(tool_name, pattern):
                return PolicyResult(
                    PolicyDecision.REVIEW,
                    f"'{tool_name}' matches review rule '{pattern}'",
                    f"review:{pattern}",
                )
        for pattern in self.allow:
            if fnmatchcase(tool_name, pattern):
                return PolicyResult(
                    PolicyDecision.ALLOW,
                    f"'{tool_name}' matches allow rule '{pattern}'",
                    f"allow:{pattern}",
                )
        return PolicyResult(
            PolicyDecision.REVIEW,
            f"no rule matches '{tool_name}'; tools without a rule need review",
            None,
        )

    def __repr__(self) -> str:
        return (
            f"ToolPolicy(allow={list(self.allow)}, review={list(self.review)}, "
            f"deny={list(self.deny)}, deny_when={len(self.deny_when)} rule(s))"
        )
