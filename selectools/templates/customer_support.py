"""``customer_support``: account lookup, help-article search and ticket escalation.

The tools answer from a small in-memory demo data set (three customers, a
handful of help articles, tickets kept per agent) so the template runs as is;
point ``customers=`` / ``articles=`` at your own data, or copy this module as
the start of your own template.
"""

from __future__ import annotations

import itertools
from typing import Any

from ..tools import tool
from ._build import build_template

SYSTEM_PROMPT = """You are a friendly, efficient customer support agent.
First look up the customer's account, then search the help articles for the answer.
Create a support ticket only when you cannot resolve the issue yourself, and tell
the customer the ticket number. Never invent account details."""

DEMO_CUSTOMERS: dict[str, dict[str, str]] = {
    "alice@example.com": {"name": "Alice Martin", "plan": "Pro", "status": "active"},
    "bob@example.com": {"name": "Bob Chen", "plan": "Free", "status": "locked (too many logins)"},
    "carol@example.com": {"name": "Carol Diaz", "plan": "Team", "status": "active"},
}
DEMO_ARTICLES: dict[str, str] = {
    "Reset your password": "Open Settings > Security > Reset password; a link is emailed to you.",
    "Unlock a locked account": "Accounts unlock 30 minutes after the last failed login.",
    "Change your plan": "Billing > Plan lets you upgrade or downgrade at any time.",
    "Export your data": "Settings > Data > Export creates a ZIP of your files.",
}


def build(
    provider: Any,
    *,
    customers: dict[str, dict[str, str]] | None = None,
    articles: dict[str, str] | None = None,
    **overrides: Any,
) -> Any:
    people = DEMO_CUSTOMERS if customers is None else customers
    help_articles = DEMO_ARTICLES if articles is None else articles
    tickets: list[dict[str, str]] = []
    numbers = itertools.count(1001)

    @tool
    def lookup_customer(email: str) -> str:
        """Look up a customer's account by email address (name, plan, account status)."""
        record = people.get(email.strip().lower())
        if record is None:
            return f"No customer with email {email}"
        return ", ".join(f"{k}: {v}" for k, v in record.items())

    @tool
    def search_help_articles(query: str) -> str:
        """Search the help center; returns the best matching articles."""
        words = {w for w in query.lower().split() if len(w) > 2}
        scored = sorted(
            (
                (sum(w in (t + " " + b).lower() for w in words), t, b)
                for t, b in help_articles.items()
            ),
            reverse=True,
        )
        hits = [f"{t}: {b}" for score, t, b in scored if score > 0][:3]
        return "\n".join(hits) if hits else f"No help articles match {query!r}"

    @tool
    def create_ticket(email: str, summary: str, priority: str = "normal") -> str:
        """Escalate an issue you could not resolve to the support team."""
        number = f"T-{next(numbers)}"
        tickets.append({"id": number, "email": email, "summary": summary, "priority": priority})
        return f"Created ticket {number} ({priority}) for {email}"

    agent = build_template(
        "customer_support",
        provider,
        [lookup_customer, search_help_articles, create_ticket],
        SYSTEM_PROMPT,
        overrides,
        max_iterations=5,
    )
    agent.tickets = tickets
    return agent
