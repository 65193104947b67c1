"""The public names of ops, marked where each op function is defined.

`runtime/__init__.py` builds `rt.*` and the `rt.math`, `rt.nn`, ... namespaces from this
table, so a new public op needs no edit there.
"""

from __future__ import annotations

import types
from typing import Callable, TypeVar

from .arguments import add_keyword_hints_to_class, with_keyword_hints

T = TypeVar("T")

NAMESPACES: dict[str, dict[str, object]] = {}  # "" is `rt` itself; "math" is `rt.math`, ...


def export(*names: str) -> Callable[[T], T]:
    """Decorator: publishes a function or class as `rt.<name>` for each name given.

    A dotted name puts it in a namespace: `@export("add", "math.add")`. A misspelt keyword
    in a call of what is published raises TypeError with "did you mean" (`runtime.arguments`).
    """
    def mark(obj: T) -> T:
        bare = [name.rpartition(".")[2] for name in names]
        if isinstance(obj, types.FunctionType) and obj.__name__ not in bare:
            obj.__name__ = obj.__qualname__ = bare[0]  # made by a factory: named as published
        if isinstance(obj, type):
            add_keyword_hints_to_class(obj)
        elif isinstance(obj, types.FunctionType):
            obj = with_keyword_hints(obj, obj.__name__)
        for name in names:
            space, _, attr = name.rpartition(".")
            NAMESPACES.setdefault(space, {})[attr] = obj
        return obj
    return mark
