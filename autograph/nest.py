"""Nested structures: lists, tuples, namedtuples, dicts and dataclass instances, and their leaves.

TensorFlow's convention: sequences flatten in order, dict values by sorted key (insertion order
when the keys cannot be sorted), dataclass instances by field order (the fields `__init__`
takes); anything else is a leaf. A dataclass whose class defines `__nest_from_fields__(fields)`
is rebuilt by it (composite values whose own `__init__` takes other arguments). Rebuilt dicts
keep the key order of the value they copy.

Two views of the same walk:

* value-shaped, as `tf.nest`: `flatten(value)` lists the leaves; `pack_sequence_as(value, leaves)`
  rebuilds a value like `value` from leaves; `map_structure`, `assert_same_structure`,
  `structure_signature`;
* structure-shaped, for code that keeps the shape without the leaves:
  `flatten_with_structure(value)` gives (leaves, structure), a comparable value that
  `unflatten(structure, leaves)` rebuilds from and `describe(structure)` names in messages.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Any, Callable, Iterator, Optional

__all__ = [
    "LEAF", "is_namedtuple", "is_dataclass_instance", "is_nested", "flatten", "pack_sequence_as",
    "map_structure", "structure_signature", "assert_same_structure", "flatten_with_structure",
    "unflatten", "describe",
]

LEAF = None
"""The structure of a leaf."""

_FIELDS: dict[type, tuple] = {}


def is_namedtuple(value: Any) -> bool:
    """True for an instance of a namedtuple class."""
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def is_dataclass_instance(value: Any) -> bool:
    """True for an instance of a dataclass (not for the class itself)."""
    return hasattr(type(value), "__dataclass_fields__")   # a dataclass's class is not one


def is_nested(value: Any) -> bool:
    """Whether `value` has children (a list, tuple, dict or dataclass instance)."""
    return isinstance(value, (list, tuple, dict)) or is_dataclass_instance(value)


def _sorted_keys(d: dict) -> list:
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def _field_names(tp: type) -> tuple:
    names = _FIELDS.get(tp)
    if names is None:
        names = _FIELDS[tp] = tuple(f.name for f in dataclasses.fields(tp) if f.init)
    return names


# types seen to be leaves (tensors, numbers...): most values a nest holds; bounded, as
# classes can be made at run time
_LEAF_TYPES: set = {int, float, bool, complex, str, type(None)}
_LEAF_TYPES_LIMIT = 512


def _node(value: Any) -> Optional[tuple[type, Optional[tuple], list]]:
    """(type, keys, children) of a nested value, None for a leaf. `keys` are None for
    sequences, the sorted keys of a dict, the field names of a dataclass instance."""
    tp = type(value)
    if tp is list or tp is tuple:
        return tp, None, value
    if tp in _LEAF_TYPES:
        return None
    if isinstance(value, dict):
        keys = tuple(_sorted_keys(value))
        return tp, keys, [value[k] for k in keys]
    if isinstance(value, (list, tuple)):
        return tp, None, value
    if is_dataclass_instance(value):
        names = _field_names(tp)
        return tp, names, [getattr(value, n) for n in names]
    if len(_LEAF_TYPES) < _LEAF_TYPES_LIMIT:
        _LEAF_TYPES.add(tp)
    return None


def _build(tp: type, keys: Optional[tuple], items: list, order: Optional[tuple] = None,
           template: Any = None) -> Any:
    """A value of type `tp` with children `items` (see `_node`); dicts take their keys in
    `order` when given, dataclass instances copy `template` when given."""
    if tp is list:
        return items
    if tp is tuple:
        return tuple(items)
    if keys is None:
        return tp(*items) if hasattr(tp, "_fields") else tp(items)
    if issubclass(tp, dict):
        by_key = dict(zip(keys, items))
        pairs = [(k, by_key[k]) for k in (order if order is not None else keys)]
        if tp is dict:
            return dict(pairs)
        if issubclass(tp, collections.defaultdict):
            out = tp(template.default_factory if template is not None else None)
            out.update(pairs)
            return out
        return tp(pairs)
    fields = dict(zip(keys, items))
    rebuild = getattr(tp, "__nest_from_fields__", None)
    if rebuild is not None:  # a composite value (rt.experimental.ExtensionType): no __init__ rerun
        return rebuild(fields)
    if template is None:
        return tp(**fields)
    built = dataclasses.replace(template, **fields)
    for name in getattr(tp, "__nest_keep__", ()):  # what the class keeps besides its fields
        object.__setattr__(built, name, getattr(template, name))
    return built


# -- value-shaped ------------------------------------------------------------------------------

def _node_kept(value: Any) -> Optional[tuple[type, Optional[tuple], list]]:
    """`_node`, with composite values (classes with a `_type_spec`: extension types, ragged
    and sparse tensors) as leaves."""
    if hasattr(type(value), "_type_spec"):
        return None
    return _node(value)


def flatten(value: Any, expand_composites: bool = True) -> list:
    """The leaves of `value` in order; composite values (extension types) are walked into
    their fields unless `expand_composites=False` (TensorFlow's default: see
    docs/composite-values.md)."""
    out: list = []
    _flatten_into(value, out, _node if expand_composites else _node_kept)
    return out


def _flatten_into(value: Any, out: list, node_of: Callable = _node) -> None:
    node = node_of(value)
    if node is None:
        out.append(value)
        return
    for child in node[2]:
        _flatten_into(child, out, node_of)


def pack_sequence_as(structure: Any, flat: list, expand_composites: bool = True) -> Any:
    """A value shaped like `structure` with the leaves taken from `flat` in order."""
    return _pack(structure, iter(flat), _node if expand_composites else _node_kept)


def _pack(structure: Any, it: Iterator, node_of: Callable = _node) -> Any:
    node = node_of(structure)
    if node is None:
        return next(it)
    tp, keys, children = node
    items = [_pack(c, it, node_of) for c in children]
    order = tuple(structure) if keys is not None and isinstance(structure, dict) else None
    return _build(tp, keys, items, order, structure)


def map_structure(fn: Callable, *structures: Any, expand_composites: bool = True) -> Any:
    """Applies `fn` to corresponding leaves; the structures must match."""
    first = structures[0]
    for other in structures[1:]:
        assert_same_structure(first, other, expand_composites=expand_composites)
    flats = [flatten(s, expand_composites) for s in structures]
    return pack_sequence_as(first, [fn(*leaves) for leaves in zip(*flats)], expand_composites)


def structure_signature(value: Any) -> Any:
    """A hashable description of the nesting (type names, keys, lengths), leaves as '*'."""
    return _signature(value, True)


def assert_same_structure(a: Any, b: Any, check_types: bool = False,
                          expand_composites: bool = True) -> None:
    """Raises ValueError unless `a` and `b` nest alike (lists and tuples are interchangeable
    unless `check_types`)."""
    node_of = _node if expand_composites else _node_kept
    if _signature(a, check_types, node_of) != _signature(b, check_types, node_of):
        raise ValueError(f"The two structures don't have the same nested structure: {a!r} and {b!r}.")


def _signature(value: Any, check_types: bool, node_of: Callable = _node) -> Any:
    node = node_of(value)
    if node is None:
        return "*"
    tp, keys, children = node
    if keys is None:
        kind = tp.__name__ if check_types else "seq"
        return (kind, tuple(_signature(c, check_types, node_of) for c in children))
    kind = "dict" if isinstance(value, dict) else tp.__name__
    return (kind, tuple((k, _signature(c, check_types, node_of)) for k, c in zip(keys, children)))


# -- structure-shaped --------------------------------------------------------------------------

def flatten_with_structure(value: Any) -> tuple[list, Any]:
    """(leaves, structure) of a value; `unflatten(structure, leaves)` rebuilds it.

    A structure is `LEAF`, `(type, children)` for a sequence, `(type, keys, children, order)`
    for a dict (`order`: the keys in insertion order) or `(type, field names, children)` for
    a dataclass instance."""
    leaves: list = []
    structure = _structure(value, leaves)
    return leaves, structure


def _structure(value: Any, leaves: list) -> Any:
    node = _node(value)
    if node is None:
        leaves.append(value)
        return LEAF
    tp, keys, children = node
    inner = tuple(_structure(c, leaves) for c in children)
    if keys is None:
        return (tp, inner)
    if isinstance(value, dict):
        return (tp, keys, inner, tuple(value))
    return (tp, keys, inner)


def unflatten(structure: Any, leaves: list) -> Any:
    """Rebuilds a value of `structure` from `leaves`."""
    return _unflatten(structure, iter(leaves))


def _unflatten(structure: Any, it: Iterator) -> Any:
    if structure is LEAF:
        return next(it)
    if len(structure) == 2:
        tp, children = structure
        return _build(tp, None, [_unflatten(c, it) for c in children])
    tp, keys, children = structure[:3]
    order = structure[3] if len(structure) == 4 else None
    return _build(tp, keys, [_unflatten(c, it) for c in children], order)


def describe(structure: Any) -> str:
    """A short description of a structure for error messages."""
    if structure is LEAF:
        return "a single value"
    tp = structure[0]
    if len(structure) == 4:
        return f"a {'dict' if tp is dict else tp.__name__} with keys {list(structure[1])}"
    if len(structure) == 3:
        return f"a {tp.__name__} with fields {list(structure[1])}"
    kind = {list: "a list", tuple: "a tuple"}.get(tp, f"a {tp.__name__}")
    return f"{kind} of {len(structure[1])} items"
