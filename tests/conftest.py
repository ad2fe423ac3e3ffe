"""Shared fixtures. Real services (Redis, kernels, browsers) are started by their own fixtures."""

from __future__ import annotations

import pytest


@pytest.fixture
def fake_sleep(monkeypatch):
    """Replace time.sleep / asyncio.sleep used for retry backoff; record the requested delays."""
    import asyncio
    import time

    delays: list[float] = []
    real_async_sleep = asyncio.sleep

    def sleep(seconds: float) -> None:
        delays.append(seconds)

    async def async_sleep(seconds: float, result=None):
        if seconds > 0:
            delays.append(seconds)
        await real_async_sleep(0)
        return result

    monkeypatch.setattr(time, "sleep", sleep)
    monkeypatch.setattr(asyncio, "sleep", async_sleep)
    return delays
