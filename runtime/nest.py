"""Nested structures (lists, tuples, dicts, namedtuples): flatten and pack."""

from __future__ import annotations


def is_namedtuple(value) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def is_nested(value) -> bool:
    return isinstance(value, (list, tuple, dict))


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def flatten(structure) -> list:
    """The leaves of `structure` in order (dict values by sorted key)."""
    out = []
    _flatten_into(structure, out)
    return out


def _flatten_into(value, out):
    if isinstance(value, (list, tuple)):
        for v in value:
            _flatten_into(v, out)
    elif isinstance(value, dict):
        for k in _sorted_keys(value):
            _flatten_into(value[k], out)
    else:
        out.append(value)


def pack_sequence_as(structure, flat):
    """Rebuilds `structure` with the leaves taken from `flat` in order."""
    it = iter(flat)
    result = _pack(structure, it)
    return result


def _pack(structure, it):
    if isinstance(structure, list):
        return [_pack(v, it) for v in structure]
    if is_namedtuple(structure):
        return type(structure)(*[_pack(v, it) for v in structure])
    if isinstance(structure, tuple):
        return tuple(_pack(v, it) for v in structure)
    if isinstance(structure, dict):
        packed = {k: _pack(structure[k], it) for k in _sorted_keys(structure)}
        return type(structure)((k, packed[k]) for k in structure) if type(structure) is not dict \
            else {k: packed[k] for k in structure}
    return next(it)


def map_structure(fn, *structures):
    """Applies `fn` to corresponding leaves; the structures must match."""
    first = structures[0]
    for other in structures[1:]:
        assert_same_structure(first, other)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(first, [fn(*leaves) for leaves in zip(*flats)])


def structure_signature(value):
    """A hashable description of the nesting (types and lengths), leaves as '*'."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(structure_signature(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, structure_signature(value[k])) for k in _sorted_keys(value)))
    return "*"


def assert_same_structure(a, b, check_types: bool = False) -> None:
    if _shape_of(a, check_types) != _shape_of(b, check_types):
        raise ValueError(f"The two structures don't have the same nested structure: {a!r} and {b!r}.")


def _shape_of(value, check_types):
    if isinstance(value, (list, tuple)):
        kind = type(value).__name__ if check_types else "seq"
        return (kind, tuple(_shape_of(v, check_types) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _shape_of(value[k], check_types)) for k in _sorted_keys(value)))
    return "*"
