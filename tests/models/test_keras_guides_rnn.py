"""Stateful RNN layers as the Keras "Working with RNNs" guide uses them, checked against
Keras 3's documented behaviour with a NumPy or same-layer oracle."""

import numpy as np
import pytest

from runtime import keras
from runtime.keras import layers


def _paragraphs(count=3):
    rng = np.random.default_rng(0)
    return [rng.random((4, 3, 5)).astype("float32") for _ in range(count)]


def _simple_rnn_numpy(weights, x, h=None):
    kernel, recurrent, bias = weights
    h = np.zeros((x.shape[0], kernel.shape[1]), np.float32) if h is None else h
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ kernel + h @ recurrent + bias)
    return h


def test_stateful_simple_rnn_carries_its_state_across_calls_and_resets():
    # Keras 3: stateful=True starts each call from the previous call's last states;
    # reset_states() zeroes them; the state variables are not among the weights.
    p1, p2, _ = _paragraphs()
    layer = layers.SimpleRNN(6, stateful=True)
    first = layer(p1)
    second = layer(p2)
    weights = layer.get_weights()
    assert len(layer.weights) == 3
    expected = _simple_rnn_numpy(weights, p2, _simple_rnn_numpy(weights, p1))
    np.testing.assert_allclose(np.asarray(second), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(layer.states[0].numpy(), expected, rtol=1e-5, atol=1e-6)
    layer.reset_states()
    assert not np.any(layer.states[0].numpy())
    np.testing.assert_allclose(np.asarray(layer(p1)), np.asarray(first), rtol=1e-6)


def test_stateful_lstm_states_seed_another_layer_and_batch_size_is_checked():
    p1, p2, p3 = _paragraphs()
    lstm = layers.LSTM(8, stateful=True)
    lstm(p1)
    lstm(p2)
    assert [tuple(v.shape) for v in lstm.states] == [(4, 8), (4, 8)]
    fresh = layers.LSTM(8)
    fresh(p3)
    fresh.set_weights(lstm.get_weights())
    # the same as running the stateful layer itself on the third paragraph
    np.testing.assert_allclose(np.asarray(fresh(p3, initial_state=lstm.states)),
                               np.asarray(lstm(p3)), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="batch size"):
        lstm(np.ones((2, 3, 5), "float32"))
    with pytest.raises(ValueError, match="batch size must be static"):
        layers.LSTM(3, stateful=True)(keras.Input((None, 5)))
