"""Builtin functions in converted code: the Python builtin for plain values, the backend's
equivalent for staged ones (`len` of a staged tensor is a staged integer, `range` with a
staged bound is a `StagedRange` that a `for` loop stages, and so on)."""

from __future__ import annotations

import builtins
import sys
from typing import Any

from .dispatch import backend_of, first_staged, staged_backend, tracing_backend
from .iterables import StagedEnumerate, StagedRange, StagedZip, is_staged_iterable


def _staged_list(value: Any):
    b = backend_of(value)
    if b is not None and b.is_list(value):
        return b
    return None


def len_(obj: Any) -> Any:
    """`len(obj)`; a staged length for staged tensors and staged lists."""
    backend = staged_backend(obj) or _staged_list(obj)
    if backend is not None:
        return backend.len(obj)
    return len(obj)


def range_(*args: Any) -> Any:
    """`range(...)`; a `StagedRange` when a bound is staged."""
    backend = first_staged(args)
    if backend is None:
        try:
            return range(*args)
        except TypeError:
            if any(backend_of(a) is not None for a in args):
                return range(*[int(a) if backend_of(a) is not None else a for a in args])
            raise
    if len(args) == 1:
        start, stop, step = 0, args[0], 1
    elif len(args) == 2:
        (start, stop), step = args, 1
    elif len(args) == 3:
        start, stop, step = args
    else:
        raise TypeError(f"range expected at most 3 arguments, got {len(args)}")
    return StagedRange(backend, start, stop, step)


def enumerate_(iterable: Any, start: Any = 0) -> Any:
    """`enumerate(...)`, which a `for` loop can stage when `iterable` is staged."""
    if is_staged_iterable(iterable) or _staged_list(iterable) is not None:
        return StagedEnumerate(iterable, start)
    return enumerate(iterable, start)


def zip_(*iterables: Any, **kwargs: Any) -> Any:
    """`zip(...)`, which a `for` loop can stage when one of the iterables is staged."""
    if any(is_staged_iterable(i) for i in iterables):
        return StagedZip(iterables)
    return zip(*iterables, **kwargs)


def abs_(x: Any) -> Any:
    backend = staged_backend(x)
    return backend.abs(x) if backend is not None else abs(x)


def int_(x: Any = 0, *args: Any) -> Any:
    backend = staged_backend(x)
    if backend is not None and not args:
        return backend.cast(x, "int")
    return int(x, *args)


def float_(x: Any = 0.0) -> Any:
    backend = staged_backend(x)
    return backend.cast(x, "float") if backend is not None else float(x)


def bool_(x: Any = False) -> Any:
    backend = staged_backend(x)
    return backend.cast(x, "bool") if backend is not None else bool(x)


def _reduce(kind: str, python_fn, args: tuple, kwargs: dict) -> Any:
    """`min`/`max` of several values, of a staged tensor's first axis, or of an iterable
    whose items are staged (a generator expression over a tensor)."""
    if kwargs:
        return python_fn(*args, **kwargs)
    if len(args) == 1:
        backend = staged_backend(args[0])
        if backend is not None:
            return backend.reduce(kind, [args[0]])
        items = list(args[0])   # min and max read every item anyway
        backend = first_staged(items)
        if backend is None:
            return python_fn(items)
        if not items:
            raise ValueError(f"{kind}() iterable argument is empty")
        return backend.reduce(kind, items)
    backend = first_staged(args)
    if backend is None:
        return python_fn(*args)
    return backend.reduce(kind, list(args))


def min_(*args: Any, **kwargs: Any) -> Any:
    return _reduce("min", min, args, kwargs)


def max_(*args: Any, **kwargs: Any) -> Any:
    return _reduce("max", max, args, kwargs)


def sum_(iterable: Any, start: Any = 0) -> Any:
    """`sum`: adds along a staged tensor's first axis, starting from `start`, as Python does."""
    backend = staged_backend(iterable)
    if backend is not None:
        total = backend.reduce("sum", [iterable])
        return total if (type(start) is int and start == 0) else start + total
    return sum(iterable, start)


def _any_or_all(kind: str, iterable: Any) -> Any:
    """`any` (kind "any") or `all` ("all"), short-circuiting on Python items as Python
    does; staged items are combined with the backend's logical operations."""
    backend = staged_backend(iterable)
    if backend is not None:
        return backend.reduce(kind, [iterable])
    decisive = kind == "any"            # the item value that settles the result
    staged = None
    for item in iterable:
        b = staged_backend(item)
        if b is None:
            if bool(item) is decisive:
                return decisive
            continue
        item = b.cast(item, "bool")
        if staged is None:
            staged, backend = item, b
        elif decisive:
            staged = backend.logical_or(staged, item)
        else:
            staged = backend.logical_and(staged, item)
    return not decisive if staged is None else staged


def any_(iterable: Any) -> Any:
    return _any_or_all("any", iterable)


def all_(iterable: Any) -> Any:
    return _any_or_all("all", iterable)


def print_(*values: Any, sep: Any = None, end: Any = None, file: Any = None, flush: bool = False) -> Any:
    """`print(...)` under `Feature.STAGED_PRINT`: staged (printing when the graph runs)
    while a function is traced. Without that feature converted code calls `print` itself,
    which prints once per trace."""
    return _print(first_staged(values) or tracing_backend(), values, sep, end, file, flush)


def print_tensors_(*values: Any, sep: Any = None, end: Any = None, file: Any = None,
                   flush: bool = False) -> Any:
    """`print(...)` under an explicitly named `Feature.BUILTIN_FUNCTIONS`, as TensorFlow
    converts it: staged when one of the values is a staged tensor (their values are printed
    when the graph runs), Python's `print` otherwise (once per trace)."""
    return _print(first_staged(values), values, sep, end, file, flush)


def _print(backend: Any, values: tuple, sep: Any, end: Any, file: Any, flush: bool) -> Any:
    if backend is None:
        return print(*values, sep=sep, end=end, file=file, flush=flush)
    return backend.print(values, " " if sep is None else sep, "\n" if end is None else end,
                         sys.stdout if file is None else file)


#: builtin -> override, used by the call converter and by converted_call.
OVERRIDES = {
    builtins.len: len_, builtins.range: range_, builtins.enumerate: enumerate_, builtins.zip: zip_,
    builtins.abs: abs_, builtins.int: int_, builtins.float: float_, builtins.bool: bool_,
    builtins.min: min_, builtins.max: max_, builtins.sum: sum_, builtins.any: any_,
    builtins.all: all_, builtins.print: print_,
}

#: the names converted code uses for them: len -> ag__.len_
OVERRIDE_NAMES = {f.__name__: f"{f.__name__}_" for f in OVERRIDES}
