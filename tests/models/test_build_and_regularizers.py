"""`build` creates every layer's weights; regularizers put penalties into `losses` and into
the loss `fit` / `evaluate` report; layer arguments are checked as Keras checks them.

Oracles: Keras's parameter counts (Dense: in * units + units; LSTM: 4 * units * (in + units
+ 1); GRU with reset_after: 3 * units * (in + units + 2)), the examples of Keras 3's
regularizer documentation, and the penalties and gradients computed in NumPy.
"""

import numpy as np
import pytest

import runtime as rt
from runtime import keras

L, R = keras.layers, keras.regularizers


def _dense_params(n_in, units):
    return n_in * units + units


def _lstm_params(n_in, units):
    return 4 * units * (n_in + units + 1)


def _gru_params(n_in, units):
    return 3 * units * (n_in + units + 2)


# -- build ---------------------------------------------------------------------------------

def test_sequential_build_creates_the_weights():
    model = keras.Sequential([L.Dense(1)])
    model.build((None, 3))
    assert model.built and model.count_params() == _dense_params(3, 1) == 4
    assert [v.shape.as_list() for v in model.trainable_variables] == [[3, 1], [1]]
    w, b = np.array([[1.0], [2.0], [3.0]], np.float32), np.array([0.5], np.float32)
    model.set_weights([w, b])
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(model.predict(x, verbose=0), x @ w + b, rtol=1e-6)
    assert "Total params: 4" in model.summary(print_fn=None)


def test_count_params_before_build_is_an_error_as_in_keras():
    model = keras.Sequential([L.Dense(1)])
    with pytest.raises(ValueError, match="build"):
        model.count_params()
    with pytest.raises(ValueError, match="build"):
        L.Flatten().count_params()
    assert "0 (unbuilt)" in model.summary(print_fn=None)
    model.build((None, 3))
    assert model.count_params() == 4


def test_sequential_build_of_several_layers_and_its_config():
    model = keras.Sequential([L.Dense(8, activation="relu"), L.Dense(2)])
    model.build([None, 5])
    assert model.count_params() == _dense_params(5, 8) + _dense_params(8, 2)
    assert model.get_config()["build_input_shape"] == [None, 5]
    again = keras.Sequential.from_config(model.get_config())
    assert again.count_params() == model.count_params()


def test_sequential_build_without_shape_uses_the_input_shape_or_refuses():
    model = keras.Sequential([L.Dense(2, input_shape=(4,))])
    model.build()
    assert model.count_params() == _dense_params(4, 2)
    with pytest.raises(ValueError, match="input_shape"):
        keras.Sequential([L.Dense(2)]).build()
    with pytest.raises(ValueError, match="no layers"):
        keras.Sequential().build((None, 3))


def test_custom_training_loop_after_build_trains_every_weight():
    model = keras.Sequential([L.Dense(1)])
    model.build((None, 3))
    w0 = np.array([[0.1], [-0.2], [0.3]], np.float32)
    model.set_weights([w0, np.zeros(1, np.float32)])
    x = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 2.0]], np.float32)
    y = np.array([[1.0], [2.0]], np.float32)
    with rt.GradientTape() as tape:
        loss = rt.reduce_mean(rt.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    assert len(grads) == 2 and all(g is not None for g in grads)
    residual = x @ w0 - y  # d mean((xw + b - y)^2) = 2/N x^T r, 2/N sum r
    np.testing.assert_allclose(np.asarray(grads[0]), 2 / 2 * x.T @ residual, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(grads[1]), 2 / 2 * residual.sum(0), rtol=1e-5)


def test_bidirectional_build_creates_both_directions():
    layer = L.Bidirectional(L.LSTM(4))
    layer.build((None, 5, 3))
    assert layer.count_params() == 2 * _lstm_params(3, 4)
    gru = L.Bidirectional(L.GRU(2))
    gru.build((None, 5, 3))
    assert gru.count_params() == 2 * _gru_params(3, 2) == 84
    gru.set_weights([np.zeros(w.shape, np.float32) for w in gru.get_weights()])
    # all-zero weights: z = sigmoid(0) = 0.5 and the candidate is 0, so h stays 0
    np.testing.assert_allclose(np.asarray(gru(np.ones((2, 5, 3), np.float32))), 0.0)


class _TwoLayers(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = L.Dense(4, activation="relu")
        self.out = L.Dense(2)

    def call(self, inputs, training=None):
        return self.out(self.hidden(inputs))


class _TwoInputs(keras.Model):
    def __init__(self):
        super().__init__()
        self.a = L.Dense(2)
        self.b = L.Dense(2)

    def call(self, inputs):
        return self.a(inputs[0]) + self.b(inputs[1])


def test_subclassed_and_functional_model_build():
    model = _TwoLayers()
    model.build((None, 3))
    assert model.count_params() == _dense_params(3, 4) + _dense_params(4, 2)
    assert len(model.trainable_variables) == 4
    two = _TwoInputs()
    two.build([(None, 3), (None, 5)])
    assert two.count_params() == _dense_params(3, 2) + _dense_params(5, 2)
    inputs = keras.Input((3,))
    functional = keras.Model(inputs, L.Dense(2)(inputs))
    functional.build((None, 3))
    assert functional.count_params() == _dense_params(3, 2)


def test_sequential_of_embedding_and_lstm_builds():
    model = keras.Sequential([L.Embedding(10, 4), L.LSTM(3)])
    model.build((None, 7))
    assert model.count_params() == 10 * 4 + _lstm_params(4, 3)


# -- regularizers --------------------------------------------------------------------------

def test_keras_documentation_examples():
    # keras.regularizers.Regularizer's docstring: kernel 0.25 + activity 5.0 (divided by
    # the batch size of 5) = 5.25
    layer = L.Dense(5, input_dim=5, kernel_initializer="ones", kernel_regularizer=R.L1(0.01),
                    activity_regularizer=R.L2(0.01))
    layer(np.ones((5, 5), np.float32) * 2.0)
    assert float(sum(np.asarray(v) for v in layer.losses)) == pytest.approx(5.25, rel=1e-6)
    assert float(R.L2(2.0)(np.ones((5, 5), np.float32))) == pytest.approx(50.0)

    def l1_reg(weight_matrix):
        return 0.01 * rt.reduce_sum(rt.abs(weight_matrix))

    layer = L.Dense(5, input_dim=5, kernel_initializer="ones", kernel_regularizer=l1_reg)
    layer(np.ones((5, 5), np.float32))
    assert [float(v) for v in layer.losses] == pytest.approx([0.25])

    class L2Regularizer(R.Regularizer):
        def __init__(self, l2=0.0):
            self.l2 = l2

        def __call__(self, x):
            return self.l2 * rt.reduce_sum(rt.square(x))

        def get_config(self):
            return {"l2": float(self.l2)}

    layer = L.Dense(5, input_dim=5, kernel_initializer="ones",
                    kernel_regularizer=L2Regularizer(l2=0.5))
    layer(np.ones((5, 5), np.float32))
    assert [float(v) for v in layer.losses] == pytest.approx([12.5])


def test_losses_order_and_values_against_numpy():
    layer = L.Dense(2, kernel_regularizer="l2", bias_regularizer=R.L1(0.5),
                    activity_regularizer="l1", bias_initializer="ones")
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    out = np.asarray(layer(x))
    kernel, bias = layer.get_weights()
    expected = [0.01 * np.abs(out).sum() / 4,            # activity, per example
                0.01 * np.square(kernel).sum(), 0.5 * np.abs(bias).sum()]
    np.testing.assert_allclose([float(v) for v in layer.losses], expected, rtol=1e-5)
    layer(x)  # a new call replaces the activity loss of the last one
    assert len(layer.losses) == 3


def test_weight_penalties_are_computed_when_read_and_skip_frozen_layers():
    layer = L.Dense(2, kernel_regularizer=R.L2(1.0), kernel_initializer="ones")
    layer(np.ones((1, 3), np.float32))
    assert [float(v) for v in layer.losses] == pytest.approx([6.0])
    layer.kernel.assign(2 * np.ones((3, 2), np.float32))
    assert [float(v) for v in layer.losses] == pytest.approx([24.0])
    layer.trainable = False
    assert layer.losses == []


def test_named_regularizers_use_keras_default_factors():
    w = np.array([[1.0, -2.0], [3.0, -4.0]], np.float32)
    assert float(R.get("l1")(w)) == pytest.approx(0.01 * np.abs(w).sum())
    assert float(R.get("l2")(w)) == pytest.approx(0.01 * np.square(w).sum())
    assert float(R.get("l1_l2")(w)) == pytest.approx(0.01 * np.abs(w).sum()
                                                      + 0.01 * np.square(w).sum())
    assert float(R.L1L2(l1=0.2, l2=0.3)(w)) == pytest.approx(0.2 * 10 + 0.3 * 30)


def test_orthogonal_regularizer_formula():
    w = np.array([[1.0, 0.0, 1.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0]], np.float32)
    for mode, rows in (("rows", w), ("columns", w.T)):
        unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        product = np.abs(unit @ unit.T)
        n = len(rows)
        expected = 0.1 * 0.5 * (product.sum() - np.trace(product)) / (n * (n - 1) / 2)
        got = R.OrthogonalRegularizer(factor=0.1, mode=mode)(w)
        assert float(got) == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("make,weights", [
    (lambda r: L.Conv2D(2, 3, kernel_regularizer=r[0], bias_regularizer=r[1]),
     ["kernel", "bias"]),
    (lambda r: L.Conv1D(2, 3, kernel_regularizer=r[0], bias_regularizer=r[1]),
     ["kernel", "bias"]),
    (lambda r: L.Embedding(6, 3, embeddings_regularizer=r[0]), ["embeddings"]),
    (lambda r: L.SimpleRNN(3, kernel_regularizer=r[0], recurrent_regularizer=r[1],
                           bias_regularizer=r[2], bias_initializer="ones"),
     ["kernel", "recurrent_kernel", "bias"]),
    (lambda r: L.LSTM(3, kernel_regularizer=r[0], recurrent_regularizer=r[1],
                      bias_regularizer=r[2]), ["kernel", "recurrent_kernel", "bias"]),
    (lambda r: L.GRU(3, kernel_regularizer=r[0], recurrent_regularizer=r[1],
                     bias_regularizer=r[2], bias_initializer="ones"),
     ["kernel", "recurrent_kernel", "bias"]),
])
def test_layers_take_weight_regularizers(make, weights):
    regularizers = [R.L1(0.1), R.L2(0.2), R.L1(0.3)]
    formulas = [lambda a: 0.1 * np.abs(a).sum(), lambda a: 0.2 * np.square(a).sum(),
                lambda a: 0.3 * np.abs(a).sum()]
    layer = make(regularizers)
    layer.build((None, 5, 4, 2) if isinstance(layer, L.Conv2D) else
                (None, 5) if isinstance(layer, L.Embedding) else (None, 5, 4))
    values = {v.name.rsplit("/", 1)[-1].split(":")[0]: v.numpy() for v in layer.weights}
    expected = [formulas[i](values[name]) for i, name in enumerate(weights)]
    np.testing.assert_allclose([float(v) for v in layer.losses], expected, rtol=1e-5)


def _linear_model(**regularizers):
    model = keras.Sequential([keras.Input((3,)), L.Dense(1, kernel_initializer="ones",
                                                         **regularizers)])
    model.compile(keras.optimizers.SGD(0.01), "mse")
    return model


def test_fit_and_evaluate_add_the_penalties_to_the_loss():
    x = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, -1.0], [2.0, 0.0, 1.0], [1.0, 1.0, 1.0]],
                 np.float32)
    y = np.array([[1.0], [0.0], [2.0], [1.0]], np.float32)
    model = _linear_model(kernel_regularizer=R.L2(0.5), activity_regularizer=R.L1(0.1))
    w = np.ones((3, 1))
    out = x @ w
    mse = np.mean((out - y) ** 2)
    total = mse + 0.5 * np.square(w).sum() + 0.1 * np.abs(out).sum() / 4
    assert model.evaluate(x, y, verbose=0) == pytest.approx(total, rel=1e-5)
    history = model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    assert history.history["loss"][0] == pytest.approx(total, rel=1e-5)
    grad = 2 / 4 * x.T @ (out - y) + 2 * 0.5 * w + 0.1 * x.T @ np.sign(out) / 4
    np.testing.assert_allclose(model.get_weights()[0], w - 0.01 * grad, rtol=1e-5)


def test_train_and_test_on_batch_report_the_total_loss():
    x = np.ones((4, 3), np.float32)
    y = np.zeros((4, 1), np.float32)
    model = _linear_model(kernel_regularizer=R.L2(1.0))
    model.compile(keras.optimizers.SGD(0.01), "mse", metrics=["mae"])
    # kernel of ones, bias 0: outputs 3, mse 9, penalty 1.0 * 3
    assert model.test_on_batch(x, y) == pytest.approx([12.0, 3.0])
    assert model.train_on_batch(x, y) == pytest.approx([12.0, 3.0])
    # the SGD step: kernel 1 - 0.01 * (2 * 3 + 2 * 1) = 0.92, bias -0.01 * 2 * 3 = -0.06
    w, b = 0.92, -0.06
    out = 3 * w + b
    logs = model.train_on_batch(x, y, return_dict=True)
    assert logs == {"loss": pytest.approx(out ** 2 + 3 * w ** 2, rel=1e-5),
                    "mae": pytest.approx(out, rel=1e-5)}
    assert model.predict_on_batch(x).shape == (4, 1)


def test_penalties_in_a_compiled_custom_step():
    model = keras.Sequential([L.Dense(2, kernel_regularizer=R.L2(0.25))])
    model.build((None, 3))
    x = np.ones((2, 3), np.float32)

    @rt.function
    def step():
        with rt.GradientTape() as tape:
            loss = rt.add_n(model.losses)
        return tape.gradient(loss, model.trainable_variables[0])

    np.testing.assert_allclose(np.asarray(step()), 2 * 0.25 * model.get_weights()[0], rtol=1e-6)
    model(x)
    assert len(model.losses) == 1  # no activity loss, and none left from the traced step


def test_regularizers_round_trip_through_config():
    layer = L.Dense(2, kernel_regularizer=R.L1L2(l1=0.1, l2=0.2), bias_regularizer="l2",
                    activity_regularizer=R.L1(0.3))
    config = layer.get_config()
    again = L.Dense.from_config(config)
    assert isinstance(again.kernel_regularizer, R.L1L2)
    assert again.kernel_regularizer.get_config() == {"l1": pytest.approx(0.1),
                                                     "l2": pytest.approx(0.2)}
    assert isinstance(again.bias_regularizer, R.L2)
    assert again.activity_regularizer.get_config() == {"l1": pytest.approx(0.3)}
    x = np.ones((2, 3), np.float32)
    layer(x)
    again(x)
    again.set_weights(layer.get_weights())
    again(x)
    np.testing.assert_allclose([float(v) for v in again.losses],
                               [float(v) for v in layer.losses], rtol=1e-6)
    assert R.deserialize(R.serialize(R.L2(0.3))).get_config() == {"l2": pytest.approx(0.3)}


def test_a_saved_model_keeps_its_regularizers(tmp_path):
    model = keras.Sequential([
        keras.Input((3,)),
        L.Dense(4, activation="gelu", kernel_regularizer=R.L1L2(0.1, 0.2),
                bias_regularizer="l2", activity_regularizer=R.L1(0.3), bias_initializer="ones"),
        L.Dense(1, kernel_regularizer=R.OrthogonalRegularizer(0.1, "columns"))])
    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    model(x)
    loaded(x)
    np.testing.assert_allclose([float(v) for v in loaded.losses],
                               [float(v) for v in model.losses], rtol=1e-6)
    assert len(loaded.losses) == 4
    assert float(loaded.losses[-1]) == 0.0  # one column: no pairs to penalise


def test_bad_regularizers_are_refused():
    with pytest.raises(ValueError, match="l2"):
        R.L2(-1.0)
    with pytest.raises(ValueError, match="l3"):
        L.Dense(2, kernel_regularizer="l3")
    with pytest.raises(ValueError, match="kernel_regularizer"):
        L.Dense(2, kernel_regularizer=5)
    with pytest.raises(ValueError, match="mode"):
        R.OrthogonalRegularizer(mode="diagonal")


# -- arguments ---------------------------------------------------------------------------

@pytest.mark.parametrize("units", ["3", 0, -1, 2.5, None, True])
def test_dense_units_must_be_a_positive_integer(units):
    with pytest.raises(ValueError, match="units"):
        L.Dense(units)


@pytest.mark.parametrize("rate", [1.5, -0.1, "0.5", None])
def test_dropout_rate_must_be_in_range(rate):
    with pytest.raises(ValueError, match="rate"):
        L.Dropout(rate)


def test_other_layer_arguments_are_checked():
    with pytest.raises(ValueError, match="filters"):
        L.Conv2D("4", 3)
    with pytest.raises(ValueError, match="filters"):
        L.Conv2D(0, 3)
    with pytest.raises(ValueError, match="kernel_size"):
        L.Conv2D(4, "3")
    with pytest.raises(ValueError, match="units"):
        L.LSTM(0)
    with pytest.raises(ValueError, match="input_dim"):
        L.Embedding("10", 4)
    with pytest.raises(ValueError, match="output_dim"):
        L.Embedding(10, 0)
    with pytest.raises(ValueError, match="units"):  # Keras 3 takes a Python int only
        L.Dense(np.int64(3))


@pytest.mark.parametrize("tier", [True, "xla"])
def test_regularized_training_on_compiled_tiers_matches_the_numpy_tier(tier):
    if tier == "xla":
        pytest.importorskip("jax")
    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3)
    y = np.linspace(0, 1, 8, dtype=np.float32).reshape(8, 1)

    def train(jit_compile):
        model = keras.Sequential([
            keras.Input((3,)),
            L.Dense(4, activation="gelu", kernel_regularizer=R.L1L2(0.1, 0.2),
                    activity_regularizer="l1", kernel_initializer="ones"),
            L.Dense(1, kernel_initializer="ones", bias_regularizer="l2")])
        model.compile(keras.optimizers.SGD(0.1), "mse", jit_compile=jit_compile)
        history = model.fit(x, y, epochs=2, batch_size=3, shuffle=False, verbose=0)
        return history.history["loss"] + [model.evaluate(x, y, verbose=0)]

    np.testing.assert_allclose(train(tier), train(None), rtol=1e-5)
