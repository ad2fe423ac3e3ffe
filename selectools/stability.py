"""Stability markers: ``@stable``, ``@beta`` and ``@deprecated``.

``stable`` and ``beta`` only label an object (no wrapper, no runtime cost) so
users can see what they may depend on; ``deprecated`` warns on every use.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar, cast

__all__ = ["beta", "deprecated", "stable"]

T = TypeVar("T")


def stable(obj: T) -> T:
    """Mark a class or function as stable: breaking changes need a major version."""
    obj.__stability__ = "stable"  # type: ignore[attr-defined]
    return obj


def beta(obj: T) -> T:
    """Mark a class or function as beta: it may change in a minor release."""
    obj.__stability__ = "beta"  # type: ignore[attr-defined]
    return obj


def deprecated(since: str, replacement: str | None = None) -> Callable[[T], T]:
    """Mark a class or function as deprecated; every call or instantiation warns."""

    def decorate(obj: T) -> T:
        name = getattr(obj, "__name__", repr(obj))
        message = f"{name} is deprecated since v{since}."
        if replacement:
            message += f" Use {replacement} instead."

        if isinstance(obj, type):
            original_init = obj.__init__  # type: ignore[misc]

            @functools.wraps(original_init)
            def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
                warnings.warn(message, DeprecationWarning, stacklevel=2)
                original_init(self, *args, **kwargs)

            obj.__init__ = __init__  # type: ignore[misc]
            marked: Any = obj
        elif callable(obj):
            function: Callable[..., Any] = obj

            @functools.wraps(function)
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                warnings.warn(message, DeprecationWarning, stacklevel=2)
                return function(*args, **kwargs)

            marked = wrapper
        else:
            raise TypeError(
                f"@deprecated applies to classes and functions, not {type(obj).__name__}"
            )

        marked.__stability__ = "deprecated"
        marked.__deprecated_since__ = since
        marked.__deprecated_replacement__ = replacement
        return cast(T, marked)  # the class itself, or a wrapper with the function's signature

    return decorate
