"""`keras.tree`: Keras 3's functions over nested structures (lists, tuples, named tuples,
dicts, with tensors as leaves), over `rt.nest`; dicts are walked in sorted key order."""

from __future__ import annotations

from typing import Any, Callable

from .. import nest as _nest

__all__ = ["MAP_TO_NONE", "assert_same_paths", "assert_same_structure", "flatten",
           "flatten_with_path", "is_nested", "lists_to_tuples", "map_shape_structure",
           "map_structure", "map_structure_up_to", "pack_sequence_as", "traverse"]


class MAP_TO_NONE:  # noqa: N801 - Keras's name
    """Returned by a `traverse` function: the subtree becomes None."""


def is_nested(structure: Any) -> bool:
    """Whether `structure` is a list, tuple, named tuple or dict (not a leaf)."""
    return _nest.is_nested(structure)


def flatten(structure: Any) -> list:
    """The leaves of `structure`, in order."""
    return _nest.flatten(structure, expand_composites=False)


def pack_sequence_as(structure: Any, flat_sequence: list) -> Any:
    """`flat_sequence` in the shape of `structure`."""
    return _nest.pack_sequence_as(structure, list(flat_sequence), expand_composites=False)


def map_structure(func: Callable, *structures: Any) -> Any:
    """`func` of the corresponding leaves of `structures`, in their shared structure."""
    if not structures:
        raise ValueError("map_structure needs at least one structure.")
    return _nest.map_structure(func, *structures, expand_composites=False)


def assert_same_structure(a: Any, b: Any, check_types: Any = None) -> None:
    """ValueError (or TypeError) when `a` and `b` do not nest the same way."""
    _nest.assert_same_structure(a, b, check_types=bool(check_types), expand_composites=False)


def _children(node: Any) -> list[tuple[Any, Any]]:
    """(key, child) of a nested node; dicts in sorted key order."""
    if isinstance(node, dict):
        return [(k, node[k]) for k in sorted(node)]
    return list(enumerate(node))


def _rebuild(node: Any, values: list) -> Any:
    if isinstance(node, dict):
        return type(node)(zip(sorted(node), values))
    if hasattr(node, "_fields"):  # a named tuple
        return type(node)(*values)
    return type(node)(values)


def flatten_with_path(structure: Any) -> list[tuple[tuple, Any]]:
    """(path, leaf) for each leaf, a path being the tuple of keys and indices down to it."""
    out: list[tuple[tuple, Any]] = []

    def walk(node, path):
        if is_nested(node):
            for key, child in _children(node):
                walk(child, (*path, key))
        else:
            out.append((path, node))

    walk(structure, ())
    return out


def assert_same_paths(a: Any, b: Any) -> None:
    """ValueError naming the paths one structure has and the other lacks."""
    paths_a = {p for p, _ in flatten_with_path(a)}
    paths_b = {p for p, _ in flatten_with_path(b)}
    if paths_a != paths_b:
        raise ValueError(f"`a` and `b` don't have the same paths.\nPaths in `a` missing in `b`:\n"
                         f"{paths_a - paths_b}\nPaths in `b` missing in `a`:\n{paths_b - paths_a}")


def map_structure_up_to(shallow_structure: Any, func: Callable, *structures: Any) -> Any:
    """`func` of the subtrees of `structures` found at the leaves of `shallow_structure`."""
    def walk(shallow, *nodes):
        if not is_nested(shallow):
            return func(*nodes)
        keys = [k for k, _ in _children(shallow)]
        for node in nodes:
            if not is_nested(node) or [k for k, _ in _children(node)] != keys:
                raise ValueError(f"map_structure_up_to: the structure {node!r} does not match "
                                 f"the shallow structure {shallow!r}.")
        return _rebuild(shallow, [walk(dict(_children(shallow))[k],
                                       *(dict(_children(n))[k] for n in nodes)) for k in keys])

    return walk(shallow_structure, *structures)


def lists_to_tuples(structure: Any) -> Any:
    """`structure` with every list turned into a tuple."""
    if not is_nested(structure):
        return structure
    values = [lists_to_tuples(child) for _, child in _children(structure)]
    if isinstance(structure, list):
        return tuple(values)
    return _rebuild(structure, values)


def traverse(func: Callable, structure: Any, top_down: bool = True) -> Any:
    """`structure` rewritten by `func` applied to every subtree.

    Top down, a result other than None replaces the subtree (not entered further); bottom up,
    `func` sees each subtree after its children and None keeps it. `MAP_TO_NONE` gives None."""
    def done(value):
        return None if value is MAP_TO_NONE else value

    def down(node):
        result = func(node)
        if result is not None:
            return done(result)
        if not is_nested(node):
            return node
        return _rebuild(node, [down(child) for _, child in _children(node)])

    def up(node):
        if is_nested(node):
            node = _rebuild(node, [up(child) for _, child in _children(node)])
        result = func(node)
        return node if result is None else done(result)

    return down(structure) if top_down else up(structure)


def _is_shape(value: Any) -> bool:
    return isinstance(value, (tuple, list)) and all(
        v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in value)


def map_shape_structure(func: Callable, structure: Any) -> Any:
    """`func` of every shape (a tuple or list of ints and None) in `structure`."""
    if _is_shape(structure) or not is_nested(structure):
        return func(structure)
    return _rebuild(structure, [map_shape_structure(func, child)
                                for _, child in _children(structure)])
