"""Which callables are never converted: the standard library, NumPy, the runtime, autograph
itself, builtins, installed third-party packages, and anything marked `do_not_convert`."""

from __future__ import annotations

import functools
import sys
import types
from typing import Any, Callable, TypeVar

from ..pyct.namespaces import Resolved, module_of

F = TypeVar("F", bound=Callable[..., Any])

_LIBRARIES = frozenset(sys.stdlib_module_names) | frozenset({
    "numpy", "runtime", "autograph", "builtins", "gast", "scipy", "pandas", "pytest", "_pytest",
    "hypothesis", "jax", "tensorflow", "torch"})

_DO_NOT_CONVERT = "__ag_do_not_convert__"


def is_library_module(name: str | None) -> bool:
    """Whether a module (by name) holds library code that is never converted."""
    if not name:
        return False
    root = name.split(".")[0]
    if root in ("__main__", "__mp_main__"):
        return False
    return root in _LIBRARIES or root.startswith("_")


def is_library(resolved: Resolved) -> bool:
    """For the call converter: whether a statically resolved callee is library code."""
    if resolved.user_function:
        return False
    if resolved.known and isinstance(resolved.value, types.FunctionType):
        return is_library_function(resolved.value)
    return is_library_module(resolved.module)


def is_library_function(fn: Any) -> bool:
    """Whether a callable comes from library code."""
    code = getattr(fn, "__code__", None)
    if code is not None:
        filename = code.co_filename
        if "site-packages" in filename or "dist-packages" in filename:
            return True
    return is_library_module(module_of(fn))


def do_not_convert(func: F) -> F:
    """Marks `func` so that autograph calls it as it is, never converting it."""
    target = getattr(func, "__func__", func)
    try:
        setattr(target, _DO_NOT_CONVERT, True)
        return func
    except (AttributeError, TypeError):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)
        setattr(wrapper, _DO_NOT_CONVERT, True)
        return wrapper  # type: ignore[return-value]


def is_marked_do_not_convert(fn: Any) -> bool:
    target = getattr(fn, "__func__", fn)
    return bool(getattr(target, _DO_NOT_CONVERT, False))


def python_call_method(obj: Any) -> types.FunctionType | None:
    """`type(obj).__call__` when it is a plain Python function (never for classes)."""
    if isinstance(obj, type):
        return None
    try:
        call = type(obj).__call__
    except AttributeError:
        return None
    return call if isinstance(call, types.FunctionType) else None
