"""The public names of ops, marked where each op function is defined.

`runtime/__init__.py` builds `rt.*` and the `rt.math`, `rt.nn`, ... namespaces from this
table, so a new public op needs no edit there.
"""

from __future__ import annotations

from typing import Callable, TypeVar

T = TypeVar("T")

NAMESPACES: dict[str, dict[str, object]] = {}  # "" is `rt` itself; "math" is `rt.math`, ...


def export(*names: str) -> Callable[[T], T]:
    """Decorator: publishes a function or class as `rt.<name>` for each name given.

    A dotted name puts it in a namespace: `@export("add", "math.add")`.
    """
    def mark(obj: T) -> T:
        for name in names:
            space, _, attr = name.rpartition(".")
            NAMESPACES.setdefault(space, {})[attr] = obj
        return obj
    return mark
