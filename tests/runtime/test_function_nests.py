"""Dataclasses and namedtuples are nests for compiled functions, as arguments and as
results; another object holding a symbolic tensor in a result is a trace-time error."""

from __future__ import annotations

import collections
import dataclasses

import pytest

import runtime as rt


@dataclasses.dataclass
class Pair:
    a: object
    b: object


@dataclasses.dataclass(frozen=True)
class Scaled:
    x: object
    factor: int = 2


Point = collections.namedtuple("Point", "x y")


def test_dataclass_results_hold_this_calls_values():
    f = rt.function(lambda x: Pair(x + 1, {"twice": x * 2}))
    for v in (1.0, 2.0, -3.0):
        out = f(rt.constant(v))
        assert isinstance(out, Pair)
        assert out.a.numpy() == v + 1 and out.b["twice"].numpy() == v * 2
    assert f.experimental_get_tracing_count() == 1


def test_namedtuple_results_and_arguments():
    f = rt.function(lambda p: Point(p.y, p.x + p.y))
    out = f(Point(rt.constant(1.0), rt.constant(2.0)))
    assert isinstance(out, Point) and (out.x.numpy(), out.y.numpy()) == (2.0, 3.0)
    f(Point(rt.constant(5.0), rt.constant(1.0)))
    assert f.experimental_get_tracing_count() == 1


def test_dataclass_arguments_are_keyed_by_their_fields():
    def f(s):
        return s.x * s.factor

    g = rt.function(f)
    assert g(Scaled(rt.constant(3.0))).numpy() == 6.0
    assert g(Scaled(rt.constant(4.0))).numpy() == 8.0
    assert g.experimental_get_tracing_count() == 1
    assert g(Scaled(rt.constant(4.0), factor=3)).numpy() == 12.0      # a Python field retraces
    assert g(Scaled(rt.constant([1.0, 2.0]))).numpy().tolist() == [2.0, 4.0]
    assert g.experimental_get_tracing_count() == 3


def test_nested_dataclass_arguments():
    g = rt.function(lambda p: p.a.x + p.b[0])
    assert g(Pair(Scaled(rt.constant(1.0)), [rt.constant(2.0)])).numpy() == 3.0
    assert g(Pair(Scaled(rt.constant(5.0)), [rt.constant(2.0)])).numpy() == 7.0
    assert g.experimental_get_tracing_count() == 1


class Holder:
    def __init__(self, value):
        self.value = value


def test_plain_object_holding_a_symbolic_tensor_is_an_error():
    def make_holder(x):
        return Holder(x + 1)

    with pytest.raises(TypeError, match="make_holder.*Holder.*'value'"):
        rt.function(make_holder)(rt.constant(1.0))


def test_plain_object_without_tensors_is_returned_as_is():
    marker = Holder("python")

    def f(x):
        return x + 1, marker

    out, same = rt.function(f)(rt.constant(1.0))
    assert out.numpy() == 2.0 and same is marker


def test_dataclass_of_specs_in_signatures():
    def f(p):
        return Pair(p.a * 2, p.b + 1)

    g = rt.function(f)
    concrete = g.get_concrete_function(Pair(rt.TensorSpec([], rt.float32), rt.TensorSpec([2], rt.float32)))
    out = concrete(Pair(rt.constant(1.0), rt.constant([1.0, 2.0])))
    assert out.a.numpy() == 2.0 and out.b.numpy().tolist() == [2.0, 3.0]
    h = rt.function(f, input_signature=[Pair(rt.TensorSpec([], rt.float32),
                                             rt.TensorSpec([None], rt.float32))])
    assert h(Pair(rt.constant(1.0), rt.constant([1.0, 2.0, 3.0]))).b.numpy().tolist() == [2.0, 3.0, 4.0]
    assert h(Pair(rt.constant(2.0), rt.constant([1.0]))).a.numpy() == 4.0
    assert h.experimental_get_tracing_count() == 1
