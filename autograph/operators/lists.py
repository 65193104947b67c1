"""List operations in converted code. `l.append(x)` becomes `l = ag__.list_append(l, x)`:
for a Python list it appends in place (so aliases see it, as in Python); for a staged list —
what a staged loop turns a list it grows into — it appends to the staged list.

On such lists `l[i]` becomes `ag__.get_item(l, i)` and `l[i] = x` becomes
`l = ag__.set_item(l, i, x)`: with a staged index, a Python list is read through its
stacked items, and writing it makes it a staged list."""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator, Optional

from .dispatch import Backend, backend_of, staged_backend


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


def _staged_index(index: Any) -> Optional[Backend]:
    return None if type(index) is int else staged_backend(index)


def get_item(target: Any, index: Any) -> Any:
    """`target[index]`; a Python list indexed by a staged integer reads its stacked items
    (negative indices count from the end, as in Python)."""
    if type(target) is list:
        backend = _staged_index(index)
        if backend is not None:
            return backend.getitem(_stacked(backend, target), _from_end(backend, index, len(target)))
    return target[index]


def set_item(target: Any, index: Any, value: Any) -> Any:
    """`target[index] = value`, returning the list to use afterwards. A Python list written
    at a staged index becomes a staged list holding its items (a staged loop then carries
    it as one); a staged list takes the write at `index` (negative: from the end)."""
    backend = _backend(target)
    if backend is None and type(target) is list:
        backend = _staged_index(index)
        if backend is not None:
            if not target:
                raise IndexError("list assignment index out of range (the list is empty)")
            target = backend.new_list(target)
    if backend is not None:
        return backend.list_set(target, index, value)
    target[index] = value
    return target


def _stacked(backend: Backend, items: list) -> Any:
    if not items:
        raise IndexError("list index out of range (the list is empty)")
    try:
        return backend.stack(items)
    except (TypeError, ValueError) as e:
        raise TypeError(
            "a Python list indexed by a tensor is read as one tensor stacking its items, and "
            f"these items cannot be stacked ({e}); give them one dtype and shape, or index the "
            "list with a Python int.") from None


def _from_end(backend: Backend, index: Any, n: int) -> Any:
    """`index`, or `index + n` where it is negative."""
    return backend.where_negative(index, n)
