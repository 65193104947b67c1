"""List operations in converted code. `l.append(x)` becomes `l = ag__.list_append(l, x)`:
for a Python list it appends in place (so aliases see it, as in Python); for a staged list —
what a staged loop turns a list it grows into — it appends to the staged list."""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

from .dispatch import Backend, backend_of


class _Changed(threading.local):
    """The ids of Python lists `list_append`/`list_pop` changed while a staged loop body or
    branch is traced (None otherwise): a carried list that changed length otherwise
    (`s = s + [x]`) cannot become a staged list."""

    ids: set | None = None


CHANGED = _Changed()


@contextlib.contextmanager
def recording_changes() -> Iterator[set]:
    """Collects, in the set it gives, the ids of the Python lists `list_append`/`list_pop`
    change inside the block; an enclosing recording sees them too."""
    outer = CHANGED.ids
    changed = CHANGED.ids = set()
    try:
        yield changed
    finally:
        CHANGED.ids = outer
        if outer is not None:
            outer |= changed


def note_changed(lists: Iterator[Any]) -> None:
    """Tells the enclosing recording, if any, that `lists` were changed by list operations."""
    if CHANGED.ids is not None:
        CHANGED.ids.update(id(lst) for lst in lists)


def appended_spec(backend: Backend, n: int, after: list) -> Any:
    """The element spec of the items appended to a Python list that had `n` items (the
    items of `after` past them, backend values or numbers), or None."""
    if len(after) <= n or any(isinstance(v, (list, tuple, dict)) for v in after[n:]):
        return None
    first = after[n]
    try:
        first = first if backend.is_value(first) else backend.convert(first)
    except TypeError:
        return None
    return backend.spec(first)


def truth(backend: Backend, value: Any) -> Any:
    """`value` as a condition: a staged list is true when it is not empty, as in Python."""
    if backend.is_list(value):
        return backend.cast(backend.len(value), "bool")
    return value


def _backend(lst: Any):
    b = backend_of(lst)
    return b if b is not None and b.is_list(lst) else None


def list_append(lst: Any, value: Any) -> Any:
    """`lst.append(value)`, returning the list to use afterwards."""
    backend = _backend(lst)
    if backend is not None:
        return backend.list_append(lst, value)
    lst.append(value)
    if CHANGED.ids is not None:
        CHANGED.ids.add(id(lst))
    return lst


def list_pop(lst: Any, *index: Any) -> tuple[Any, Any]:
    """`lst.pop(*index)`, returning (the list to use afterwards, the popped item)."""
    backend = _backend(lst)
    if backend is not None:
        if index and not (type(index[0]) is int and index[0] == -1):
            raise NotImplementedError("a staged list can only pop its last element")
        return backend.list_pop(lst)
    if CHANGED.ids is not None:
        CHANGED.ids.add(id(lst))
    return lst, lst.pop(*index)
