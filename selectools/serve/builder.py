"""The builder's sign-in: where its token comes from, and the HMAC-signed session cookie.

Every builder route needs a session (the builder never runs open): ``/login`` or
``/?token=...`` trades the token for a cookie signed with it (no database), which
expires after 12 hours and is void once the token changes. The workflows
themselves are :mod:`selectools.builder`'s; the app is :mod:`._builder_app`.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import time
from pathlib import Path

__all__ = ["COOKIE", "SESSION_SECONDS", "builder_token", "sign_session", "valid_session"]

COOKIE = "selectools_builder"
SESSION_SECONDS = 12 * 3600


def builder_token(flag: str | None = None) -> str | None:
    """The configured token: the flag, then ``BUILDER_AUTH_TOKEN``, then ``~/.selectools/auth_token``.

    None when none is configured (the builder then makes one); an empty flag is an error.
    """
    if flag is not None:
        if not flag.strip():
            raise ValueError(
                "the builder's auth token is empty, which would protect nothing: pass a real "
                "secret, or none (the builder then makes one and prints its login URL)"
            )
        return flag
    env = os.environ.get("BUILDER_AUTH_TOKEN")
    if env:
        return env
    dotfile = Path.home() / ".selectools" / "auth_token"
    try:
        text = dotfile.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return text or None


def sign_session(token: str, now: float | None = None) -> str:
    expires = int((now if now is not None else time.time()) + SESSION_SECONDS)
    mac = hmac.new(token.encode(), f"builder:{expires}".encode(), hashlib.sha256).hexdigest()
    return f"{expires}.{mac}"


def valid_session(token: str, cookie: str | None, now: float | None = None) -> bool:
    if not cookie or "." not in cookie:
        return False
    expires, _, mac = cookie.partition(".")
    if not expires.isdigit() or int(expires) < (now if now is not None else time.time()):
        return False
    expected = hmac.new(token.encode(), f"builder:{expires}".encode(), hashlib.sha256).hexdigest()
    return hmac.compare_digest(mac, expected)
