"""`and`, `or`, `not` and (optionally) `==`/`!=` in converted code.

`ag__.and_(a, lambda: b)` keeps Python's laziness: `b` is evaluated only when needed,
also when `a` is staged (then through the backend's `cond`).
"""

from __future__ import annotations

from typing import Any, Callable

from .dispatch import staged_backend
from .lists import truth
from .location import user_location
from .staged_cond import staged_cond
from .variables import Variables


def and_(a: Any, *rest: Callable[[], Any]) -> Any:
    """`a and b and ...` with each later operand given as a function."""
    for fn in rest:
        backend = staged_backend(a)
        if backend is not None:
            a = staged_cond(backend, a, fn, lambda a=a: a, Variables((), ()), user_location())
            continue
        if not a:
            return a
        a = fn()
    return a


def or_(a: Any, *rest: Callable[[], Any]) -> Any:
    """`a or b or ...` with each later operand given as a function."""
    for fn in rest:
        backend = staged_backend(a)
        if backend is not None:
            a = staged_cond(backend, a, lambda a=a: a, fn, Variables((), ()), user_location())
            continue
        if a:
            return a
        a = fn()
    return a


def not_(a: Any) -> Any:
    """`not a`."""
    backend = staged_backend(a)
    if backend is not None:
        return backend.logical_not(truth(backend, a))
    return not a


def eq(a: Any, b: Any) -> Any:
    """`a == b`, elementwise for staged values."""
    backend = staged_backend(a) or staged_backend(b)
    return backend.equal(a, b) if backend is not None else a == b


def ne(a: Any, b: Any) -> Any:
    """`a != b`, elementwise for staged values."""
    backend = staged_backend(a) or staged_backend(b)
    return backend.not_equal(a, b) if backend is not None else a != b
