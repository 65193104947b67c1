"""Masks end to end, as Keras 3 defines them: `Embedding(mask_zero=True)` and `Masking` make
one, recurrent layers skip masked steps, layers keeping the time axis pass it on, pooling and
losses consume it. Oracles: NumPy step-by-step references with the layers' own weights and
NumPy reductions over the kept steps."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import runtime as rt

L = rt.keras.layers
RNG = np.random.default_rng(11)
IDS = np.array([[1, 2, 0, 0, 5], [3, 0, 4, 0, 0], [0, 0, 0, 0, 0], [6, 7, 8, 9, 1]])


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def simple_step(x, states, kernel, rec, bias):
    h = np.tanh(x @ kernel + states[0] @ rec + bias)
    return h, [h]


def lstm_step(x, states, kernel, rec, bias):
    h, c = states
    u = rec.shape[0]
    z = x @ kernel + h @ rec + bias
    i, f, g, o = (z[:, k * u:(k + 1) * u] for k in range(4))
    c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    h = sigmoid(o) * np.tanh(c)
    return h, [h, c]


def gru_step(x, states, kernel, rec, bias):
    h = states[0]
    u = rec.shape[0]
    xw = x @ kernel + bias[0]
    hu = h @ rec + bias[1]
    z = sigmoid(xw[:, :u] + hu[:, :u])
    r = sigmoid(xw[:, u:2 * u] + hu[:, u:2 * u])
    h = z * h + (1 - z) * np.tanh(xw[:, 2 * u:] + r * hu[:, 2 * u:])
    return h, [h]


STEPS = {"SimpleRNN": (simple_step, 1), "LSTM": (lstm_step, 2), "GRU": (gru_step, 1)}


def masked_reference(kind, x, mask, weights, units, go_backwards=False, zero_output=False):
    """Keras's masked recurrence: at a masked step the states carry over and the output
    repeats the previous one (zeros before any), or is zero with `zero_output`."""
    step, n_states = STEPS[kind]
    order = range(x.shape[1] - 1, -1, -1) if go_backwards else range(x.shape[1])
    states = [np.zeros((x.shape[0], units)) for _ in range(n_states)]
    previous = np.zeros((x.shape[0], units))
    outputs = []
    for t in order:
        out, new = step(x[:, t], states, *weights)
        keep = mask[:, t:t + 1]
        out = np.where(keep, out, previous)
        states = [np.where(keep, n, s) for n, s in zip(new, states)]
        previous = out
        outputs.append(np.where(keep, out, 0.0) if zero_output else out)
    last = outputs[-1]
    return np.stack(outputs, 1), last


def _embedded(output_dim=4):
    embedding = L.Embedding(10, output_dim, mask_zero=True, dtype="float64")
    values = embedding(IDS)
    return embedding, values


def test_embedding_and_masking_make_keras_masks():
    _, values = _embedded()
    np.testing.assert_array_equal(values._keras_mask.numpy(), IDS != 0)
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    x[0, 1] = 0.0
    x[1, 3] = 0.0
    masked = L.Masking(0.0)(x)
    keep = (x != 0).any(-1)
    np.testing.assert_array_equal(masked._keras_mask.numpy(), keep)
    np.testing.assert_array_equal(masked.numpy(), np.where(keep[..., None], x, 0.0))
    other = L.Masking(mask_value=1.5)(np.full((1, 2, 2), 1.5, np.float32))
    np.testing.assert_array_equal(other._keras_mask.numpy(), [[False, False]])


@pytest.mark.parametrize("kind", sorted(STEPS))
@pytest.mark.parametrize("return_sequences", [True, False])
@pytest.mark.parametrize("go_backwards", [False, True])
def test_recurrent_layers_skip_masked_steps(kind, return_sequences, go_backwards):
    _, values = _embedded()
    layer = getattr(L, kind)(3, return_sequences=return_sequences, go_backwards=go_backwards,
                             dtype="float64")
    out = layer(values)
    sequence, last = masked_reference(kind, values.numpy(), IDS != 0, layer.get_weights(), 3,
                                      go_backwards)
    np.testing.assert_allclose(out.numpy(), sequence if return_sequences else last,
                               rtol=1e-10, atol=1e-12)
    if return_sequences:
        np.testing.assert_array_equal(out._keras_mask.numpy(), IDS != 0)
    else:
        assert getattr(out, "_keras_mask", None) is None


@pytest.mark.parametrize("kind", sorted(STEPS))
def test_a_staged_loop_of_unknown_length_skips_masked_steps_too(kind):
    embedding, values = _embedded()
    layer = getattr(L, kind)(3, return_sequences=True, zero_output_for_mask=True,
                             dtype="float64")
    expected = layer(values).numpy()
    sequence, _ = masked_reference(kind, values.numpy(), IDS != 0, layer.get_weights(), 3,
                                   zero_output=True)
    np.testing.assert_allclose(expected, sequence, rtol=1e-10, atol=1e-12)

    @rt.function(input_signature=[rt.TensorSpec([None, None], rt.int64)])
    def run(ids):
        return layer(embedding(ids))
    np.testing.assert_allclose(run(IDS).numpy(), expected, rtol=1e-10, atol=1e-12)


def test_bidirectional_masks_both_directions_with_zero_outputs():
    _, values = _embedded()
    layer = L.Bidirectional(L.LSTM(3, return_sequences=True, dtype="float64"), dtype="float64")
    out = layer(values)  # (a float32 wrapper would cast its float64 inputs, as Keras's)
    forward = layer.forward_layer.get_weights()
    backward = layer.backward_layer.get_weights()
    mask = IDS != 0
    f, _ = masked_reference("LSTM", values.numpy(), mask, forward, 3, zero_output=True)
    b, _ = masked_reference("LSTM", values.numpy(), mask, backward, 3, go_backwards=True,
                            zero_output=True)
    np.testing.assert_allclose(out.numpy(), np.concatenate([f, b[:, ::-1]], -1), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_array_equal(out._keras_mask.numpy(), mask)


def test_masks_pass_through_layers_that_keep_the_time_axis_and_pooling_consumes_them():
    _, values = _embedded()
    mask = IDS != 0
    dense = L.Dense(5, dtype="float64")(values)
    dropped = L.Dropout(0.5, dtype="float64")(dense)  # float64 layers: no autocast
    activated = L.Activation("relu", dtype="float64")(dropped)
    for tensor in (dense, dropped, activated):
        np.testing.assert_array_equal(tensor._keras_mask.numpy(), mask)
    pooled = L.GlobalAveragePooling1D(dtype="float64")(activated)
    a = activated.numpy()
    kept = mask[..., None]
    with np.errstate(invalid="ignore"):
        expected = (a * kept).sum(1) / kept.sum(1)
    np.testing.assert_allclose(pooled.numpy(), expected, rtol=1e-12)
    assert getattr(pooled, "_keras_mask", None) is None


def test_merging_layers_combine_masks():
    x = RNG.standard_normal((2, 3, 2)).astype(np.float32)
    y = RNG.standard_normal((2, 3, 2)).astype(np.float32)
    x[0, 0] = 0.0
    y[1, 2] = 0.0
    mx, my = L.Masking()(x), L.Masking()(y)
    added = L.Add()([mx, my])
    np.testing.assert_array_equal(added._keras_mask.numpy(),
                                  (x != 0).any(-1) | (y != 0).any(-1))
    unmasked = rt.constant(y)
    assert getattr(L.Add()([mx, unmasked]), "_keras_mask", None) is None
    joined = L.Concatenate()([mx, unmasked])
    np.testing.assert_array_equal(joined._keras_mask.numpy(), np.ones((2, 3), bool))


def test_a_layer_that_does_not_support_masks_drops_them_with_keras_warning():
    _, values = _embedded()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        flat = L.Flatten()(values)
    assert getattr(flat, "_keras_mask", None) is None
    assert any("does not support masking" in str(w.message) for w in caught)


def test_custom_layers_receive_masks_and_compute_their_own():
    class Scale(L.Layer):
        def __init__(self):
            super().__init__()
            self.supports_masking = True
            self.seen = None

        def call(self, inputs, mask=None):
            self.seen = mask
            return inputs * 2.0

    class FirstStepOnly(L.Layer):
        def call(self, inputs):
            return inputs + 0.0  # a new tensor: the input's mask stays the input's

        def compute_mask(self, inputs, mask=None):
            return rt.constant([[True, False, False, False, False]] * 4)

    _, values = _embedded()
    scale = Scale()
    doubled = scale(values)
    np.testing.assert_array_equal(scale.seen.numpy(), IDS != 0)
    np.testing.assert_array_equal(doubled._keras_mask.numpy(), IDS != 0)
    first = FirstStepOnly()
    assert first.supports_masking  # it defines compute_mask
    np.testing.assert_array_equal(first(doubled)._keras_mask.numpy(),
                                  [[True, False, False, False, False]] * 4)
    lam = L.Lambda(lambda x: x + 1.0, mask=lambda inputs, mask: mask)
    np.testing.assert_array_equal(lam(values)._keras_mask.numpy(), IDS != 0)
    assert getattr(L.Lambda(lambda x: x + 1.0)(values), "_keras_mask", None) is None


def _sequence_model(activation=None):
    rt.random.set_seed(3)
    model = rt.keras.Sequential([
        L.Embedding(10, 4, mask_zero=True),
        L.LSTM(5, return_sequences=True),
        L.Dense(3, activation=activation),
    ])
    model.build((None, 5))
    rng = np.random.default_rng(5)  # weights large enough that the steps' losses differ
    model.set_weights([rng.standard_normal(w.shape) * 1.5 for w in model.get_weights()])
    return model


@pytest.mark.parametrize("loss", ["sparse_categorical_crossentropy", "loss_object"])
def test_a_masked_loss_is_the_mean_over_the_kept_steps(loss):
    labels = np.array([[1, 2, 0, 0, 1], [0, 0, 2, 0, 0], [1, 1, 1, 1, 1], [2, 0, 1, 2, 0]])
    if loss == "loss_object":
        model = _sequence_model()
        model.compile("sgd", rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        logits = model.predict(IDS, verbose=0)
        log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    else:
        model = _sequence_model("softmax")
        model.compile("sgd", loss)
        log_p = np.log(np.clip(model.predict(IDS, verbose=0), 1e-7, 1 - 1e-7))
    per_step = -np.take_along_axis(log_p, labels[..., None], -1)[..., 0]
    keep = IDS != 0
    expected = per_step[keep].mean()
    assert model.evaluate(IDS, labels, batch_size=4, verbose=0) == pytest.approx(expected,
                                                                                rel=1e-5)
    # the unmasked mean differs: the mask is honoured, not ignored
    assert abs(per_step.mean() - expected) > 1e-3


def test_a_masked_loss_with_sample_weights_weighs_each_kept_step_by_its_sample():
    labels = np.array([[1, 2, 0, 0, 1], [0, 0, 2, 0, 0], [1, 1, 1, 1, 1], [2, 0, 1, 2, 0]])
    weights = np.array([1.0, 2.0, 0.5, 3.0], np.float32)
    model = _sequence_model()
    model.compile("sgd", rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    logits = model.predict(IDS, verbose=0)
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    per_step = -np.take_along_axis(log_p, labels[..., None], -1)[..., 0]
    keep = (IDS != 0).astype(np.float64)
    # Keras: the mask's weights (size / kept where kept) times the sample weights, then the
    # mean over every value
    w = keep * keep.size / keep.sum() * weights[:, None]
    expected = (per_step * w).sum() / per_step.size
    got = model.evaluate(IDS, labels, sample_weight=weights, batch_size=4, verbose=0)
    assert got == pytest.approx(expected, rel=1e-5)


def test_fit_trains_on_the_kept_steps_only():
    """Changing a label at a masked step changes nothing: the loss and gradients ignore it."""
    labels = np.array([[1, 2, 0, 0, 1], [0, 0, 2, 0, 0], [1, 1, 1, 1, 1], [2, 0, 1, 2, 0]])
    other = np.where(IDS != 0, labels, 2 - labels)
    results = []
    for y in (labels, other):
        model = _sequence_model()
        model.compile(rt.keras.optimizers.SGD(0.1),
                      rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        history = model.fit(IDS, y, epochs=3, batch_size=2, shuffle=False, verbose=0)
        results.append((history.history["loss"], model.get_weights()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("metric", ["accuracy", "metric_object"])
@pytest.mark.parametrize("batch_size", [4, 3])
def test_masked_metrics_count_the_kept_steps_over_the_whole_pass(metric, batch_size):
    """Keras's mean metrics add up (correct kept steps) / (kept steps) over every batch, so a
    batch weighs by its kept steps, not by its samples."""
    labels = np.array([[1, 2, 0, 0, 1], [0, 0, 2, 0, 0], [1, 1, 1, 1, 1], [2, 0, 1, 2, 0]])
    model = _sequence_model("softmax")
    chosen = rt.keras.metrics.SparseCategoricalAccuracy() if metric == "metric_object" \
        else metric
    model.compile("sgd", "sparse_categorical_crossentropy", metrics=[chosen])
    correct = model.predict(IDS, verbose=0).argmax(-1) == labels
    keep = IDS != 0
    expected = correct[keep].mean()
    assert abs(correct.mean() - expected) > 0.05  # the mask matters for these labels
    _, accuracy = model.evaluate(IDS, labels, batch_size=batch_size, verbose=0)
    assert accuracy == pytest.approx(expected, rel=1e-6)
