"""SimpleRNN, LSTM and GRU against NumPy step-by-step references with the layers' own
weights; return_sequences / return_state / go_backwards, staged loops of unknown length,
Bidirectional, gradients and the jit tier."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

L = rt.layers
RNG = np.random.default_rng(4)


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def ref_simple(x, kernel, rec, bias):
    h = np.zeros((x.shape[0], rec.shape[0]))
    outs = []
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ kernel + h @ rec + bias)
        outs.append(h)
    return np.stack(outs, 1), [h]


def ref_lstm(x, kernel, rec, bias):
    u = rec.shape[0]
    h = c = np.zeros((x.shape[0], u))
    outs = []
    for t in range(x.shape[1]):
        z = x[:, t] @ kernel + h @ rec + bias
        i, f, g, o = (z[:, k * u:(k + 1) * u] for k in range(4))
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs, 1), [h, c]


def ref_gru(x, kernel, rec, bias, reset_after=True):
    u = rec.shape[0]
    h = np.zeros((x.shape[0], u))
    outs = []
    for t in range(x.shape[1]):
        if reset_after:
            xw = x[:, t] @ kernel + bias[0]
            hu = h @ rec + bias[1]
            z = sigmoid(xw[:, :u] + hu[:, :u])
            r = sigmoid(xw[:, u:2 * u] + hu[:, u:2 * u])
            cand = np.tanh(xw[:, 2 * u:] + r * hu[:, 2 * u:])
        else:
            xw = x[:, t] @ kernel + bias
            z = sigmoid(xw[:, :u] + h @ rec[:, :u])
            r = sigmoid(xw[:, u:2 * u] + h @ rec[:, u:2 * u])
            cand = np.tanh(xw[:, 2 * u:] + (r * h) @ rec[:, 2 * u:])
        h = z * h + (1 - z) * cand
        outs.append(h)
    return np.stack(outs, 1), [h]


CASES = [(L.SimpleRNN, ref_simple, {}), (L.LSTM, ref_lstm, {}), (L.GRU, ref_gru, {}),
         (L.GRU, lambda *a: ref_gru(*a, reset_after=False), {"reset_after": False})]


def _randomize(layer):
    layer.set_weights([RNG.standard_normal(w.shape) * 0.5 for w in layer.get_weights()])


@pytest.mark.parametrize("cls,ref,extra", CASES)
def test_matches_a_step_by_step_numpy_reference(cls, ref, extra):
    x = RNG.standard_normal((3, 5, 4))
    layer = cls(6, return_sequences=True, return_state=True, dtype="float64", **extra)
    layer(x)
    _randomize(layer)
    out, *states = layer(x)
    expected, expected_states = ref(x, *layer.get_weights())
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10, atol=1e-12)
    for s, e in zip(states, expected_states):
        np.testing.assert_allclose(s.numpy(), e, rtol=1e-10, atol=1e-12)
    last = cls(6, dtype="float64", **extra)
    last(x)
    last.set_weights(layer.get_weights())
    np.testing.assert_allclose(last(x).numpy(), expected[:, -1], rtol=1e-10)
    back = cls(6, go_backwards=True, dtype="float64", **extra)
    back(x)
    back.set_weights(layer.get_weights())
    np.testing.assert_allclose(back(x).numpy(), ref(x[:, ::-1], *layer.get_weights())[0][:, -1],
                               rtol=1e-10)


def test_weight_layout_and_defaults():
    x = np.zeros((2, 3, 4), np.float32)
    lstm = L.LSTM(5)
    lstm(x)
    kernel, rec, bias = lstm.get_weights()
    assert kernel.shape == (4, 20) and rec.shape == (5, 20) and bias.shape == (20,)
    np.testing.assert_array_equal(bias, np.r_[np.zeros(5), np.ones(5), np.zeros(10)])
    np.testing.assert_allclose(rec @ rec.T, np.eye(5), atol=1e-5)  # orthogonal columns block
    gru = L.GRU(5)
    gru(x)
    assert [w.shape for w in gru.get_weights()] == [(4, 15), (5, 15), (2, 15)]


def test_initial_state_is_used():
    x = RNG.standard_normal((2, 3, 4))
    layer = L.SimpleRNN(3, return_state=True, dtype="float64")
    layer(x)
    h0 = RNG.standard_normal((2, 3))
    out, h = layer(x, initial_state=[h0])
    k, r, b = layer.get_weights()
    expected = h0
    for t in range(3):
        expected = np.tanh(x[:, t] @ k + expected @ r + b)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10)


@pytest.mark.parametrize("cls", [L.LSTM, L.GRU])
def test_staged_with_unknown_length_runs_a_while_loop(cls):
    layer = cls(4, return_sequences=True)
    f = rt.function(lambda v: layer(v), input_signature=[rt.TensorSpec([None, None, 3],
                                                                           rt.float32)])
    for steps in (2, 5):
        x = RNG.standard_normal((2, steps, 3)).astype(np.float32)
        np.testing.assert_allclose(f(x).numpy(), layer(x).numpy(), rtol=1e-5, atol=1e-6)
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("jit", [False, True])
def test_gradients_compiled_agree_with_eager(jit):
    model = L.Sequential([L.GRU(4, return_sequences=True), L.LSTM(3), L.Dense(1)])
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)

    def step(x):
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(model(x) ** 2)
        return loss, tape.gradient(loss, model.trainable_variables)

    eager = rt.nest.flatten(step(x))
    compiled = rt.nest.flatten(rt.function(step, jit_compile=jit)(x))
    for a, b in zip(eager, compiled):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-5)


def test_lstm_gradient_matches_finite_differences():
    x = RNG.standard_normal((2, 3, 2))
    layer = L.LSTM(2, dtype="float64")
    layer(x)
    _randomize(layer)
    weights = layer.get_weights()
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(layer(x) ** 2)
    gk = tape.gradient(loss, layer.cell.kernel).numpy()
    eps, num = 1e-6, np.zeros_like(weights[0])
    for idx in np.ndindex(num.shape):
        k = weights[0].copy()
        k[idx] += eps
        up = np.sum(ref_lstm(x, k, *weights[1:])[1][0] ** 2)
        k[idx] -= 2 * eps
        down = np.sum(ref_lstm(x, k, *weights[1:])[1][0] ** 2)
        num[idx] = (up - down) / (2 * eps)
    np.testing.assert_allclose(gk, num, rtol=1e-6, atol=1e-8)


def test_bidirectional():
    x = RNG.standard_normal((2, 4, 3))
    bi = L.Bidirectional(L.SimpleRNN(2, return_sequences=True, dtype="float64"),
                         dtype="float64")  # a float32 wrapper casts its inputs, as Keras's
    y = bi(x)
    assert y.shape == (2, 4, 4)
    fw = bi.forward_layer.get_weights()
    bw = bi.backward_layer.get_weights()
    np.testing.assert_allclose(y.numpy()[..., :2], ref_simple(x, *fw)[0], rtol=1e-10)
    np.testing.assert_allclose(y.numpy()[..., 2:], ref_simple(x[:, ::-1], *bw)[0][:, ::-1],
                               rtol=1e-10)
    assert L.Bidirectional(L.GRU(2), merge_mode="sum")(x.astype(np.float32)).shape == (2, 2)


def test_cells_and_rnn_wrapper():
    x = RNG.standard_normal((2, 3, 4))
    rnn = L.RNN(L.LSTMCell(3, dtype="float64"), return_state=True, dtype="float64")
    out, h, c = rnn(x)
    np.testing.assert_allclose(out.numpy(), h.numpy())
    expected = ref_lstm(x, *rnn.get_weights())[1]
    np.testing.assert_allclose(h.numpy(), expected[0], rtol=1e-10)
    np.testing.assert_allclose(c.numpy(), expected[1], rtol=1e-10)


def test_bad_arguments():
    with pytest.raises(TypeError):
        L.LSTM(3, return_sequence=True)
    with pytest.raises(TypeError, match="dropout"):
        L.GRU(3, dropout="0.2")
    with pytest.raises(ValueError, match="implementation"):
        L.LSTM(3, implementation=3)
    with pytest.raises(ValueError, match="rank 3"):
        L.SimpleRNN(2)(np.zeros((2, 3), np.float32))
