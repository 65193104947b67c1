"""Layers: building on first call, Dense and Dropout, tracking of sublayers and variables."""

import re

import numpy as np
import pytest

import runtime as rt


def _np(t):
    return np.asarray(t)


# -- building --------------------------------------------------------------------------------

def test_dense_builds_kernel_and_bias_from_the_first_input():
    layer = rt.layers.Dense(3)
    assert not layer.built and layer.variables == []
    y = layer(rt.ones([2, 5]))
    assert layer.built
    assert y.shape.as_list() == [2, 3]
    assert [v.shape.as_list() for v in layer.variables] == [[5, 3], [3]]
    assert layer.kernel is layer.variables[0] and layer.bias is layer.variables[1]
    np.testing.assert_array_equal(layer.bias.numpy(), np.zeros(3, np.float32))


def test_dense_without_bias_has_one_variable():
    layer = rt.layers.Dense(2, use_bias=False)
    layer(rt.ones([1, 4]))
    assert [v.shape.as_list() for v in layer.variables] == [[4, 2]]


def test_dense_contracts_the_last_axis_of_higher_rank_inputs():
    layer = rt.layers.Dense(3, kernel_initializer="ones")
    y = layer(rt.ones([2, 4, 5]))
    assert y.shape.as_list() == [2, 4, 3]
    np.testing.assert_allclose(_np(y), np.full((2, 4, 3), 5.0))


def test_dense_needs_a_known_last_dimension():
    layer = rt.layers.Dense(3)

    @rt.function(input_signature=[rt.TensorSpec([None, None])])
    def f(x):
        return layer(x)
    with pytest.raises(ValueError, match="last dimension"):
        f(rt.ones([2, 2]))


def test_build_runs_once_and_weights_keep_their_values():
    layer = rt.layers.Dense(2)
    layer(rt.ones([1, 3]))
    kernel = layer.kernel.numpy().copy()
    layer(rt.ones([4, 3]))
    assert len(layer.variables) == 2
    np.testing.assert_array_equal(layer.kernel.numpy(), kernel)


def test_numpy_inputs_are_accepted_and_cast_to_the_layer_dtype():
    layer = rt.layers.Dense(2, kernel_initializer="ones")
    y = layer(np.ones((1, 3)))  # float64 in, float32 weights
    assert y.dtype is rt.float32
    np.testing.assert_allclose(_np(y), [[3.0, 3.0]])


def test_glorot_uniform_stays_within_its_limit_and_follows_the_keras_seed():
    # as Keras 3's: an initializer takes its seed from Python's random, which
    # keras.utils.set_random_seed seeds
    rt.keras.utils.set_random_seed(7)
    a = rt.layers.Dense(50)
    a(rt.ones([1, 30]))
    rt.keras.utils.set_random_seed(7)
    b = rt.layers.Dense(50)
    b(rt.ones([1, 30]))
    limit = np.sqrt(6 / (30 + 50))
    kernel = a.kernel.numpy()
    assert np.abs(kernel).max() <= limit and np.abs(kernel).max() > 0.8 * limit
    np.testing.assert_array_equal(kernel, b.kernel.numpy())


@pytest.mark.parametrize("name", ["zeros", "ones", "random_normal", "random_uniform",
                                  "glorot_normal", "he_normal", "he_uniform"])
def test_initializers_by_name_give_the_requested_shape_and_dtype(name):
    layer = rt.layers.Dense(4, kernel_initializer=name, bias_initializer="ones")
    layer(rt.ones([2, 3]))
    assert layer.kernel.shape.as_list() == [3, 4] and layer.kernel.dtype is rt.float32
    np.testing.assert_array_equal(layer.bias.numpy(), np.ones(4, np.float32))


def test_unknown_names_are_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="relu"):
        rt.layers.Dense(2, activation="relux")
    with pytest.raises(ValueError, match="glorot_uniform"):  # when made, as Keras's layers
        rt.layers.Dense(2, kernel_initializer="glorot")


# -- activations -----------------------------------------------------------------------------

def _reference(name, z):
    if name == "relu":
        return np.maximum(z, 0)
    if name == "softmax":
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    if name == "sigmoid":
        return 1 / (1 + np.exp(-z))
    if name == "tanh":
        return np.tanh(z)
    return z


@pytest.mark.parametrize("activation", ["relu", "softmax", "sigmoid", "tanh", "linear", None])
def test_dense_activation_by_name(activation):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    layer = rt.layers.Dense(5, activation=activation, bias_initializer="random_normal")
    y = _np(layer(x))
    z = x @ layer.kernel.numpy() + layer.bias.numpy()
    np.testing.assert_allclose(y, _reference(activation, z), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("activation", [rt.nn.relu, rt.nn.softmax, rt.tanh, lambda t: t * 2.0])
def test_dense_activation_as_a_callable(activation):
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    layer = rt.layers.Dense(3, activation=activation, kernel_initializer="ones")
    z = rt.constant(x @ np.ones((4, 3), np.float32))
    np.testing.assert_allclose(_np(layer(x)), _np(activation(z)), rtol=1e-6)


def test_activation_and_flatten_layers():
    x = rt.constant(np.arange(-3, 3, dtype=np.float32).reshape(1, 2, 3))
    flat = rt.layers.Flatten()(x)
    assert flat.shape.as_list() == [1, 6]
    np.testing.assert_array_equal(_np(rt.layers.Activation("relu")(flat)),
                                  [[0, 0, 0, 0, 1, 2]])


# -- dropout ---------------------------------------------------------------------------------

def test_dropout_only_when_training():
    layer = rt.layers.Dropout(0.5)
    x = rt.ones([200, 50])
    np.testing.assert_array_equal(_np(layer(x)), np.ones((200, 50)))
    np.testing.assert_array_equal(_np(layer(x, training=False)), np.ones((200, 50)))
    y = _np(layer(x, training=True))
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert 0.4 < (y == 0).mean() < 0.6


def test_dropout_with_a_tensor_training_flag_is_staged():
    layer = rt.layers.Dropout(0.5)

    @rt.function
    def f(x, training):
        return layer(x, training=training)
    x = rt.ones([100, 10])
    np.testing.assert_array_equal(_np(f(x, rt.constant(False))), np.ones((100, 10)))
    assert (_np(f(x, rt.constant(True))) == 0).any()
    assert f.experimental_get_tracing_count() == 1


def test_dropout_rate_is_checked():
    with pytest.raises(ValueError, match="rate"):
        rt.layers.Dropout(1.0)


def test_training_reaches_nested_layers_that_take_it():
    model = rt.layers.Sequential([rt.layers.Dense(20, kernel_initializer="ones"),
                                  rt.layers.Dropout(0.5)])
    x = rt.ones([10, 3])
    np.testing.assert_array_equal(_np(model(x)), np.full((10, 20), 3.0))
    assert (_np(model(x, training=True)) == 0).any()

    class Outer(rt.Model):
        def __init__(self):
            super().__init__()
            self.inner = model

        def call(self, inputs):  # no `training` here: it still reaches the Dropout below
            return self.inner(inputs)
    assert (_np(Outer()(x, training=True)) == 0).any()
    np.testing.assert_array_equal(_np(Outer()(x, training=False)), np.full((10, 20), 3.0))


# -- calling ---------------------------------------------------------------------------------

def test_training_is_passed_only_to_calls_that_take_it():
    seen = []

    class Plain(rt.layers.Layer):
        def call(self, inputs):
            return inputs * 2.0

    class Aware(rt.layers.Layer):
        def call(self, inputs, training=None):
            seen.append(training)
            return inputs

    class Extra(rt.layers.Layer):
        def call(self, inputs, scale=1.0, **kwargs):
            seen.append(kwargs.get("training"))
            return inputs * scale

    x = rt.ones([2])
    np.testing.assert_array_equal(_np(Plain()(x, training=True)), [2.0, 2.0])
    Aware()(x, training=True)
    Aware()(x)
    np.testing.assert_array_equal(_np(Extra()(x, scale=3.0, training=False)), [3.0, 3.0])
    assert seen == [True, None, False]


def test_forgetting_super_init_is_explained():
    class Broken(rt.layers.Layer):
        def __init__(self):
            self.units = 3

    with pytest.raises(RuntimeError, match="super"):
        Broken()(rt.ones([1]))


def test_layer_names_are_unique_and_scope_the_ops_of_a_trace():
    a, b = rt.layers.Dense(2), rt.layers.Dense(2)
    assert a.name != b.name and a.name.startswith("dense")
    named = rt.layers.Dense(2, name="head")

    @rt.function
    def f(x):
        return named(x)
    concrete = f.get_concrete_function(rt.ones([1, 2]))
    assert any(op.name.startswith("head/") for op in concrete.graph.operations)
    assert (named.kernel.name, named.kernel.path) == ("kernel", "head/kernel")  # Keras 3's


# -- weights created inside compiled functions ---------------------------------------------

def test_first_call_inside_a_compiled_function_creates_eager_weights_once():
    layer = rt.layers.Dense(3, kernel_initializer="ones")

    @rt.function
    def f(x):
        return layer(x)
    np.testing.assert_allclose(_np(f(rt.ones([1, 4]))), [[4.0, 4.0, 4.0]])
    variables = layer.variables
    assert len(variables) == 2
    assert all(isinstance(v.numpy(), np.ndarray) for v in variables)  # eager, readable now
    f(rt.ones([5, 4]))  # a new trace reuses the weights
    assert f.experimental_get_tracing_count() == 2
    assert [id(v) for v in layer.variables] == [id(v) for v in variables]
    concrete = f.get_concrete_function(rt.ones([1, 4]))
    assert concrete.graph.variables == []  # nothing was lifted: the weights are plain eager variables


def test_a_compiled_function_reads_weights_when_it_runs():
    layer = rt.layers.Dense(1, kernel_initializer="ones", use_bias=False)

    @rt.function
    def f(x):
        return layer(x)
    x = rt.ones([1, 2])
    np.testing.assert_allclose(_np(f(x)), [[2.0]])
    layer.kernel.assign(np.full((2, 1), 3.0, np.float32))
    np.testing.assert_allclose(_np(f(x)), [[6.0]])


# -- tracking --------------------------------------------------------------------------------

class Block(rt.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.first = rt.layers.Dense(units)
        self.second = rt.layers.Dense(units)

    def call(self, inputs):
        return self.second(self.first(inputs))


class Net(rt.Model):
    def __init__(self):
        super().__init__()
        self.blocks = [Block(4), Block(4)]
        self.heads = {"a": rt.layers.Dense(1), "b": rt.layers.Dense(2)}
        self.scale = self.add_weight(shape=(), initializer="ones", name="scale")
        self.counter = self.add_weight(shape=(), initializer="zeros", dtype="int32",
                                       trainable=False, name="counter")
        self.config = {"depth": 2}

    def call(self, inputs):
        x = inputs
        for block in self.blocks:
            x = block(x)
        return self.heads["a"](x) * self.scale, self.heads["b"](x)


def test_nested_layers_lists_and_dicts_are_tracked_in_order():
    net = Net()
    net(rt.ones([2, 3]))
    shapes = [v.shape.as_list() for v in net.trainable_variables]
    assert shapes == [[]] + [[3, 4], [4], [4, 4], [4]] + [[4, 4], [4], [4, 4], [4]] + \
        [[4, 1], [1], [4, 2], [2]]
    assert net.non_trainable_variables == [net.counter]
    assert len(net.variables) == len(net.trainable_variables) + 1
    assert net.layers == net.blocks + [net.heads["a"], net.heads["b"]]
    assert len(net.submodules) == 2 + 4 + 2
    assert net.count_params() == 1 + 1 + (12 + 4 + 16 + 4) + (16 + 4 + 16 + 4) + (4 + 1 + 8 + 2)


def test_shared_layers_and_variables_are_listed_once():
    shared = rt.layers.Dense(2)

    class Twice(rt.Model):
        def __init__(self):
            super().__init__()
            self.a = shared
            self.b = [shared]
            self.me = self  # cycles are harmless

        def call(self, x):
            return self.b[0](self.a(x))
    model = Twice()
    model(rt.ones([1, 2]))
    assert len(model.variables) == 2 and model.layers == [shared]


def test_layers_appended_after_construction_are_tracked():
    model = rt.layers.Sequential()
    model.add(rt.layers.Dense(3))
    model.add(rt.layers.Dense(1))
    model(rt.ones([1, 2]))
    assert len(model.trainable_variables) == 4


def test_a_frozen_layer_contributes_no_trainable_variables():
    net = Net()
    net(rt.ones([1, 3]))
    net.blocks[0].trainable = False
    assert len(net.trainable_variables) == 1 + 4 + 4
    assert len(net.non_trainable_variables) == 1 + 4
    net.trainable = False
    assert net.trainable_variables == []


def test_get_and_set_weights_round_trip():
    a, b = Net(), Net()
    x = rt.ones([2, 3])
    a(x)
    b(x)
    b.set_weights(a.get_weights())
    for ya, yb in zip(a(x), b(x)):
        np.testing.assert_array_equal(_np(ya), _np(yb))
    with pytest.raises(ValueError, match="values"):
        b.set_weights([])


def test_summary_lists_layers_and_parameter_counts():
    model = rt.layers.Sequential([rt.layers.Dense(4, name="hidden"), rt.layers.Dense(2)])
    model(rt.ones([1, 3]))
    text = model.summary(print_fn=None)
    # Keras 3: "│ hidden (Dense)  │ (1, 4)  │  16 │" (the output shape of the first call)
    assert re.search(r"│ hidden \(Dense\) +│ \(1, 4\) +│ +16 │", text), text
    assert "Total params: 26" in text and "Trainable params: 26" in text


# -- autograph ---------------------------------------------------------------------------------

class SignFlip(rt.layers.Layer):
    def call(self, inputs):
        if rt.reduce_sum(inputs) > 0:
            y = inputs
        else:
            y = -inputs
        return y


def test_a_user_layer_call_is_converted_when_a_function_traces_it():
    layer = SignFlip()

    @rt.function
    def f(x):
        return layer(x)
    np.testing.assert_array_equal(_np(f(rt.constant([-1.0, -2.0]))), [1.0, 2.0])
    np.testing.assert_array_equal(_np(f(rt.constant([1.0, 2.0]))), [1.0, 2.0])
    assert f.experimental_get_tracing_count() == 1
    np.testing.assert_array_equal(_np(layer(rt.constant([-3.0]))), [3.0])  # eager: plain Python


def test_a_layer_whose_source_is_unavailable_runs_as_written():
    namespace = {"rt": rt}
    exec("class Double(rt.layers.Layer):\n"
         "    def call(self, inputs):\n"
         "        return inputs * 2.0\n", namespace)
    layer = namespace["Double"]()

    @rt.function
    def f(x):
        return layer(x)
    np.testing.assert_array_equal(_np(f(rt.constant([1.0]))), [2.0])


def test_a_raw_variable_attribute_is_not_a_weight_as_in_keras_3(tmp_path):
    # Keras 3.15 on TensorFlow: weights == [] for tf.Variables assigned in __init__ or build
    # (only add_weight's count); fit does not train them, a tape still differentiates them
    # and a checkpoint still saves them
    class Raw(rt.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.w = rt.Variable(np.ones((3, 2), np.float32), name="w")
            self.kept = self.add_weight(shape=(), initializer="ones", name="kept")

        def call(self, x):
            return rt.matmul(x, self.w) * self.kept

    layer = Raw()
    assert _ids(layer.weights) == _ids([layer.kept])
    assert layer.count_params() == 1
    x = rt.ones([1, 3])
    with rt.GradientTape() as tape:
        y = rt.reduce_sum(layer(x))
    np.testing.assert_array_equal(tape.gradient(y, layer.w), np.ones((3, 2)))

    model = rt.keras.Sequential([rt.keras.Input((3,)), layer])
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 3), np.float32), np.zeros((4, 2), np.float32), verbose=0)
    np.testing.assert_array_equal(layer.w.numpy(), np.ones((3, 2)))   # not trained
    assert layer.kept.numpy() != 1.0                                   # trained

    layer.w.assign(np.full((3, 2), 5.0, np.float32))
    path = rt.train.Checkpoint(layer=layer).write(str(tmp_path / "ckpt"))
    layer.w.assign(np.zeros((3, 2), np.float32))
    rt.train.Checkpoint(layer=layer).read(path)
    np.testing.assert_array_equal(layer.w.numpy(), np.full((3, 2), 5.0))


def _ids(values):
    return [id(v) for v in values]


def test_compute_output_shape_of_every_layer_as_keras_3():
    # Keras 3's documented shapes: a tuple with the batch dimension (a tuple of them for an
    # RNN with return_state); layers without their own rule trace a symbolic call
    layers = rt.keras.layers
    assert layers.Conv2D(2, 3).compute_output_shape((None, 8, 8, 1)) == (None, 6, 6, 2)
    assert layers.MaxPooling2D().compute_output_shape((None, 8, 8, 3)) == (None, 4, 4, 3)
    assert layers.Embedding(10, 4).compute_output_shape((None, 5)) == (None, 5, 4)
    assert layers.LSTM(4, return_sequences=True).compute_output_shape((None, 7, 2)) == \
        (None, 7, 4)
    assert layers.GRU(2, return_sequences=True, return_state=True).compute_output_shape(
        (4, 3, 2)) == ((4, 3, 2), (4, 2))
    assert layers.Bidirectional(layers.GRU(3, return_sequences=True)).compute_output_shape(
        (None, 6, 2)) == (None, 6, 6)
    assert layers.Bidirectional(layers.LSTM(2)).compute_output_shape((None, 5, 3)) == (None, 4)


def test_model_input_and_output_shapes():
    keras = rt.keras
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    assert (model.input_shape, model.output_shape) == ((None, 3), (None, 2))
    first, second = keras.Input((4,)), keras.Input((2,))
    both = keras.Model([first, second], [keras.layers.Dense(2)(first), second])
    assert both.input_shape == [(None, 4), (None, 2)]
    assert both.output_shape == [(None, 2), (None, 2)]
