"""The one place that imports the ``mcp`` SDK, with a clear message when it is missing."""

from __future__ import annotations

from types import ModuleType

from .._install import install_hint

__all__ = ["require_sdk"]


def require_sdk() -> ModuleType:
    try:
        import mcp
    except ImportError as exc:  # pragma: no cover - the dev environment has the extra
        raise ImportError(f"selectools.mcp needs the MCP SDK: {install_hint('mcp')}") from exc
    if not hasattr(mcp, "Client"):  # pragma: no cover
        raise ImportError(
            f"selectools.mcp needs mcp>=2.3 (found {getattr(mcp, '__version__', 'an older version')}): "
            f"{install_hint('mcp').replace('pip install', 'pip install -U', 1)}"
        )
    return mcp
