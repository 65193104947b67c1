"""One activation table for layers and `keras.activations`: every name Keras 3 accepts,
each checked against Keras 3's formula written in NumPy."""

import math

import numpy as np
import pytest

import runtime as rt
from runtime import keras

X = np.linspace(-7.0, 7.0, 57).astype(np.float32).reshape(3, 19)
_erf = np.vectorize(math.erf)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x):
    return np.logaddexp(x, 0.0)


def _relu6(x):
    return np.minimum(np.maximum(x, 0), 6)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946

# Keras 3's formulas (keras.activations docs), in NumPy
FORMULAS = {
    "relu": lambda x: np.maximum(x, 0),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.2 * x),
    "relu6": _relu6,
    "softmax": _softmax,
    "log_softmax": lambda x: np.log(_softmax(x)),
    "sigmoid": _sigmoid,
    "tanh": np.tanh,
    "exponential": np.exp,
    "linear": lambda x: x,
    "elu": lambda x: np.where(x >= 0, x, np.expm1(x)),
    "selu": lambda x: SELU_SCALE * np.where(x >= 0, x, SELU_ALPHA * np.expm1(x)),
    "celu": lambda x: np.maximum(x, 0) + np.expm1(np.minimum(x, 0)),
    "gelu": lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2))),
    "silu": lambda x: x * _sigmoid(x),
    "swish": lambda x: x * _sigmoid(x),
    "hard_sigmoid": lambda x: _relu6(x + 3) / 6,
    "hard_silu": lambda x: x * _relu6(x + 3) / 6,
    "hard_swish": lambda x: x * _relu6(x + 3) / 6,
    "softplus": _softplus,
    "softsign": lambda x: x / (1 + np.abs(x)),
    "mish": lambda x: x * np.tanh(_softplus(x)),
    "tanh_shrink": lambda x: x - np.tanh(x),
    "hard_tanh": lambda x: np.clip(x, -1, 1),
    "hard_shrink": lambda x: np.where(np.abs(x) > 0.5, x, 0),
    "soft_shrink": lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0)),
    "sparse_plus": lambda x: np.where(x <= -1, 0, np.where(x < 1, (x + 1) ** 2 / 4, x)),
    "sparse_sigmoid": lambda x: np.where(x <= -1, 0, np.where(x >= 1, 1, (x + 1) / 2)),
    "squareplus": lambda x: (x + np.sqrt(x * x + 4)) / 2,
    "log_sigmoid": lambda x: -_softplus(-x),
    "glu": lambda x: x[:, :9] * _sigmoid(x[:, 9:18]),
}


def _input(name):
    return X[:, :18] if name == "glu" else X


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_each_name_is_keras_formula(name):
    x = _input(name)
    expected = FORMULAS[name](x.astype(np.float64))
    got = keras.activations.get(name)(rt.constant(x))
    np.testing.assert_allclose(np.asarray(got), expected, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_dense_takes_every_name_and_applies_it(name):
    x = _input(name)
    layer = rt.layers.Dense(x.shape[1], activation=name)
    layer.build((None, x.shape[1]))
    layer.kernel.assign(np.eye(x.shape[1], dtype=np.float32))  # y = activation(x)
    got = layer(x)
    np.testing.assert_allclose(np.asarray(got), FORMULAS[name](x.astype(np.float64)),
                               rtol=2e-5, atol=2e-6)


def test_layers_and_keras_share_one_table():
    for name in FORMULAS:
        assert rt.layers.Dense(1, activation=name).activation is keras.activations.get(name)
        assert rt.layers.Activation(name).activation is keras.activations.get(name)


def test_staged_and_compiled_match_eager():
    names = ["gelu", "selu", "mish", "hard_silu", "sparse_plus", "celu", "soft_shrink"]

    @rt.function
    def apply(x):
        return [keras.activations.get(n)(x) for n in names]

    for eager, staged in zip([keras.activations.get(n)(rt.constant(X)) for n in names],
                             apply(rt.constant(X))):
        np.testing.assert_allclose(np.asarray(staged), np.asarray(eager), rtol=1e-6, atol=1e-7)


def test_gradients_through_named_activations_match_finite_differences():
    x0 = np.array([-2.5, -0.7, 0.3, 1.9], np.float64)
    for name in ["gelu", "elu", "selu", "mish", "silu", "softsign", "celu", "squareplus"]:
        fn = keras.activations.get(name)
        x = rt.constant(x0)
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(fn(x))
        eps = 1e-6
        numeric = (FORMULAS[name](x0 + eps) - FORMULAS[name](x0 - eps)) / (2 * eps)
        np.testing.assert_allclose(np.asarray(tape.gradient(y, x)), numeric, rtol=1e-5,
                                   atol=1e-7, err_msg=name)


def test_keyword_forms_follow_keras():
    x = np.array([-3.0, -0.5, 0.5, 2.0, 8.0], np.float32)
    np.testing.assert_allclose(np.asarray(keras.activations.leaky_relu(x, negative_slope=0.1)),
                               np.where(x > 0, x, 0.1 * x), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(keras.activations.elu(x, alpha=2.0)),
                               np.where(x >= 0, x, 2.0 * np.expm1(x)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(keras.activations.relu(x, max_value=1.5)),
                               np.clip(x, 0, 1.5))
    # relu(x, negative_slope, max_value, threshold) as Keras 3 documents it
    expected = np.where(x > 1.0, np.minimum(x, 6.0), 0.0) - 0.1 * np.maximum(1.0 - x, 0.0)
    np.testing.assert_allclose(
        np.asarray(keras.activations.relu(x, negative_slope=0.1, max_value=6.0, threshold=1.0)),
        expected, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(keras.activations.gelu(x, approximate=True)),
                               0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi)
                                                      * (x + 0.044715 * x ** 3))), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(np.asarray(keras.activations.threshold(x, 0.0, -1.0)),
                               np.where(x > 0, x, -1.0))


def test_sparsemax_is_the_simplex_projection():
    x = np.array([[0.5, 2.0, 1.8, -1.0], [0.0, 0.0, 0.0, 0.0], [3.0, 0.1, 0.2, 0.3]],
                 np.float32)
    got = np.asarray(keras.activations.sparsemax(x))
    # sorted descending, k = the largest k with 1 + k z_k > sum of the top k; tau from them
    expected = np.array([[0.0, 0.6, 0.4, 0.0], [0.25] * 4, [1.0, 0.0, 0.0, 0.0]])
    np.testing.assert_allclose(got, expected, atol=1e-6)


def test_serialize_round_trips_names_and_nn_functions():
    for name in FORMULAS:
        fn = keras.activations.get(name)
        canonical = {"swish": "silu", "hard_swish": "hard_silu"}.get(name, name)
        assert keras.activations.serialize(fn) == canonical
        assert keras.activations.deserialize(canonical) is fn
    assert keras.activations.serialize(rt.nn.relu) == "relu"
    assert keras.activations.serialize(rt.nn.elu) == "elu"
    config = rt.layers.Dense(2, activation=rt.nn.leaky_relu).get_config()
    assert config["activation"] == "leaky_relu"
    again = rt.layers.Dense.from_config(rt.layers.Dense(2, activation="mish").get_config())
    assert again.activation is keras.activations.mish


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(ValueError, match="hard_sigmoid") as info:
        rt.layers.Dense(2, activation="gelux")
    assert "gelux" in str(info.value) and "mish" in str(info.value)
    with pytest.raises(ValueError, match="gelux"):
        keras.activations.get("gelux")


def test_glu_needs_an_even_axis():
    with pytest.raises(ValueError, match="even"):
        keras.activations.glu(np.ones((2, 3), np.float32))


def test_activation_layers_follow_keras_formulas():
    x = np.array([[-2.0, -0.5, 0.0, 1.0, 7.0]], np.float32)
    L = keras.layers
    np.testing.assert_allclose(np.asarray(L.LeakyReLU()(x)), np.where(x > 0, x, 0.3 * x),
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(L.LeakyReLU(negative_slope=0.1)(x)),
                               np.where(x > 0, x, 0.1 * x), rtol=1e-6)
    expected = np.where(x > 0.5, np.minimum(x, 6.0), 0.0) - 0.1 * np.maximum(0.5 - x, 0.0)
    np.testing.assert_allclose(
        np.asarray(L.ReLU(max_value=6.0, negative_slope=0.1, threshold=0.5)(x)), expected,
        rtol=1e-6)
    np.testing.assert_allclose(np.asarray(L.ELU(alpha=2.0)(x)),
                               np.where(x >= 0, x, 2.0 * np.expm1(x)), rtol=1e-6)
    kept = np.array([[1, 1, 0, 1, 0]])
    e = np.exp(x - x[kept == 1].max()) * kept
    np.testing.assert_allclose(np.asarray(L.Softmax()(x, mask=kept)), e / e.sum(), rtol=1e-6,
                               atol=1e-7)
    prelu = L.PReLU(alpha_initializer="ones")
    prelu.build((None, 5))
    prelu.alpha.assign(np.array([0.1, 0.2, 0.3, 0.4, 0.5], np.float32))
    np.testing.assert_allclose(np.asarray(prelu(x)),
                               np.where(x > 0, x, np.array([0.1, 0.2, 0.3, 0.4, 0.5]) * x),
                               rtol=1e-6)
    shared = L.PReLU(shared_axes=[1, 2])
    shared.build((None, 3, 4, 2))
    assert shared.alpha.shape.as_list() == [1, 1, 2]  # one alpha per channel
    with pytest.raises(ValueError, match="negative_slope"):
        L.LeakyReLU(negative_slope=-1.0)
    with pytest.raises(ValueError, match="max_value"):
        L.ReLU(max_value=-1.0)
