"""Iterables that a staged `for` loop can walk: tensors, staged ranges, and `enumerate` or
`zip` over them. Each is reduced to a length and a function from index to item."""

from __future__ import annotations

from typing import Any, Callable, Optional

from .dispatch import Backend, backend_of, staged_backend


class StagedRange:
    """`range(start, stop, step)` where a bound is staged."""

    def __init__(self, backend: Backend, start: Any, stop: Any, step: Any):
        self.backend, self.start, self.stop, self.step = backend, start, stop, step

    def __repr__(self) -> str:
        return f"StagedRange({self.start!r}, {self.stop!r}, {self.step!r})"


class StagedEnumerate:
    """`enumerate(x, start)` of a staged iterable."""

    def __init__(self, iterable: Any, start: Any = 0):
        self.iterable, self.start = iterable, start


class StagedZip:
    """`zip(*iterables)` where at least one iterable is staged."""

    def __init__(self, iterables: tuple):
        self.iterables = iterables


def _backend(value: Any) -> Optional[Backend]:
    if isinstance(value, StagedRange):
        return value.backend
    if isinstance(value, StagedEnumerate):
        return _backend(value.iterable)
    if isinstance(value, StagedZip):
        for v in value.iterables:
            b = _backend(v)
            if b is not None:
                return b
        return None
    return staged_backend(value)


def is_staged_iterable(value: Any) -> bool:
    """Whether iterating `value` needs a staged loop."""
    return _backend(value) is not None


def staged_iteration(value: Any) -> Optional[tuple[Backend, Any, Callable[[Any], Any]]]:
    """(backend, length, index -> item) for a staged iterable, or None for a Python one."""
    backend = _backend(value)
    if backend is None:
        return None
    length, item = _walk(backend, value)
    return backend, length, item


def _walk(backend: Backend, value: Any):
    if isinstance(value, StagedRange):
        start, step = value.start, value.step
        return (backend.range_length(start, value.stop, step),
                lambda i: start + i * step)
    if isinstance(value, StagedEnumerate):
        n, inner = _walk(backend, value.iterable)
        start = value.start
        return n, lambda i: (i + start, inner(i))
    if isinstance(value, StagedZip):
        parts = [_walk(backend, v) for v in value.iterables]
        n = parts[0][0]
        for other, _ in parts[1:]:
            n = backend.reduce("min", [n, other])
        return n, lambda i: tuple(item(i) for _, item in parts)
    if isinstance(value, (list, tuple)):
        items = [v if backend_of(v) is not None else backend.convert(v) for v in value]
        stacked = backend.stack(items)
        return backend.len(stacked), lambda i: backend.getitem(stacked, i)
    if isinstance(value, range):
        start, step = value.start, value.step
        return len(value), lambda i: start + i * step
    return backend.len(value), lambda i: backend.getitem(value, i)
