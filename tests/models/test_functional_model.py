"""The functional API: keras.Input, layers called on Keras tensors, Model(inputs, outputs)."""

import numpy as np
import pytest

import runtime as rt
from runtime import keras


def _mlp_weights(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(4, 8)).astype(np.float32), np.zeros(8, np.float32),
            rng.normal(size=(8, 1)).astype(np.float32), np.zeros(1, np.float32)]


def test_input_is_symbolic_with_shape_and_dtype():
    x = keras.Input(shape=(4,), name="features")
    assert x.shape.as_list() == [None, 4] and x.dtype == rt.float32
    with pytest.raises(TypeError, match="symbolic"):
        np.asarray(x)
    with pytest.raises(TypeError, match="unexpected keyword"):
        keras.Input(shpe=(4,))


def test_a_functional_mlp_is_built_at_construction_and_computes_like_numpy():
    x = keras.Input(shape=(4,))
    h = keras.layers.Dense(8, activation="relu")(x)
    model = keras.Model(x, keras.layers.Dense(1)(h), name="mlp")
    assert isinstance(model, keras.Model) and model.built
    assert [type(layer).__name__ for layer in model.layers] == ["InputLayer", "Dense", "Dense"]
    assert len(model.trainable_variables) == 4
    model.set_weights(_mlp_weights())
    data = np.random.default_rng(1).normal(size=(5, 4)).astype(np.float32)
    w = _mlp_weights()
    expected = np.maximum(data @ w[0] + w[1], 0) @ w[2] + w[3]
    np.testing.assert_allclose(np.asarray(model(data)), expected, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(rt.function(model)(data)), expected, rtol=1e-5)
    assert model.inputs[0] is x and len(model.outputs) == 1
    text = model.summary(print_fn=None)
    assert "mlp" in text and "Total params: 49" in text


def test_rt_model_with_inputs_and_outputs_is_functional():
    x = keras.Input(shape=(3,))
    model = rt.Model(inputs=x, outputs=rt.layers.Dense(2)(x))
    assert type(model).__name__ == "Functional"
    assert np.asarray(model(np.ones((2, 3), np.float32))).shape == (2, 2)


def test_functional_fit_matches_a_subclassed_model_with_the_same_weights():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 4)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)).astype(np.float32)

    inputs = keras.Input(shape=(4,))
    functional = keras.Model(inputs, keras.layers.Dense(1)(
        keras.layers.Dense(8, activation="relu")(inputs)))

    class MLP(rt.Model):
        def __init__(self):
            super().__init__()
            self.hidden = rt.layers.Dense(8, activation="relu")
            self.out = rt.layers.Dense(1)

        def call(self, inputs, training=None):
            return self.out(self.hidden(inputs))

    subclassed = MLP()
    subclassed(x[:1])
    subclassed.set_weights(functional.get_weights())
    histories = []
    for model in (functional, subclassed):
        model.compile(keras.optimizers.SGD(0.01), "mse")
        histories.append(model.fit(x, y, epochs=3, batch_size=16, shuffle=False,
                                   verbose=0).history["loss"])
    np.testing.assert_allclose(histories[0], histories[1], rtol=1e-5)
    assert histories[0][-1] < histories[0][0]
    for a, b in zip(functional.get_weights(), subclassed.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(functional.predict(x, verbose=0), subclassed.predict(x, verbose=0),
                               rtol=1e-5)


def test_multi_input_model_with_a_shared_layer_lists_and_dicts():
    a = keras.Input(shape=(3,), name="a")
    b = keras.Input(shape=(3,), name="b")
    shared = keras.layers.Dense(2, kernel_initializer="ones")
    out = {"sum": keras.layers.Activation("linear")(shared(a)), "other": shared(b)}
    model = keras.Model([a, b], out)
    assert model.layers.count(shared) == 1 and len(model.variables) == 2
    xa, xb = np.ones((2, 3), np.float32), 2 * np.ones((2, 3), np.float32)
    result = model([xa, xb])
    np.testing.assert_allclose(np.asarray(result["sum"]), np.full((2, 2), 3.0))
    np.testing.assert_allclose(np.asarray(result["other"]), np.full((2, 2), 6.0))
    by_name = model({"a": xa, "b": xb})
    np.testing.assert_allclose(np.asarray(by_name["other"]), np.full((2, 2), 6.0))
    with pytest.raises(ValueError, match="expects 2 inputs"):
        model(xa)
    with pytest.raises(ValueError, match="shape"):
        model([np.ones((2, 5), np.float32), xb])


def test_multi_input_model_trains_with_fit_and_a_gradient_tape():
    a = keras.Input(shape=(2,))
    b = keras.Input(shape=(3,))
    merged = keras.layers.Dense(1)(keras.layers.Dense(4)(a))
    model = keras.Model([a, b], merged)
    x = [np.ones((8, 2), np.float32), np.ones((8, 3), np.float32)]
    y = np.zeros((8, 1), np.float32)
    model.compile(keras.optimizers.Adam(0.01), keras.losses.MeanSquaredError())
    history = model.fit(x, y, epochs=2, batch_size=4, verbose=0)
    assert len(history.history["loss"]) == 2
    assert model.predict(x, verbose=0).shape == (8, 1)
    with rt.GradientTape() as tape:
        loss = rt.reduce_mean(model(x) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    assert all(g is not None for g in grads)


def test_a_layer_called_twice_and_training_reaches_dropout():
    x = keras.Input(shape=(100,))
    dense = keras.layers.Dense(100, kernel_initializer="ones", use_bias=False)
    y = keras.layers.Dropout(0.5)(dense(dense(x)))
    model = keras.Model(x, y)
    data = np.ones((2, 100), np.float32) / 100
    np.testing.assert_allclose(np.asarray(model(data)), np.full((2, 100), 100.0), rtol=1e-5)
    trained = np.asarray(model(data, training=True))
    assert (trained == 0).any() and np.allclose(trained[trained != 0], 200.0, rtol=1e-5)


def test_disconnected_graph_is_refused():
    a, b = keras.Input(shape=(2,)), keras.Input(shape=(2,))
    with pytest.raises(ValueError, match="disconnected"):
        keras.Model(a, keras.layers.Dense(1)(b))
    with pytest.raises(TypeError, match="Keras tensors"):
        keras.Model(a, np.ones(2))


def test_nested_functional_models_and_sequential_with_input():
    inner_in = keras.Input(shape=(3,))
    inner = keras.Model(inner_in, keras.layers.Dense(2)(inner_in))
    x = keras.Input(shape=(3,))
    outer = keras.Model(x, keras.layers.Dense(1)(inner(x)))
    assert len(outer.variables) == 4
    assert np.asarray(outer(np.ones((4, 3), np.float32))).shape == (4, 1)
    seq = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3)])
    assert seq.built and [v.shape.as_list() for v in seq.variables] == [[4, 3], [3]]
    assert seq.layers[0].units == 3


def test_stateful_metrics_in_compile_report_the_epoch_result():
    x = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
    y = np.array([[0.0], [1.0], [1.0], [0.0]], np.float32)
    inputs = keras.Input(shape=(1,))
    model = keras.Model(inputs, keras.layers.Dense(1, kernel_initializer="ones")(inputs))
    metric = keras.metrics.MeanAbsoluteError()
    model.compile(keras.optimizers.SGD(0.0), "mse", metrics=[metric])
    logs = model.evaluate(x, y, batch_size=3, return_dict=True)
    assert logs["mean_absolute_error"] == pytest.approx(np.mean(np.abs(x - y)))
    assert logs["loss"] == pytest.approx(np.mean((x - y) ** 2))
