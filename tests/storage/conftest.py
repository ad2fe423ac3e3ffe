"""Locations for every store backend: a fresh folder, file, Redis prefix or PostgreSQL table."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def child_env() -> dict[str, str]:
    """The environment of a child process: this worktree first on the import path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


@pytest.fixture
def make_location(tmp_path, request) -> Callable[[str, str], str]:
    """``make_location(protocol, backend)``: where a new, empty store of that kind lives."""

    def make(protocol: str, backend: str) -> str:
        name = uuid.uuid4().hex[:10]
        if backend == "redis":
            return f"{request.getfixturevalue('redis_server')}|t{name}:"
        if backend == "postgres":
            return f"{request.getfixturevalue('postgres_uri')}|t{name}"
        if backend == "sqlite":
            return str(tmp_path / f"{protocol}-{name}.db")
        if backend == "jsonl":
            return str(tmp_path / f"{protocol}-{name}.jsonl")
        return str(tmp_path / f"{protocol}-{name}")

    return make
