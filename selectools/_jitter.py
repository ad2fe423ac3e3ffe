"""Random jitter for retry waits, so clients failing together do not retry in lock-step.

Our own backoff is drawn between half and all of its value ("equal jitter"):
never longer than configured, on average three quarters of it. A server's
``Retry-After`` is a floor, so it is only ever stretched, by up to a fifth.
"""

from __future__ import annotations

import random

__all__ = ["HINT_STRETCH", "jittered", "stretched"]

#: a server's Retry-After is stretched by up to this fraction
HINT_STRETCH = 0.2


def jittered(seconds: float) -> float:
    """A wait drawn from ``[seconds / 2, seconds]``."""
    return seconds * random.uniform(0.5, 1.0)


def stretched(hint: float) -> float:
    """A server's hint, stretched by up to :data:`HINT_STRETCH` (never shortened)."""
    return hint * (1.0 + random.uniform(0.0, HINT_STRETCH))
