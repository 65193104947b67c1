"""rt.types.experimental and the `__tf_tracing_type__` protocol of rt.function's cache."""

import typing

import numpy as np
import pytest

import runtime as rt

TraceType = rt.types.experimental.TraceType


class Fruit:
    flavor = rt.constant([0, 0])


class Apple(Fruit):
    flavor = rt.constant([1, 2])


class Mango(Fruit):
    flavor = rt.constant([3, 4])


class FruitTraceType(TraceType):
    def __init__(self, fruit):
        self.fruit_type = type(fruit)
        self.fruit_value = fruit

    def is_subtype_of(self, other):
        return type(other) is FruitTraceType and self.fruit_type is other.fruit_type

    def most_specific_common_supertype(self, others):
        return self if all(self == other for other in others) else None

    def placeholder_value(self, placeholder_context=None):
        return self.fruit_value

    def __eq__(self, other):
        return type(other) is FruitTraceType and self.fruit_type == other.fruit_type

    def __hash__(self):
        return hash(self.fruit_type)


class AppleWithTraceType(Apple):
    def __tf_tracing_type__(self, context):
        return FruitTraceType(self)


class MangoWithTraceType(Mango):
    def __tf_tracing_type__(self, context):
        return FruitTraceType(self)


def test_trace_type_is_abstract():
    with pytest.raises(TypeError):
        TraceType()

    class Incomplete(TraceType):
        def is_subtype_of(self, other):
            return False

    with pytest.raises(TypeError):
        Incomplete()
    t = FruitTraceType(Apple())
    assert t == FruitTraceType(Apple()) and hash(t) == hash(FruitTraceType(Apple()))
    assert t.is_subtype_of(FruitTraceType(Apple()))
    assert not t.is_subtype_of(FruitTraceType(Mango()))
    assert t.most_specific_common_supertype([FruitTraceType(Mango())]) is None


def test_equal_trace_types_share_a_trace():
    @rt.function
    def get_mixed_flavor(fruit_a, fruit_b):
        return fruit_a.flavor + fruit_b.flavor

    np.testing.assert_array_equal(get_mixed_flavor(AppleWithTraceType(), MangoWithTraceType()).numpy(),
                                  [4, 6])
    assert get_mixed_flavor.experimental_get_tracing_count() == 1
    get_mixed_flavor(AppleWithTraceType(), MangoWithTraceType())   # new objects, equal types
    assert get_mixed_flavor.experimental_get_tracing_count() == 1
    np.testing.assert_array_equal(get_mixed_flavor(MangoWithTraceType(), AppleWithTraceType()).numpy(),
                                  [4, 6])
    assert get_mixed_flavor.experimental_get_tracing_count() == 2


def test_objects_without_the_protocol_are_keyed_by_identity():
    @rt.function
    def get_mixed_flavor(fruit_a, fruit_b):
        return fruit_a.flavor + fruit_b.flavor

    get_mixed_flavor(Apple(), Mango())
    get_mixed_flavor(Apple(), Mango())
    assert get_mixed_flavor.experimental_get_tracing_count() == 2


def test_unhashable_trace_type_is_a_clear_error():
    class Bad:
        def __tf_tracing_type__(self, context):
            return []

    @rt.function
    def f(x):
        return rt.constant(1)

    with pytest.raises(TypeError, match="__tf_tracing_type__"):
        f(Bad())


def test_aliases():
    assert rt.types.experimental.GenericFunction is rt.Function
    assert rt.types.experimental.ConcreteFunction is rt.ConcreteFunction
    assert isinstance(rt.function(lambda x: x), rt.types.experimental.GenericFunction)
    args = typing.get_args(rt.types.experimental.TensorLike)
    assert rt.Tensor in args and np.ndarray in args

    def takes(x: rt.types.experimental.TensorLike) -> rt.Tensor:
        return rt.convert_to_tensor(x)

    assert typing.get_type_hints(takes)["x"] == rt.types.experimental.TensorLike
