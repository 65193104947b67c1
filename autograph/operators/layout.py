"""Layouts: how the Python-side values of a staged construct map to backend values.

A staged `cond` or `while_loop` carries only flat tuples of backend values. A *layout*
describes, for each variable (or return value, or jump kind) of a construct, its nested
structure and, for each leaf, its `LeafKind`: carried as a backend value (with its spec),
kept as a Python constant, or undefined. Encoding turns values into a layout and
a flat tuple; decoding turns outputs back into values.
"""

from __future__ import annotations

import enum
from typing import Any, Optional

import numpy as np

from .. import nest
from ..records import FrozenRecord, Record
from .dispatch import Backend, backend_of
from .special_values import Undefined

_NUMBERS = (bool, int, float, complex, np.number, np.bool_, np.ndarray)


class LeafKind(enum.Enum):
    """How a staged construct carries one leaf of a value."""

    TENSOR = "tensor"        # as a backend value
    CONSTANT = "constant"    # as a Python constant, the same in every trace
    UNDEFINED = "undefined"  # not at all: the variable has no value


TENSOR, CONSTANT, UNDEFINED = LeafKind.TENSOR, LeafKind.CONSTANT, LeafKind.UNDEFINED


class Leaf(FrozenRecord):
    _fields = ("kind", "payload")
    _defaults = {"payload": None}
    kind: LeafKind
    payload: Any  # for TENSOR a value of the right spec, for CONSTANT the constant

    def __eq__(self, other) -> bool:
        if not isinstance(other, Leaf) or other.kind != self.kind:
            return False
        if self.kind is CONSTANT:
            return same_constant(self.payload, other.payload)
        return True   # specs are compared by the backend

    __hash__ = None  # type: ignore[assignment]


class Entry(Record):
    _fields = ("label", "structure", "leaves")

    def __init__(self, label: str, structure: Any, leaves: list) -> None:
        self.label = label          # user-facing name: "x", "self.count", "the return value"
        self.structure = structure
        self.leaves = leaves


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
        return Entry(label, nest.LEAF, [Leaf(UNDEFINED)]), []
    leaves, structure = nest.flatten_with_structure(value)
    out_leaves: list[Leaf] = []
    flat: list = []
    for leaf in leaves:
        if isinstance(leaf, Undefined):
            out_leaves.append(Leaf(UNDEFINED))
        elif backend_of(leaf) is backend or backend.is_value(leaf):
            out_leaves.append(Leaf(TENSOR, leaf))
            flat.append(leaf)
        elif convert_numbers and is_python_number(leaf):
            t = backend.convert(leaf)
            out_leaves.append(Leaf(TENSOR, t))
            flat.append(t)
        else:
            out_leaves.append(Leaf(CONSTANT, leaf))
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
        if t.kind is not TENSOR:
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
        if leaf.kind is TENSOR:
            leaves.append(next(outputs))
        elif leaf.kind is CONSTANT:
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
        n = tensor_count(e)
        if n == 1:
            names.append(e.label)
        else:
            names.extend(f"{e.label}[{i}]" for i in range(n))
    return names


def tensor_count(entry: Entry) -> int:
    """How many backend values an entry carries."""
    return sum(1 for leaf in entry.leaves if leaf.kind is TENSOR)


def is_partly_undefined(entry: Entry) -> bool:
    return any(leaf.kind is UNDEFINED for leaf in entry.leaves)


def is_undefined(entry: Entry) -> bool:
    return all(leaf.kind is UNDEFINED for leaf in entry.leaves)


def first_difference(a: Entry, b: Entry) -> Optional[str]:
    """Why two entries cannot be the two sides of a cond, or None when they can be unified."""
    if a.structure != b.structure:
        return f"{nest.describe(a.structure)} in one and {nest.describe(b.structure)} in the other"
    for x, y in zip(a.leaves, b.leaves):
        if x.kind is CONSTANT and y.kind is CONSTANT and not same_constant(x.payload, y.payload):
            return f"the Python values {x.payload!r} and {y.payload!r}"
        if {x.kind, y.kind} == {CONSTANT, TENSOR}:
            s = x if x.kind is CONSTANT else y
            return f"a tensor in one and the Python value {s.payload!r} in the other"
    return None
