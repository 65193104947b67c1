"""rt.Module: TensorFlow 2's tf.Module patterns (names, scopes, tracking, functions, saving)."""

import numpy as np
import pytest

import runtime as rt


class Linear(rt.Module):
    """y = x @ w + b, with fixed starting values so a NumPy oracle can follow it."""

    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        self.w = rt.Variable(np.linspace(-1.0, 1.0, n_in * n_out, dtype=np.float32)
                             .reshape(n_in, n_out), name="w")
        self.b = rt.Variable(np.full(n_out, 0.5, np.float32), name="b")

    def __call__(self, x):
        return rt.matmul(x, self.w) + self.b


class TwoLayers(rt.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.first = Linear(3, 4)
        self.second = Linear(4, 2)

    @rt.function
    def __call__(self, x):
        return self.second(rt.nn.relu(self.first(x)))


def _ids(items):
    return [id(item) for item in items]


def test_default_name_is_the_snake_case_class_name_and_not_made_unique():
    assert Linear(1, 1).name == "linear"
    assert Linear(1, 1).name == "linear"
    assert TwoLayers(name="net").name == "net"

    class HTTPDenseLayer2(rt.Module):
        pass
    assert HTTPDenseLayer2().name == "http_dense_layer2"


@pytest.mark.parametrize("bad", ["has space", "1abc", "a/b", "", "a-b", 3])
def test_a_name_that_is_no_identifier_raises(bad):
    with pytest.raises(ValueError, match="not a valid module name"):
        rt.Module(name=bad)


def test_variables_are_sorted_by_attribute_then_submodules_follow():
    net = TwoLayers()
    first, second = net.first, net.second
    assert _ids(net.variables) == _ids([first.b, first.w, second.b, second.w])
    assert _ids(net.trainable_variables) == _ids(net.variables)
    assert net.non_trainable_variables == ()
    assert _ids(net.submodules) == _ids([first, second])
    assert first.submodules == ()
    assert [v.name for v in first.variables] == ["b:0", "w:0"]


def test_own_variables_come_before_those_of_submodules():
    class Outer(rt.Module):
        def __init__(self):
            super().__init__()
            self.a_child = Linear(1, 1)          # sorts first, but is a module
            self.z = rt.Variable(1.0, name="z")  # the outer's own variable comes first

    outer = Outer()
    assert _ids(outer.variables) == _ids([outer.z, outer.a_child.b, outer.a_child.w])


def test_submodules_list_direct_children_before_grandchildren():
    class Node(rt.Module):
        def __init__(self, name, children=()):
            super().__init__(name=name)
            self.children = list(children)

    d, e = Node("d"), Node("e")
    b, c = Node("b", [d]), Node("c", [e])
    a = Node("a", [b, c])
    assert [m.name for m in a.submodules] == ["b", "c", "d", "e"]


def test_non_trainable_variables():
    class Counter(rt.Module):
        def __init__(self):
            super().__init__()
            self.scale = rt.Variable(2.0, name="scale")
            self.count = rt.Variable(0, trainable=False, name="count")

    counter = Counter()
    assert _ids(counter.variables) == _ids([counter.count, counter.scale])
    assert _ids(counter.trainable_variables) == _ids([counter.scale])
    assert _ids(counter.non_trainable_variables) == _ids([counter.count])


def test_lists_tuples_and_dicts_are_walked_dict_values_by_sorted_key():
    class Bag(rt.Module):
        def __init__(self):
            super().__init__()
            self.by_key = {"z": rt.Variable(1.0, name="z"), "a": rt.Variable(2.0, name="a")}
            self.layers = [Linear(1, 1, name="l0"), (Linear(1, 1, name="l1"),)]
            self.nested = {"k": [rt.Variable(3.0, name="k0")]}
            self.number = 3
            self.text = "not tracked"

    bag = Bag()
    # own variables (by_key, then nested) before the submodules' (in the order found)
    assert [v.name for v in bag.variables] == ["a:0", "z:0", "k0:0", "b:0", "w:0", "b:0", "w:0"]
    l0, (l1,) = bag.layers
    assert _ids(bag.submodules) == _ids([l0, l1])
    assert _ids(bag.variables[3:]) == _ids([l0.b, l0.w, l1.b, l1.w])


def test_a_variable_or_module_reachable_twice_is_listed_once():
    class Shared(rt.Module):
        def __init__(self):
            super().__init__()
            self.w = rt.Variable(1.0, name="w")
            self.again = [self.w, {"w": self.w}]
            self.child = Linear(1, 1)
            self.same_child = self.child
            self.child_vars = [self.child.w]

    shared = Shared()
    assert _ids(shared.variables) == _ids([shared.w, shared.child.w, shared.child.b])
    assert _ids(shared.submodules) == _ids([shared.child])


def test_a_cycle_between_modules_ends():
    a, b = rt.Module(name="a"), rt.Module(name="b")
    a.other, b.other = b, a
    a.v = rt.Variable(1.0)
    b.items = [b]
    assert _ids(a.submodules) == _ids([b])
    assert _ids(b.submodules) == _ids([a])
    assert _ids(a.variables) == _ids([a.v])


def test_name_scope_prefixes_the_ops_created_inside():
    module = Linear(2, 2, name="dense")

    @rt.function
    def f(x):
        with module.name_scope:
            return rt.add(x, 1.0, name="plus")

    graph = f.get_concrete_function(rt.TensorSpec([], rt.float32)).graph
    assert "dense/plus" in [op.name for op in graph.get_operations()]
    with module.name_scope as scope:
        assert scope == "dense/"
    with module.name_scope:  # reusable
        pass


def test_with_name_scope_runs_the_method_in_the_module_scope():
    class Scaler(rt.Module):
        def __init__(self):
            super().__init__(name="scaler")
            self.factor = rt.Variable(3.0)

        @rt.function
        @rt.Module.with_name_scope
        def __call__(self, x):
            return rt.multiply(x, self.factor, name="times")

    scaler = Scaler()
    assert float(scaler(rt.constant(2.0))) == 6.0
    graph = scaler.__call__.get_concrete_function(rt.TensorSpec([], rt.float32)).graph
    names = [op.name for op in graph.get_operations()]
    assert any(name.endswith("scaler/times") for name in names), names


def test_a_compiled_call_matches_numpy_and_traces_once():
    net = TwoLayers()
    x = np.array([[1.0, -2.0, 0.5], [0.0, 1.0, 2.0]], np.float32)
    expected = np.maximum(x @ net.first.w.numpy() + net.first.b.numpy(), 0) \
        @ net.second.w.numpy() + net.second.b.numpy()
    np.testing.assert_allclose(net(rt.constant(x)).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(net(rt.constant(x + 1)).numpy(),
                               np.maximum((x + 1) @ net.first.w.numpy() + net.first.b.numpy(), 0)
                               @ net.second.w.numpy() + net.second.b.numpy(), rtol=1e-6)
    assert net.__call__.experimental_get_tracing_count() == 1


def test_a_training_step_with_a_tape_and_an_optimizer_reduces_the_loss():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.25).astype(np.float32)
    model = Linear(3, 1)
    optimizer = rt.optimizers.SGD(learning_rate=0.1)

    def numpy_loss():
        return np.mean((x @ model.w.numpy() + model.b.numpy() - y) ** 2)

    @rt.function
    def step(x, y):
        with rt.GradientTape() as tape:
            loss = rt.reduce_mean(rt.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    losses = []
    for _ in range(20):
        expected = numpy_loss()
        loss = float(step(rt.constant(x), rt.constant(y)))
        np.testing.assert_allclose(loss, expected, rtol=1e-5)
        losses.append(loss)
    assert losses[-1] < 0.1 * losses[0]


def test_gradients_reach_every_trainable_variable_of_nested_modules():
    net = TwoLayers()
    x = rt.constant(np.ones((2, 3), np.float32))
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(net(x))
    grads = tape.gradient(loss, net.trainable_variables)
    assert len(grads) == 4 and all(g is not None for g in grads)
    for grad, var in zip(grads, net.trainable_variables):
        assert tuple(grad.shape) == tuple(var.shape)


def test_a_layer_is_a_module_and_keeps_its_own_rules():
    dense = rt.layers.Dense(2)
    assert isinstance(dense, rt.Module)
    dense(np.ones((1, 3), np.float32))
    assert isinstance(dense.variables, list)  # Keras's lists, own weights in creation order
    assert _ids(dense.variables) == _ids([dense.kernel, dense.bias])
    model = rt.layers.Sequential([rt.layers.Dense(4), rt.layers.Dense(1)])
    model(np.ones((2, 3), np.float32))
    first, second = model._stack
    assert _ids(model.submodules) == _ids([first, second])
    assert _ids(model.variables) == _ids([first.kernel, first.bias, second.kernel, second.bias])
    with model.name_scope as scope:
        assert scope == f"{model.name}/"


def test_a_layer_tracks_a_plain_module_and_a_module_tracks_a_layer():
    class Holder(rt.layers.Layer):
        def __init__(self):
            super().__init__()
            self.inner = Linear(1, 1)

    holder = Holder()
    assert _ids(holder.submodules) == _ids([holder.inner])
    assert holder.variables == []  # Keras 3: a plain module's variables are not weights

    class Wrapper(rt.Module):
        def __init__(self):
            super().__init__()
            self.dense = rt.layers.Dense(1, trainable=False)
            self.v = rt.Variable(1.0)

    wrapper = Wrapper()
    wrapper.dense(np.ones((1, 2), np.float32))
    assert _ids(wrapper.submodules) == _ids([wrapper.dense])
    assert _ids(wrapper.variables) == _ids([wrapper.v, wrapper.dense.kernel, wrapper.dense.bias])
    assert _ids(wrapper.trainable_variables) == _ids([wrapper.v])  # the frozen layer's rule


class Saveable(rt.Module):
    def __init__(self):
        super().__init__(name="saveable")
        self.w = rt.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
        self.b = rt.Variable(np.ones(2, np.float32), name="b")
        self.calls = rt.Variable(0, trainable=False, name="calls")

    @rt.function(input_signature=[rt.TensorSpec([None, 3], rt.float32)])
    def __call__(self, x):
        self.calls.assign_add(1)
        return rt.matmul(x, self.w) + self.b

    @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def scale(self, factor):
        self.w.assign(self.w * factor)
        return factor


def test_saving_a_module_round_trips_its_functions_and_variables(tmp_path):
    module = Saveable()
    rt.saved_model.save(module, str(tmp_path / "m"))
    loaded = rt.saved_model.load(str(tmp_path / "m"))
    assert loaded.signatures == {}    # TensorFlow: a module saved without signatures= has none
    assert [v.name for v in loaded.variables] == [v.name for v in module.variables]
    assert len(loaded.trainable_variables) == 2
    x = np.array([[1.0, 2.0, 3.0]], np.float32)
    np.testing.assert_allclose(loaded(x).numpy(), x @ np.arange(6).reshape(3, 2) + 1)
    loaded.scale(rt.constant(2.0))
    np.testing.assert_allclose(loaded(x).numpy(), x @ (2 * np.arange(6).reshape(3, 2)) + 1)
    np.testing.assert_allclose(module(x).numpy(), x @ np.arange(6).reshape(3, 2) + 1)
    calls = {v.name: v for v in loaded.variables}["calls:0"]
    assert int(calls.numpy()) == 2


def test_saving_a_module_without_a_signature_says_what_to_do(tmp_path):
    with pytest.raises(ValueError, match="input_signature"):
        rt.saved_model.save(TwoLayers(), str(tmp_path / "m"))
    net = TwoLayers()
    sig = net.__call__.get_concrete_function(rt.TensorSpec([None, 3], rt.float32))
    rt.saved_model.save(net, str(tmp_path / "n"), signatures=sig)
    loaded = rt.saved_model.load(str(tmp_path / "n"))
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(loaded(x).numpy(), net(rt.constant(x)).numpy(), rtol=1e-6)
    assert len(loaded.variables) == 4


def test_a_single_named_function_is_the_default_and_keeps_its_name(tmp_path):
    class Adder(rt.Module):
        def __init__(self):
            super().__init__()
            self.v = rt.Variable(10.0)

        @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
        def add(self, x):
            return x + self.v

    rt.saved_model.save(Adder(), str(tmp_path / "a"))
    loaded = rt.saved_model.load(str(tmp_path / "a"))
    assert float(loaded(rt.constant(1.0))) == 11.0
    assert float(loaded.add(rt.constant(2.0))) == 12.0
