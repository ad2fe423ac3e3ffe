"""How long to wait before asking the model again, after a failed call.

* The server's ``Retry-After`` (or ``retry-after-ms``) is honoured as given:
  a 429 that says 0.1 s is retried after 0.1 s, not after our own cooldown.
  A value past ``AgentConfig.max_retry_after_seconds`` is not waited for: the
  run ends with the error, which says when the server will take calls again.
* Otherwise the wait grows with the attempt: ``retry_backoff_seconds * attempt``,
  plus ``rate_limit_cooldown_seconds * attempt`` for a rate limit without a hint.
* Every wait gets random jitter (:mod:`selectools._jitter`), so many runs
  failing together (a notebook's batch, a served agent's workers) do not retry
  in lock-step: our own backoff is drawn between half and all of its value, a
  server's hint is stretched by up to a fifth (never shortened).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._jitter import jittered, stretched

if TYPE_CHECKING:
    from ..exceptions import ProviderError
    from .config import AgentConfig

__all__ = ["retry_delay"]


def retry_delay(config: AgentConfig, error: ProviderError, attempt: int) -> float | None:
    """Seconds to wait before attempt ``attempt + 1``, or ``None`` when not to retry."""
    if not error.retryable or attempt > config.max_retries:
        return None
    hint = error.retry_after
    if hint is not None and hint >= 0:
        if hint > config.max_retry_after_seconds:
            return None
        return stretched(hint)
    backoff = config.retry_backoff_seconds * attempt
    if error.is_rate_limit:
        backoff += config.rate_limit_cooldown_seconds * attempt
    return jittered(backoff)
