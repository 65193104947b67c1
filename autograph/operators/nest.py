"""Flattening nested Python structures (tuples, lists, dicts, namedtuples) into leaves."""

from __future__ import annotations

from typing import Any

LEAF = None


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def flatten(value: Any) -> tuple[list, Any]:
    """(leaves, structure) of a value; `unflatten(structure, leaves)` rebuilds it."""
    leaves: list = []
    structure = _flatten(value, leaves)
    return leaves, structure


def _flatten(value: Any, leaves: list) -> Any:
    tp = type(value)
    if tp is tuple or tp is list:
        return (tp, tuple(_flatten(v, leaves) for v in value))
    if tp is dict:
        keys = tuple(value)
        return (dict, keys, tuple(_flatten(value[k], leaves) for k in keys))
    if _is_namedtuple(value):
        return (tp, tuple(_flatten(v, leaves) for v in value))
    leaves.append(value)
    return LEAF


def unflatten(structure: Any, leaves: list) -> Any:
    """Rebuilds a value of `structure` from `leaves`."""
    it = iter(leaves)
    return _unflatten(structure, it)


def _unflatten(structure: Any, it) -> Any:
    if structure is LEAF:
        return next(it)
    tp = structure[0]
    if tp is dict:
        keys, children = structure[1], structure[2]
        return {k: _unflatten(c, it) for k, c in zip(keys, children)}
    items = [_unflatten(c, it) for c in structure[1]]
    if tp is tuple or tp is list:
        return tp(items)
    return tp(*items)


def describe(structure: Any) -> str:
    """A short description of a structure for error messages."""
    if structure is LEAF:
        return "a single value"
    tp = structure[0]
    if tp is dict:
        return f"a dict with keys {list(structure[1])}"
    kind = {list: "a list", tuple: "a tuple"}.get(tp, f"a {tp.__name__}")
    return f"{kind} of {len(structure[1])} items"
