"""Weight constraints on every layer that takes them (Keras 3 applies a weight's constraint
after each optimizer update): the recurrent layers, the transposed, depthwise and separable
convolutions, the normalization layers, PReLU and the attention layers.

Oracle: one SGD step of the same model without the constraint, from the same weights, on the
same batch; the constrained model's weights are NumPy's constraint of those weights
(max(w, 0) for NonNeg), the unconstrained weights unchanged."""

import numpy as np
import pytest

from runtime import keras

L = keras.layers
C = keras.constraints


def _rnn(c):
    return L.LSTM(3, kernel_constraint=c, recurrent_constraint=c, bias_constraint=c)


def _gru(c):
    return L.GRU(3, kernel_constraint=c, recurrent_constraint=c, bias_constraint=c)


def _simple(c):
    return L.SimpleRNN(3, kernel_constraint=c, recurrent_constraint=c, bias_constraint=c)


def _mha(c):
    class SelfAttention(L.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.attention = L.MultiHeadAttention(2, 2, kernel_constraint=c, bias_constraint=c)

        def call(self, x):
            return self.attention(x, x)
    return SelfAttention()


CASES = {  # name: (layer maker given the constraint, input shape, constrained weight names)
    "LSTM": (_rnn, (4, 2), ["kernel", "recurrent_kernel", "bias"]),
    "GRU": (_gru, (4, 2), ["kernel", "recurrent_kernel", "bias"]),
    "SimpleRNN": (_simple, (4, 2), ["kernel", "recurrent_kernel", "bias"]),
    "Conv2DTranspose": (lambda c: L.Conv2DTranspose(2, 2, kernel_constraint=c,
                                                    bias_constraint=c),
                        (3, 3, 2), ["kernel", "bias"]),
    "Conv1DTranspose": (lambda c: L.Conv1DTranspose(2, 2, kernel_constraint=c,
                                                    bias_constraint=c),
                        (3, 2), ["kernel", "bias"]),
    "DepthwiseConv2D": (lambda c: L.DepthwiseConv2D(2, depthwise_constraint=c,
                                                    bias_constraint=c),
                        (3, 3, 2), ["kernel", "bias"]),
    "SeparableConv1D": (lambda c: L.SeparableConv1D(2, 2, depthwise_constraint=c,
                                                    pointwise_constraint=c, bias_constraint=c),
                        (4, 2), ["depthwise_kernel", "pointwise_kernel", "bias"]),
    "SeparableConv2D": (lambda c: L.SeparableConv2D(2, 2, depthwise_constraint=c,
                                                    pointwise_constraint=c, bias_constraint=c),
                        (3, 3, 2), ["depthwise_kernel", "pointwise_kernel", "bias"]),
    "BatchNormalization": (lambda c: L.BatchNormalization(gamma_constraint=c,
                                                          beta_constraint=c),
                           (3,), ["gamma", "beta"]),
    "LayerNormalization": (lambda c: L.LayerNormalization(gamma_constraint=c,
                                                          beta_constraint=c),
                           (4,), ["gamma", "beta"]),
    "GroupNormalization": (lambda c: L.GroupNormalization(2, gamma_constraint=c,
                                                          beta_constraint=c),
                           (4,), ["gamma", "beta"]),
    "PReLU": (lambda c: L.PReLU(alpha_constraint=c), (4,), ["alpha"]),
    "MultiHeadAttention": (_mha, (3, 4), ["kernel", "bias"]),
}


def _model(make, shape, constraint):
    layer = make(constraint)
    model = keras.Sequential([keras.Input(shape), layer, L.Flatten(), L.Dense(1)])
    model.compile(keras.optimizers.SGD(1.0), "mse")
    return model, layer


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_step_equals_the_constraint_of_the_unconstrained_step(name):
    make, shape, constrained = CASES[name]
    rng = np.random.default_rng(3)
    x = rng.normal(size=(8, *shape)).astype(np.float32)
    y = rng.normal(size=(8, 1)).astype(np.float32) * 10
    free, free_layer = _model(make, shape, None)
    bound, bound_layer = _model(make, shape, "non_neg")
    start = [w - 0.2 * np.sign(w) if w.size > 1 else w for w in free.get_weights()]
    free.set_weights(start)
    bound.set_weights(start)
    for layer in (free_layer, bound_layer):  # a weight starting at zeros (PReLU's alpha)
        for variable in layer.trainable_weights:  # starts below zero, on both models alike
            if not variable.numpy().any():
                variable.assign(np.full(variable.shape, -0.1, np.float32))
    free.train_on_batch(x, y)
    bound.train_on_batch(x, y)
    names = {id(v): v.name.split("/")[-1].split(":")[0] for v in bound_layer.weights}
    touched = 0
    for mine, theirs, variable in zip(bound_layer.get_weights(), free_layer.get_weights(),
                                      bound_layer.weights):
        if names[id(variable)] in constrained and variable.trainable:
            np.testing.assert_allclose(mine, np.maximum(theirs, 0.0), rtol=1e-5, atol=1e-6)
            touched += int((theirs < 0).any())
        else:
            np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)
    assert touched, "the step left no constrained weight negative: the test proves nothing"
    # the model's other weights (the Dense head) are unconstrained and equal
    np.testing.assert_allclose(bound.layers[-1].kernel.numpy(), free.layers[-1].kernel.numpy(),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_constraint_is_in_the_config_and_comes_back(name):
    make, shape, constrained = CASES[name]
    layer = make(C.MaxNorm(2.0))
    if name == "MultiHeadAttention":
        layer = layer.attention
    config = layer.get_config()
    keys = [k for k in config if k.endswith("_constraint")]
    assert keys
    again = type(layer).from_config(config).get_config()
    for key in keys:
        value = C.get(config[key])
        assert isinstance(value, C.MaxNorm) and value.max_value == 2.0, key
        assert again[key] == config[key], key
