"""The cache is one package; ``selectools.cache_redis`` (the documented path) re-exports from it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import selectools
import selectools.cache
import selectools.cache_redis

ROOT = Path(__file__).resolve().parents[2]


def test_documented_paths_give_the_package_s_objects() -> None:
    from selectools.cache._redis import RedisCache

    assert selectools.cache_redis.RedisCache is selectools.cache.RedisCache is RedisCache
    for name in ("Cache", "CacheKeyBuilder", "CacheStats", "InMemoryCache"):
        assert getattr(selectools, name) is getattr(selectools.cache, name), name


def test_the_in_memory_cache_never_loads_the_redis_backend() -> None:
    script = (
        "import sys, selectools.cache\n"
        "selectools.cache.InMemoryCache().set('k', (1, 2))\n"
        "print(sorted(m for m in sys.modules if 'redis' in m))"
    )
    output = subprocess.run(
        [sys.executable, "-c", script.replace("print(", "import json; print(json.dumps(") + ")"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    ).stdout
    assert json.loads(output.splitlines()[-1]) == []
