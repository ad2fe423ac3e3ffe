"""Signing in to the builder with GitHub (OAuth web flow), for the users it allows.

Configured by ``GITHUB_CLIENT_ID``, ``GITHUB_CLIENT_SECRET`` and
``GITHUB_ALLOWED_USERS`` (comma-separated logins: the builder runs code on this
machine, so "anyone with a GitHub account" is never the default). The base URLs
can be pointed elsewhere (``SELECTOOLS_GITHUB_OAUTH_URL``,
``SELECTOOLS_GITHUB_API_URL``), which is how the tests use a local fake GitHub.
The ``state`` parameter is a random value kept in a short-lived cookie and
compared in constant time on the way back.
"""

from __future__ import annotations

import hmac
import os
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

__all__ = ["STATE_COOKIE", "GitHubOAuth", "OAuthFailed"]

STATE_COOKIE = "selectools_oauth_state"


class OAuthFailed(Exception):
    """The sign-in could not be completed; the message is safe to show."""


@dataclass(frozen=True)
class GitHubOAuth:
    client_id: str
    client_secret: str
    allowed_users: frozenset[str]
    oauth_url: str = "https://github.com"
    api_url: str = "https://api.github.com"

    @classmethod
    def from_env(cls) -> GitHubOAuth | None:
        """The configuration from the environment, or None when GitHub sign-in is not set up."""
        client_id = os.environ.get("GITHUB_CLIENT_ID", "").strip()
        secret = os.environ.get("GITHUB_CLIENT_SECRET", "").strip()
        if not client_id or not secret:
            return None
        users = os.environ.get("GITHUB_ALLOWED_USERS", "")
        return cls(
            client_id,
            secret,
            frozenset(u.strip().lower() for u in users.split(",") if u.strip()),
            os.environ.get("SELECTOOLS_GITHUB_OAUTH_URL", cls.oauth_url).rstrip("/"),
            os.environ.get("SELECTOOLS_GITHUB_API_URL", cls.api_url).rstrip("/"),
        )

    def authorize_url(self, redirect_uri: str) -> tuple[str, str]:
        """Where to send the browser, and the state value to keep in its cookie."""
        state = secrets.token_urlsafe(24)
        query = urlencode(
            {
                "client_id": self.client_id,
                "redirect_uri": redirect_uri,
                "state": state,
                "scope": "read:user",
                "allow_signup": "false",
            }
        )
        return f"{self.oauth_url}/login/oauth/authorize?{query}", state

    async def user(
        self, code: str, state: str, expected_state: str | None, redirect_uri: str
    ) -> str:
        """The allowed GitHub login behind ``code``; :class:`OAuthFailed` otherwise."""
        import httpx

        if not expected_state or not hmac.compare_digest(state.encode(), expected_state.encode()):
            raise OAuthFailed("the sign-in state does not match: start again at /auth/github")
        try:
            async with httpx.AsyncClient(timeout=10.0) as client:
                exchanged = await client.post(
                    f"{self.oauth_url}/login/oauth/access_token",
                    data={
                        "client_id": self.client_id,
                        "client_secret": self.client_secret,
                        "code": code,
                        "redirect_uri": redirect_uri,
                    },
                    headers={"Accept": "application/json"},
                )
                token = _field(exchanged, "access_token")
                found = await client.get(
                    f"{self.api_url}/user",
                    headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
                )
                login = _field(found, "login")
        except httpx.HTTPError as exc:
            raise OAuthFailed(f"GitHub could not be reached ({type(exc).__name__})") from None
        if login.lower() not in self.allowed_users:
            raise OAuthFailed(
                f"GitHub user {login!r} is not allowed here (GITHUB_ALLOWED_USERS lists who is)"
            )
        return login


def _field(response: Any, name: str) -> str:
    try:
        value = response.json().get(name) if response.status_code == 200 else None
    except ValueError:
        value = None
    if not isinstance(value, str) or not value:
        raise OAuthFailed(f"GitHub did not return a {name} (HTTP {response.status_code})")
    return value
