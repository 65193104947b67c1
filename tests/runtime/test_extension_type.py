"""rt.experimental.ExtensionType / BatchableExtensionType and the composite-value protocol:
checked against TensorFlow's extension type guide (its documented results), NumPy and plain
Python."""

from __future__ import annotations

from typing import List, Mapping, Tuple, Union

import numpy as np
import pytest

import runtime as rt
from runtime.ops import extension_type as et


class MaskedTensor(rt.experimental.BatchableExtensionType):
    __name__ = "tests.extension_type.MaskedTensor"
    values: rt.Tensor
    mask: rt.Tensor

    def __validate__(self):
        self.values.shape.assert_is_compatible_with(self.mask.shape)
        assert self.mask.dtype.is_bool, "mask.dtype must be bool"

    def with_values(self, new_values):
        return MaskedTensor(new_values, self.mask)

    def with_default(self, default):
        return rt.where(self.mask, self.values, default)


class Player(rt.experimental.ExtensionType):
    name: rt.Tensor
    attributes: Mapping[str, rt.Tensor]


class Pencil(rt.experimental.ExtensionType):
    color: str = "black"
    has_erasor: bool = True
    length: rt.Tensor = 1.0


class Network(rt.experimental.BatchableExtensionType):
    shape: rt.TensorShape
    work: rt.Tensor
    bandwidth: rt.Tensor

    def __init__(self, work, bandwidth):
        self.work = rt.convert_to_tensor(work)
        self.bandwidth = rt.convert_to_tensor(bandwidth)
        self.shape = self.work.shape[:-1].merge_with(self.bandwidth.shape[:-2])


def balance_work_greedy(network):
    delta = rt.expand_dims(network.work, -1) - rt.expand_dims(network.work, -2)
    delta /= 4
    delta = rt.maximum(rt.minimum(delta, network.bandwidth), -network.bandwidth)
    return Network(network.work + rt.reduce_sum(delta, -1), network.bandwidth)


def balance_numpy(work, bandwidth):
    delta = (work[..., :, None] - work[..., None, :]) / 4
    delta = np.maximum(np.minimum(delta, bandwidth), -bandwidth)
    return work + delta.sum(-1)


# -- fields ----------------------------------------------------------------------------------

def test_fields_are_converted_and_defaults_apply():
    mt = MaskedTensor(values=[[1, 2, 3], [4, 5, 6]], mask=[[True, True, False], [True, False, True]])
    assert isinstance(mt.values, rt.Tensor) and mt.values.dtype is rt.int32
    np.testing.assert_array_equal(mt.values.numpy(), [[1, 2, 3], [4, 5, 6]])
    pencil = Pencil(length=0.5, color="blue")
    assert (pencil.color, pencil.has_erasor) == ("blue", True)
    assert pencil.length.dtype is rt.float32 and pencil.length.numpy() == 0.5
    assert Pencil().color == "black" and Pencil().length.numpy() == 1.0


def test_a_missing_tensor_is_a_type_error_naming_the_field():
    with pytest.raises(TypeError, match="mask: expected a Tensor, got 'NoneType'"):
        MaskedTensor([1, 2, 3], None)
    with pytest.raises(TypeError, match="color"):
        Pencil(color=3)


def test_validate_runs_after_conversion():
    with pytest.raises(AssertionError, match="mask.dtype must be bool"):
        MaskedTensor([1, 2, 3], [0, 1, 0])
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are incompatible"):
        MaskedTensor([1, 2, 3], [True, False])


def test_values_are_immutable():
    mt = MaskedTensor([1, 2, 3], [True, False, True])
    with pytest.raises(AttributeError, match="Cannot mutate attribute `mask`"):
        mt.mask = [True, True, True]
    with pytest.raises(AttributeError):
        del mt.mask
    anne = Player("Anne", {"height": 8.3, "speed": 28.1})
    with pytest.raises(TypeError, match="immutable"):
        anne.attributes["height"] = 1.0


def test_custom_init_sets_fields_then_freezes():
    class Toy(rt.experimental.ExtensionType):
        name: str
        price: rt.Tensor

        def __init__(self, name, price, discount=0):
            self.name = name
            self.price = price * (1 - discount)

    toy = Toy("ball", 5.0, discount=0.2)
    assert toy.name == "ball" and toy.price.numpy() == pytest.approx(4.0)
    with pytest.raises(AttributeError):
        toy.name = "bat"


def test_nested_types_and_forward_references():
    class Node(rt.experimental.ExtensionType):
        value: rt.Tensor
        children: Tuple["Node", ...] = ()

    tree = Node(3, [Node(5), Node(2)])
    assert isinstance(tree.children, tuple) and [c.value.numpy() for c in tree.children] == [5, 2]
    with pytest.raises(TypeError, match="children"):
        Node(3, [1])


def test_eq_is_a_bool_tensor_as_in_tensorflow():
    a = MaskedTensor([1, 2], [True, False])
    b = MaskedTensor([[3, 4], [5, 6]], [[False, True], [True, True]])
    assert isinstance(a == a, rt.Tensor) and bool(a == a)
    assert not bool(a == b)
    assert not bool(a == a.values)
    assert bool(a != b)


def test_default_repr_lists_the_fields():
    pencil = Pencil()
    assert repr(pencil) == (f"Pencil(color='black', has_erasor=True, length={pencil.length!r})")


def test_type_spec_from_value_records_shapes_not_values():
    anne_spec = rt.type_spec_from_value(Player("Anne", {"height": 8.3, "speed": 28.1}))
    assert anne_spec.name == rt.TensorSpec([], rt.string)
    assert dict(anne_spec.attributes) == {"height": rt.TensorSpec([], rt.float32),
                                          "speed": rt.TensorSpec([], rt.float32)}
    assert repr(anne_spec.attributes).startswith("ImmutableDict(")
    bart_spec = rt.type_spec_from_value(Player("Bart", {"height": 8.1, "speed": 25.3}))
    assert anne_spec == bart_spec and hash(anne_spec) == hash(bart_spec)
    assert anne_spec.is_compatible_with(Player("C", {"height": 1.0, "speed": 2.0}))
    assert not anne_spec.is_compatible_with(Player("C", {"height": 1.0, "jump": 2.0}))


def test_nest_expand_composites():
    mt = MaskedTensor([1, 2], [True, False])
    assert rt.nest.flatten([mt, 3], expand_composites=False) == [mt, 3]
    leaves = rt.nest.flatten(mt, expand_composites=True)
    assert len(leaves) == 2 and leaves[0] is mt.values and leaves[1] is mt.mask
    rebuilt = rt.nest.pack_sequence_as(mt, [rt.constant([7, 8]), mt.mask], expand_composites=True)
    assert isinstance(rebuilt, MaskedTensor) and rebuilt.values.numpy().tolist() == [7, 8]
    ragged = rt.ragged.constant([[1, 2], [3]])
    assert rt.nest.flatten({"r": ragged}, expand_composites=False) == [ragged]
    assert len(rt.nest.flatten({"r": ragged}, expand_composites=True)) == 2


# -- rt.function -----------------------------------------------------------------------------

def test_function_traces_once_per_type_spec():
    traces = []

    @rt.function
    def anonymize_player(player):
        traces.append(1)
        return Player("<anonymous>", player.attributes)

    out = anonymize_player(Player("Anne", {"height": 8.3, "speed": 28.1}))
    assert isinstance(out, Player) and out.name.numpy() == b"<anonymous>"
    assert out.attributes["speed"].numpy() == pytest.approx(28.1)
    anonymize_player(Player("Bart", {"height": 8.1, "speed": 25.3}))
    assert len(traces) == 1  # same TypeSpec: the guide's "does NOT get traced"
    anonymize_player(Player("Chuck", {"height": 11.0, "jump": 5.3}))
    assert len(traces) == 2


def test_python_fields_are_part_of_the_trace_key():
    calls = []

    @rt.function
    def length(p):
        calls.append(p.color)
        return p.length * 2

    assert length(Pencil(color="red")).numpy() == 2.0
    length(Pencil(color="red", length=3.0))
    length(Pencil(color="blue"))
    assert calls == ["red", "blue"]


def test_input_signature_and_get_concrete_function_take_specs():
    class Pastry(rt.experimental.ExtensionType):
        sweetness: rt.Tensor
        chewiness: rt.Tensor

    spec = Pastry.Spec(rt.TensorSpec([2]), rt.TensorSpec(2))

    @rt.function(input_signature=[spec])
    def increase_sweetness(x, delta=1.0):
        return Pastry(x.sweetness + delta, x.chewiness)

    cookie = Pastry(sweetness=[1.2, 0.4], chewiness=[0.8, 0.2])
    out = increase_sweetness(cookie)
    np.testing.assert_allclose(out.sweetness.numpy(), [2.2, 1.4], rtol=1e-6)
    with pytest.raises((TypeError, ValueError)):
        increase_sweetness(Pastry(sweetness=[1.0, 2.0, 3.0], chewiness=[1.0, 2.0, 3.0]))

    @rt.function
    def combine(x):
        return (x.sweetness + x.chewiness) / 2

    cf = combine.get_concrete_function(spec)
    np.testing.assert_allclose(cf(cookie).numpy(), [1.0, 0.3], rtol=1e-6)
    assert "Pastry.Spec(" in cf.pretty_printed_signature()


def test_gradients_flow_through_float_fields():
    w = rt.Variable([2.0, 3.0, 4.0])

    @rt.function
    def loss(mt):
        return rt.reduce_sum(mt.with_default(0.0) * w)

    values = rt.constant([1.0, 5.0, 7.0])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(values)
        y = loss(MaskedTensor(values, [True, False, True]))
    assert y.numpy() == pytest.approx(1 * 2 + 7 * 4)
    np.testing.assert_allclose(tape.gradient(y, values).numpy(), [2.0, 0.0, 4.0])
    np.testing.assert_allclose(tape.gradient(y, w).numpy(), [1.0, 0.0, 7.0])


# -- control flow ----------------------------------------------------------------------------

def test_cond_and_while_loop_carry_extension_types():
    a = MaskedTensor([1.0, 2, 3], [True, False, True])
    b = MaskedTensor([22.0, 33, 108, 55], [True, True, True, False])
    picked = rt.cond(rt.constant(True), lambda: a, lambda: b)
    assert isinstance(picked, MaskedTensor) and picked.values.numpy().tolist() == [1, 2, 3]

    def body(i, mt):
        return i + 1, mt.with_values(mt.values + 3 / 7)

    _, looped = rt.while_loop(lambda i, _: i < 10, body, [0, b])
    expected = np.float32([22, 33, 108, 55])
    for _ in range(10):
        expected = expected + np.float32(3 / 7)
    np.testing.assert_allclose(looped.values.numpy(), expected, rtol=1e-6)
    assert looped.mask.numpy().tolist() == [True, True, True, False]


def test_autograph_loops_over_extension_types():
    @rt.function
    def fn(x, b):
        if b:
            x = MaskedTensor(x, rt.less(x, 0))
        else:
            x = MaskedTensor(x, rt.greater(x, 0))
        for _ in rt.range(5 if b else 7):
            x = x.with_values(x.values + 1 / 2)
        return x

    out = fn(rt.constant([1.0, -2, 3]), rt.constant(True))
    np.testing.assert_allclose(out.values.numpy(), [3.5, 0.5, 5.5])
    assert out.mask.numpy().tolist() == [False, True, False]
    out = fn(rt.constant([1.0, -2, 3]), rt.constant(False))
    np.testing.assert_allclose(out.values.numpy(), [4.5, 1.5, 6.5])


def test_map_fn_over_a_batchable_type():
    work = np.float32([[5, 3, 8], [3, 4, 2]])
    bandwidth = np.float32([[[0, 2, 0], [2, 0, 3], [0, 3, 0]], [[0, 2, 2], [2, 0, 2], [2, 2, 0]]])
    batch = Network(work, bandwidth)
    assert batch.shape.as_list() == [2]
    out = rt.map_fn(balance_work_greedy, batch)
    assert isinstance(out, Network) and out.shape.as_list() == [2]
    np.testing.assert_allclose(out.work.numpy(), balance_numpy(work, bandwidth), rtol=1e-6)


# -- dispatch --------------------------------------------------------------------------------

def test_dispatch_for_api_and_unregister():
    @rt.experimental.dispatch_for_api(rt.stack)
    def masked_stack(values: List[Union[MaskedTensor, rt.Tensor]], axis=0):
        values = [v if isinstance(v, MaskedTensor) else MaskedTensor(v, rt.ones_like(v, rt.bool))
                  for v in values]
        return MaskedTensor(rt.stack([v.values for v in values], axis),
                            rt.stack([v.mask for v in values], axis))

    try:
        x = MaskedTensor([1, 2, 3], [True, True, False])
        y = rt.constant([4, 5, 6])
        out = rt.stack([x, y, x])
        assert isinstance(out, MaskedTensor)
        np.testing.assert_array_equal(out.values.numpy(), np.stack([[1, 2, 3], [4, 5, 6], [1, 2, 3]]))
        assert out.mask.numpy().tolist()[1] == [True, True, True]
        plain = rt.stack([y, y])   # tensors only: the API itself
        assert isinstance(plain, rt.Tensor) and plain.shape.as_list() == [2, 3]
    finally:
        rt.experimental.unregister_dispatch_for(masked_stack)
    with pytest.raises(TypeError):
        rt.stack([MaskedTensor([1], [True]), MaskedTensor([2], [False])])


def test_elementwise_dispatch():
    @rt.experimental.dispatch_for_unary_elementwise_apis(MaskedTensor)
    def unary(api_func, x):
        return MaskedTensor(api_func(x.values), x.mask)

    @rt.experimental.dispatch_for_binary_elementwise_apis(MaskedTensor, MaskedTensor)
    def binary(api_func, x, y):
        return MaskedTensor(api_func(x.values, y.values), x.mask & y.mask)

    try:
        x = MaskedTensor([1, -2, -3], [True, False, True])
        assert rt.abs(x).values.numpy().tolist() == [1, 2, 3]
        ones = rt.ones_like(x, dtype=rt.float32)
        assert ones.values.dtype is rt.float32 and ones.values.numpy().tolist() == [1, 1, 1]
        y = MaskedTensor([[4], [5]], [[True], [False]])
        total = rt.math.add(x, y)
        np.testing.assert_array_equal(total.values.numpy(), np.add([1, -2, -3], [[4], [5]]))
        np.testing.assert_array_equal(total.mask.numpy(),
                                      np.logical_and([True, False, True], [[True], [False]]))
        assert rt.add(rt.constant(1), rt.constant(2)).numpy() == 3
    finally:
        rt.experimental.unregister_dispatch_for(unary)
        rt.experimental.unregister_dispatch_for(binary)


# -- datasets --------------------------------------------------------------------------------

def test_datasets_hold_extension_types():
    mt = MaskedTensor(rt.reshape(rt.range(20), [5, 4]), rt.ones([5, 4]) > 0)
    rows = list(rt.data.Dataset.from_tensor_slices(mt))
    assert len(rows) == 5 and isinstance(rows[1], MaskedTensor)
    assert rows[1].values.numpy().tolist() == [4, 5, 6, 7]

    def gen():
        for i in range(2, 7):
            yield MaskedTensor(range(10), [j % i != 0 for j in range(10)])

    ds = rt.data.Dataset.from_generator(gen, output_signature=MaskedTensor.Spec(
        values=rt.TensorSpec([10], rt.int32), mask=rt.TensorSpec([10], rt.bool)))
    batched = list(ds.batch(2))
    assert [b.values.shape.as_list() for b in batched] == [[2, 10], [2, 10], [1, 10]]
    assert batched[0].mask.numpy()[1].tolist() == [j % 3 != 0 for j in range(10)]
    unbatched = list(ds.batch(2).unbatch())
    assert [u.mask.numpy().tolist() for u in unbatched] == \
        [[j % i != 0 for j in range(10)] for i in range(2, 7)]


def test_dataset_slices_of_a_batchable_type_drop_the_batch_shape():
    batch = Network(np.float32([[5, 3, 8], [3, 4, 2]]), np.zeros([2, 3, 3], np.float32))
    ds = rt.data.Dataset.from_tensor_slices(batch)
    elements = list(ds)
    assert [e.shape.as_list() for e in elements] == [[], []]
    assert elements[1].work.numpy().tolist() == [3, 4, 2]
    again = list(ds.batch(2))
    assert again[0].shape.as_list() == [2]


# -- saving ----------------------------------------------------------------------------------

def test_saved_functions_round_trip_extension_types(tmp_path):
    class Grower(rt.Module):
        def __init__(self):
            super().__init__()
            self.v = rt.Variable(100.0)

        @rt.function
        def grow(self, x):
            return MaskedTensor(x.values * self.v, x.mask)

    module = Grower()
    module.grow.get_concrete_function(MaskedTensor.Spec(values=rt.TensorSpec(None, rt.float32),
                                                        mask=rt.TensorSpec(None, rt.bool)))
    rt.saved_model.save(module, str(tmp_path))
    loaded = rt.saved_model.load(str(tmp_path))
    out = loaded.grow(MaskedTensor([1.0, 2, 3], [False, True, False]))
    assert isinstance(out, MaskedTensor)
    np.testing.assert_allclose(out.values.numpy(), [100.0, 200.0, 300.0])
    assert out.mask.numpy().tolist() == [False, True, False]


def test_loading_looks_types_up_only_in_the_registry(tmp_path, monkeypatch):
    class Holder(rt.Module):
        @rt.function
        def same(self, x):
            return x

    module = Holder()
    module.same.get_concrete_function(MaskedTensor.Spec(values=rt.TensorSpec([2], rt.float32),
                                                        mask=rt.TensorSpec([2], rt.bool)))
    rt.saved_model.save(module, str(tmp_path))
    assert et.lookup_registered("tests.extension_type.MaskedTensor") is MaskedTensor
    monkeypatch.delitem(et._REGISTRY, "tests.extension_type.MaskedTensor")
    with pytest.raises(ValueError, match="tests.extension_type.MaskedTensor"):
        rt.saved_model.load(str(tmp_path))


def test_element_spec_shows_the_spec_and_staged_loops_iterate():
    mt = MaskedTensor([[1, 2], [3, 4]], [[True, False], [True, True]])
    ds = rt.data.Dataset.from_tensor_slices(mt)
    assert ds.element_spec == MaskedTensor.Spec(values=rt.TensorSpec([2], rt.int32),
                                                mask=rt.TensorSpec([2], rt.bool))
    assert ds.batch(2).element_spec.values == rt.TensorSpec([None, 2], rt.int32)

    @rt.function
    def masked_total(d):
        total = rt.constant(0)
        for x in d:
            total += rt.reduce_sum(x.with_default(0))
        return total

    assert masked_total(ds).numpy() == 1 + 3 + 4
    doubled = ds.map(lambda m: m.with_values(m.values * 2))
    assert masked_total(doubled).numpy() == 2 * (1 + 3 + 4)


@pytest.mark.parametrize("tier", ["xla", True], ids=["xla", "numba"])
def test_compiler_tiers_take_and_return_extension_types(tier):
    pytest.importorskip("jax" if tier == "xla" else "numba")

    def double_valid(m):
        return MaskedTensor(rt.where(m.mask, m.values * 2.0, 0.0), m.mask)

    x = MaskedTensor([1.0, 2.0, 3.0], [True, False, True])
    out = rt.function(double_valid, jit_compile=tier)(x)
    assert isinstance(out, MaskedTensor)
    np.testing.assert_allclose(out.values.numpy(), np.where([True, False, True], [2.0, 4.0, 6.0], 0.0))
    assert out.mask.numpy().tolist() == [True, False, True]


def test_operators_of_a_type_apply_when_a_tensor_is_on_the_left():
    class Shifted(rt.experimental.ExtensionType):
        values: rt.Tensor

        def __add__(self, other):
            return Shifted(self.values + (other.values if isinstance(other, Shifted) else other))

        __radd__ = __add__

    s = Shifted([1, 2])
    assert (s + 1).values.numpy().tolist() == [2, 3]
    assert (rt.constant([10, 20]) + s).values.numpy().tolist() == [11, 22]  # TensorFlow: __radd__
    with pytest.raises(TypeError):
        rt.constant([10, 20]) * s  # no __rmul__: Python's TypeError


def test_eq_while_tracing_with_unknown_shapes():
    @rt.function(input_signature=[rt.TensorSpec(None, rt.int32), rt.TensorSpec(None, rt.int32)])
    def same(a, b):
        return MaskedTensor(a, a > 0) == MaskedTensor(b, b > 0)

    assert bool(same(rt.constant([1, 2]), rt.constant([1, 2])))
    assert not bool(same(rt.constant([1, 2]), rt.constant([1, 3])))


def test_dataset_save_and_load_extension_types(tmp_path, monkeypatch):
    work = np.float32([[5, 3, 8], [3, 4, 2]])
    ds = rt.data.Dataset.from_tensor_slices(Network(work, np.ones([2, 3, 3], np.float32)))
    ds.save(str(tmp_path / "networks"))
    loaded = list(rt.data.Dataset.load(str(tmp_path / "networks")))
    assert [type(n) for n in loaded] == [Network, Network]
    assert [n.shape.as_list() for n in loaded] == [[], []]
    np.testing.assert_array_equal(np.stack([n.work.numpy() for n in loaded]), work)
    monkeypatch.delitem(et._REGISTRY, et.registered_name(Network))
    with pytest.raises(rt.errors.DataLossError, match="No ExtensionType named .*Network"):
        list(rt.data.Dataset.load(str(tmp_path / "networks")))


def test_python_fields_are_checked_and_names_registered_once_as_in_tensorflow():
    class Counted(rt.experimental.ExtensionType):
        x: rt.Tensor
        n: int
        scale: float = 1.0

    with pytest.raises(TypeError, match="n: expected 'int', got 'float'"):
        Counted(1, 2.5)
    with pytest.raises(TypeError, match="scale: expected 'float', got 'int'"):
        Counted(1, 2, scale=2)
    assert Counted(1, True).n is True  # a bool is an int, as in TensorFlow

    et._REGISTRY.pop("tests.extension_type.Named", None)  # the test may run twice in a process

    class Named(rt.experimental.ExtensionType):
        __name__ = "tests.extension_type.Named"
        v: rt.Tensor

    with pytest.raises(ValueError, match="tests.extension_type.Named has already been registered"):
        class Other(rt.experimental.ExtensionType):
            __name__ = "tests.extension_type.Named"
            v: rt.Tensor
    assert et.lookup_registered("tests.extension_type.Named") is Named


def test_list_and_dict_defaults_become_immutable_as_in_tensorflow():
    class Tagged(rt.experimental.ExtensionType):
        name: rt.Tensor
        attributes: Mapping[str, rt.Tensor] = {}
        tags: Tuple[str, ...] = []

    plain = Tagged("a")
    assert dict(plain.attributes) == {} and plain.tags == ()  # TensorFlow prints ImmutableDict({}) ()
    assert repr(plain.attributes) == "ImmutableDict({})"
    assert Tagged("b", {"h": 1.0}, ["x"]).tags == ("x",)


def test_apis_keep_their_identity_for_name_tables_while_and_after_dispatch():
    class Boxed(rt.experimental.ExtensionType):
        value: rt.Tensor

    relu = rt.nn.relu

    @rt.experimental.dispatch_for_unary_elementwise_apis(Boxed)
    def boxed_unary(api_func, x):
        return Boxed(api_func(x.value))

    try:
        assert rt.keras.activations.serialize(rt.nn.relu) == "relu"  # the wrapper is relu
        layer = rt.keras.layers.Dense(2, activation=rt.nn.relu)
        assert layer.get_config()["activation"] == "relu"
        np.testing.assert_array_equal(rt.nn.relu(Boxed(rt.constant([-1.0, 2.0]))).value.numpy(),
                                      [0.0, 2.0])
    finally:
        rt.experimental.unregister_dispatch_for(boxed_unary)
    assert rt.nn.relu is relu  # no handler left: the API itself again


def test_a_function_returns_string_scalars_as_tensors():
    # TensorFlow's extension-type guide: a traced function builds a Player with a new name
    class Player(rt.experimental.ExtensionType):
        name: rt.Tensor
        attributes: Mapping[str, rt.Tensor]

    @rt.function
    def anonymize_player(player):
        return Player("<anonymous>", player.attributes)

    out = anonymize_player(Player("Anne", {"height": 8.3, "speed": 28.1}))
    assert out.name.shape.as_list() == [] and out.name.dtype == rt.string
    assert out.name.numpy() == b"<anonymous>"
    assert "numpy=b'<anonymous>'" in repr(out)
    assert rt.function(lambda: rt.constant("abc"))().numpy() == b"abc"


def test_a_name_bound_before_registration_dispatches_to_the_handler():
    class Boxed(rt.experimental.ExtensionType):
        value: rt.Tensor

    multiply, abs_ = rt.multiply, rt.math.abs  # bound before any handler exists

    @rt.experimental.dispatch_for_binary_elementwise_apis(Boxed, Boxed)
    def boxed_binary(api_func, x, y):
        return Boxed(api_func(x.value, y.value))

    @rt.experimental.dispatch_for_api(rt.math.abs, {"x": Boxed})
    def boxed_abs(x):
        return Boxed(rt.math.abs(x.value))

    try:
        out = multiply(Boxed([2.0, -3.0]), Boxed([4.0, 5.0]))
        np.testing.assert_array_equal(out.value.numpy(), np.multiply([2.0, -3.0], [4.0, 5.0]))
        np.testing.assert_array_equal(abs_(Boxed([-1.5, 2.0])).value.numpy(), [1.5, 2.0])
        assert multiply(rt.constant(2), rt.constant(3)).numpy() == 6
    finally:
        rt.experimental.unregister_dispatch_for(boxed_binary)
        rt.experimental.unregister_dispatch_for(boxed_abs)
    with pytest.raises(TypeError):  # no handler left: the API's own refusal
        multiply(Boxed([1.0]), Boxed([2.0]))
