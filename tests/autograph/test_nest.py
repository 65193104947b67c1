"""`autograph.nest`: the one nest implementation (also `runtime.nest`), compared with plain Python."""

from __future__ import annotations

import collections
import dataclasses
import subprocess
import sys
from typing import NamedTuple

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from autograph import nest


class Pair(NamedTuple):
    first: object
    second: object


@dataclasses.dataclass
class Point:
    x: object
    y: object
    label: str = dataclasses.field(default="p", init=False)


@dataclasses.dataclass(frozen=True)
class Frozen:
    b: object
    a: object


def test_runtime_nest_is_autograph_nest():
    assert rt.nest.flatten is nest.flatten
    assert rt.nest.pack_sequence_as is nest.pack_sequence_as


def test_dict_values_flatten_by_sorted_key_and_repack_in_insertion_order():
    d = {"b": 1, "c": 2, "a": 0}
    assert nest.flatten(d) == [0, 1, 2]
    packed = nest.pack_sequence_as(d, [10, 11, 12])
    assert packed == {"a": 10, "b": 11, "c": 12} and list(packed) == ["b", "c", "a"]
    leaves, structure = nest.flatten_with_structure(d)
    assert leaves == [0, 1, 2]
    rebuilt = nest.unflatten(structure, leaves)
    assert rebuilt == d and list(rebuilt) == list(d)


def test_unsortable_keys_flatten_in_insertion_order():
    d = {"a": 1, 2: 2, None: 3}
    assert nest.flatten(d) == [1, 2, 3]
    assert nest.pack_sequence_as(d, [4, 5, 6]) == {"a": 4, 2: 5, None: 6}


def test_dict_subclasses_keep_their_type():
    od = collections.OrderedDict([("z", 1), ("y", 2)])
    assert nest.flatten(od) == [2, 1]
    packed = nest.pack_sequence_as(od, [20, 10])
    assert type(packed) is collections.OrderedDict and list(packed.items()) == [("z", 10), ("y", 20)]
    dd = collections.defaultdict(list, {"k": 1})
    packed = nest.pack_sequence_as(dd, [2])
    assert type(packed) is collections.defaultdict and packed.default_factory is list
    assert packed["k"] == 2 and packed["new"] == []


def test_namedtuples_are_nests():
    value = Pair(1, [2, Pair(3, 4)])
    assert nest.is_nested(value)
    assert nest.flatten(value) == [1, 2, 3, 4]
    packed = nest.pack_sequence_as(value, [5, 6, 7, 8])
    assert packed == Pair(5, [6, Pair(7, 8)]) and type(packed.second[1]) is Pair
    leaves, structure = nest.flatten_with_structure(value)
    assert nest.unflatten(structure, leaves) == value
    assert nest.describe(structure) == "a Pair of 2 items"


def test_dataclass_instances_are_nests_by_field_order():
    p = Point(x=[1, 2], y={"b": 4, "a": 3})
    p.label = "kept"
    assert nest.is_nested(p) and not nest.is_nested(Point)
    assert nest.flatten(p) == [1, 2, 3, 4]
    packed = nest.pack_sequence_as(p, [10, 20, 30, 40])
    assert type(packed) is Point and packed.x == [10, 20] and packed.y == {"b": 40, "a": 30}
    assert packed.label == "p"          # rebuilt like `dataclasses.replace`: init=False resets
    f = Frozen(b=1, a=2)
    assert nest.flatten(f) == [1, 2]     # field order, not sorted
    assert nest.pack_sequence_as(f, [3, 4]) == Frozen(3, 4)
    leaves, structure = nest.flatten_with_structure(f)
    assert nest.unflatten(structure, leaves) == f
    assert nest.describe(structure) == "a Frozen with fields ['b', 'a']"


def test_map_structure_and_assert_same_structure():
    a = {"y": Point(1, 2), "x": (3, [4])}
    b = {"x": (30, [40]), "y": Point(10, 20)}
    out = nest.map_structure(lambda u, v: u + v, a, b)
    assert out == {"y": Point(11, 22), "x": (33, [44])}
    nest.assert_same_structure((1, 2), [3, 4])
    with pytest.raises(ValueError):
        nest.assert_same_structure((1, 2), [3, 4], check_types=True)
    with pytest.raises(ValueError):
        nest.assert_same_structure({"a": 1}, {"b": 1})
    with pytest.raises(ValueError):
        nest.assert_same_structure(Point(1, 2), Frozen(1, 2))
    assert nest.structure_signature(Point(1, [2])) == ("Point", (("x", "*"), ("y", ("list", ("*",)))))


def test_leaves_are_not_nested():
    for leaf in (1, "ab", None, np.zeros(3), Point):
        assert not nest.is_nested(leaf)
        assert nest.flatten(leaf) == [leaf]
        assert nest.flatten_with_structure(leaf) == ([leaf], nest.LEAF)


def test_staged_loop_carries_dataclass_and_keeps_dict_order():
    def f(n):
        p = Point(rt.constant(0.0), rt.constant(1.0))
        d = {"b": rt.constant(1), "a": rt.constant(2)}
        i = 0
        while i < n:
            p = Point(p.x + 1.0, p.y * 2.0)
            d = {"b": d["b"] + 1, "a": d["a"] * 2}
            i += 1
        return p, d

    p, d = rt.function(f)(rt.constant(3))
    assert type(p) is Point and float(p.x.numpy()) == 3.0 and float(p.y.numpy()) == 8.0
    assert list(d) == ["b", "a"] and int(d["b"].numpy()) == 4 and int(d["a"].numpy()) == 16


def test_importing_nest_or_runtime_does_not_load_the_converter():
    code = ("import sys, runtime, autograph.nest; "
            "print(sorted(m for m in sys.modules if m.startswith('autograph.impl')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_lazy_api_names_resolve_and_are_listed():
    for name in ag.__all__:
        assert name in dir(ag)
        assert getattr(ag, name) is not None
    with pytest.raises(AttributeError):
        ag.no_such_name  # noqa: B018
