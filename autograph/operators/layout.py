"""Layouts: how the Python-side values of a staged construct map to backend values.

A staged `cond` or `while_loop` carries only flat tuples of backend values. A *layout*
describes, for each variable (or return value, or jump kind) of a construct, its nested
structure and, for each leaf, whether it is carried as a backend value (`T`, with its spec),
kept as a Python constant (`S`) or undefined (`U`). Encoding turns values into a layout and
a flat tuple; decoding turns outputs back into values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from .. import nest
from .dispatch import Backend, backend_of
from .special_values import Undefined

_NUMBERS = (bool, int, float, complex, np.number, np.bool_, np.ndarray)


@dataclass(frozen=True)
class Leaf:
    kind: str            # "T" backend value, "S" Python constant, "U" undefined
    payload: Any = None  # for T a value of the right spec (see `spec_of`), for S the constant

    def __eq__(self, other) -> bool:
        if not isinstance(other, Leaf) or other.kind != self.kind:
            return False
        if self.kind == "S":
            return same_constant(self.payload, other.payload)
        return True   # specs are compared by the backend

    __hash__ = None  # type: ignore[assignment]


@dataclass
class Entry:
    label: str           # user-facing name: "x", "self.count", "the return value"
    structure: Any
    leaves: list


def same_constant(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return False
    try:
        return bool(type(a) is type(b) and a == b)
    except Exception:  # noqa: BLE001 - objects with odd __eq__
        return False


def is_python_number(value: Any) -> bool:
    return isinstance(value, _NUMBERS)


def describe(backend: Backend, label: str, value: Any, convert_numbers: bool = True) -> tuple[Entry, list]:
    """The layout entry of a value and the backend values it contributes."""
    if isinstance(value, Undefined):
        return Entry(label, nest.LEAF, [Leaf("U")]), []
    leaves, structure = nest.flatten_with_structure(value)
    out_leaves: list[Leaf] = []
    flat: list = []
    for leaf in leaves:
        if isinstance(leaf, Undefined):
            out_leaves.append(Leaf("U"))
        elif backend_of(leaf) is backend or backend.is_value(leaf):
            out_leaves.append(Leaf("T", leaf))
            flat.append(leaf)
        elif convert_numbers and is_python_number(leaf):
            t = backend.convert(leaf)
            out_leaves.append(Leaf("T", t))
            flat.append(t)
        else:
            out_leaves.append(Leaf("S", leaf))
    return Entry(label, structure, out_leaves), flat


def values_of(backend: Backend, entry_value: Any, target: Entry) -> list:
    """The backend values `entry_value` contributes under the (unified) `target` entry;
    undefined leaves where the target carries a value become zero placeholders."""
    if isinstance(entry_value, Undefined):
        leaves = [entry_value] * len(target.leaves)
    else:
        leaves = nest.flatten(entry_value)
    out = []
    for leaf, t in zip(leaves, target.leaves):
        if t.kind != "T":
            continue
        if isinstance(leaf, Undefined):
            out.append(backend.zeros(backend.spec(t.payload)))
        elif backend_of(leaf) is backend or backend.is_value(leaf):
            out.append(leaf)
        else:
            out.append(backend.convert(leaf))
    return out


def rebuild(entry: Entry, outputs) -> Any:
    """The value of an entry given an iterator over backend outputs."""
    leaves = []
    for leaf in entry.leaves:
        if leaf.kind == "T":
            leaves.append(next(outputs))
        elif leaf.kind == "S":
            leaves.append(leaf.payload)
        else:
            leaves.append(Undefined(entry.label))
    if entry.structure is nest.LEAF:
        return leaves[0]
    return nest.unflatten(entry.structure, leaves)


def leaf_labels(entries: list[Entry]) -> list[str]:
    """A user-facing name for each backend value of a layout."""
    names = []
    for e in entries:
        t_leaves = [leaf for leaf in e.leaves if leaf.kind == "T"]
        if len(t_leaves) == 1:
            names.append(e.label)
        else:
            names.extend(f"{e.label}[{i}]" for i in range(len(t_leaves)))
    return names


def first_difference(a: Entry, b: Entry) -> Optional[str]:
    """Why two entries cannot be the two sides of a cond, or None when they can be unified."""
    if a.structure != b.structure:
        return f"{nest.describe(a.structure)} in one and {nest.describe(b.structure)} in the other"
    for x, y in zip(a.leaves, b.leaves):
        if x.kind == "S" and y.kind == "S" and not same_constant(x.payload, y.payload):
            return f"the Python values {x.payload!r} and {y.payload!r}"
        if {x.kind, y.kind} == {"S", "T"}:
            s = x if x.kind == "S" else y
            return f"a tensor in one and the Python value {s.payload!r} in the other"
    return None
