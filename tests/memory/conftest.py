"""A local fake of Supabase's REST API for the Supabase knowledge store (one per test session)."""

from __future__ import annotations

import pytest

from ._fake_supabase import FakeSupabase


@pytest.fixture(scope="session")
def fake_supabase():
    with FakeSupabase() as fake:
        yield fake
