"""Annotations: small pieces of analysis attached to syntax-tree nodes."""

from __future__ import annotations

from typing import Any

_PREFIX = "__ag_"
_MISSING = object()


def setanno(node: Any, key: str, value: Any) -> None:
    """Attaches `value` to `node` under `key`."""
    setattr(node, _PREFIX + key, value)


def getanno(node: Any, key: str, default: Any = _MISSING) -> Any:
    """The annotation `key` of `node`; `default` (or KeyError) when absent."""
    value = getattr(node, _PREFIX + key, _MISSING)
    if value is _MISSING:
        if default is _MISSING:
            raise KeyError(f"{type(node).__name__} node has no annotation {key!r}")
        return default
    return value


def hasanno(node: Any, key: str) -> bool:
    """Whether `node` carries the annotation `key`."""
    return hasattr(node, _PREFIX + key)


def delanno(node: Any, key: str) -> None:
    """Removes the annotation `key` from `node` if present."""
    if hasattr(node, _PREFIX + key):
        delattr(node, _PREFIX + key)
