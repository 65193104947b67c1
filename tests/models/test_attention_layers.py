"""MultiHeadAttention, Attention, AdditiveAttention and EinsumDense against NumPy computations
from the layers' own weights (masked, unmasked, causal, returned scores), against numbers
Keras 3 printed for the same weights, inside rt.function and fit, with finite-difference
gradients, and through get_config / from_config."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

L = rt.keras.layers
RNG = np.random.default_rng(31)


def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def ref_mha(weights, query, value, key=None, mask=None, zero_masked=False):
    """Keras's multi-head attention in NumPy from its weights (Keras's get_weights order);
    `mask` [B, T, S] True where attending is allowed."""
    qk, qb, kk, kb, vk, vb, ok, ob = weights
    key = value if key is None else key
    q = np.einsum("btd,dnh->btnh", query, qk) + qb
    k = np.einsum("bsd,dnh->bsnh", key, kk) + kb
    v = np.einsum("bsd,dnh->bsnh", value, vk) + vb
    scores = np.einsum("bsnh,btnh->bnts", k, q / np.sqrt(qk.shape[-1]))
    if mask is not None:
        allowed = np.broadcast_to(mask[:, None], scores.shape)
        scores = np.where(allowed, scores, -1e9)
    weights_ = softmax(scores)
    if mask is not None and zero_masked:
        weights_ = np.where(allowed, weights_, 0.0)
    heads = np.einsum("bnts,bsnh->btnh", weights_, v)
    return np.einsum("btnh,nhd->btd", heads, ok) + ob, weights_


def random_weights(layer, scale=0.5):
    layer.set_weights([RNG.normal(size=w.shape).astype(w.dtype) * scale
                       for w in layer.get_weights()])
    return layer.get_weights()


def built_mha(query, value, **kwargs):
    layer = L.MultiHeadAttention(**kwargs)
    layer(query, value)
    return layer, random_weights(layer)


Q = RNG.normal(size=(2, 4, 5)).astype("float32")
V = RNG.normal(size=(2, 3, 5)).astype("float32")
K = RNG.normal(size=(2, 3, 6)).astype("float32")


# -- MultiHeadAttention -------------------------------------------------------------------

def test_mha_weights_have_keras_layout():
    layer = L.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=4)
    layer(Q, V, key=K)
    # Keras 3 (get_weights of the same call): query, key, value kernels and biases, then
    # the output projection
    assert [w.shape for w in layer.get_weights()] == [
        (5, 2, 3), (2, 3), (6, 2, 3), (2, 3), (5, 2, 4), (2, 4), (2, 4, 5), (5,)]
    # Keras 3's names and paths: "kernel", "<layer>/query/kernel", ...
    assert [v.name for v in layer.variables][::2] == ["kernel"] * 4
    assert [v.path for v in layer.variables][::2] == [
        f"{layer.name}/{sub}/kernel" for sub in ("query", "key", "value", "attention_output")]
    without_bias = L.MultiHeadAttention(num_heads=2, key_dim=3, use_bias=False)
    without_bias(Q, V)
    assert [w.shape for w in without_bias.get_weights()] == [
        (5, 2, 3), (5, 2, 3), (5, 2, 3), (2, 3, 5)]


def test_mha_unmasked_matches_numpy_with_scores():
    layer, weights = built_mha(Q, V, num_heads=2, key_dim=3, value_dim=4)
    output, scores = layer(Q, V, key=None, return_attention_scores=True)
    expected, expected_scores = ref_mha(weights, Q, V)
    np.testing.assert_allclose(output.numpy(), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(scores.numpy(), expected_scores, rtol=1e-5, atol=1e-6)
    assert scores.shape == (2, 2, 4, 3)


def test_mha_separate_key_and_output_shape():
    layer = L.MultiHeadAttention(num_heads=3, key_dim=2, output_shape=7)
    out = layer(Q, V, key=K)
    assert out.shape == (2, 4, 7)
    weights = random_weights(layer)
    np.testing.assert_allclose(layer(Q, V, key=K).numpy(), ref_mha(weights, Q, V, K)[0],
                               rtol=1e-5, atol=1e-5)


def test_mha_matches_keras_numbers():
    # Keras 3.x under TensorFlow 2.21 printed these outputs for the same inputs and weights
    r = np.random.RandomState(1)
    q = r.normal(size=(1, 3, 4)).astype("float32")
    v = r.normal(size=(1, 2, 4)).astype("float32")
    layer = L.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=2)
    layer(q, v)
    w = np.random.RandomState(0)
    layer.set_weights([(w.normal(size=x.shape) * 0.5).astype("float32")
                       for x in layer.get_weights()])
    out, scores = layer(q, v, return_attention_scores=True)
    np.testing.assert_allclose(out.numpy()[0], [
        [0.635018, 1.060979, -0.137487, 1.548034],
        [0.520908, 1.001835, -0.183101, 1.478383],
        [0.771937, 1.151212, -0.06851, 1.630802]], atol=2e-6)
    np.testing.assert_allclose(scores.numpy()[0, 1], [
        [0.321111, 0.678889], [0.173255, 0.826745], [0.581073, 0.418927]], atol=2e-6)
    causal = layer(q, q, use_causal_mask=True)
    np.testing.assert_allclose(causal.numpy()[0], [
        [1.232292, -0.520738, -0.216454, 0.403645],
        [1.098446, -0.318233, -0.277328, 0.668533],
        [1.229368, 0.723254, -0.267964, 1.930869]], atol=2e-6)


def test_mha_gate_and_sliding_window_match_keras_numbers():
    # Keras 3.x under TensorFlow 2.21 printed these for the same inputs and weights
    q = np.random.RandomState(1).normal(size=(1, 5, 4)).astype("float32")
    layer = L.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=2, use_gate=True,
                                 sliding_window=2)
    layer(q, q)
    assert [w.shape for w in layer.get_weights()] == [  # query, key, gate, value, output
        (4, 2, 3), (2, 3), (4, 2, 3), (2, 3), (4, 2, 2), (2, 2), (4, 2, 2), (2, 2),
        (2, 2, 4), (4,)]
    w = np.random.RandomState(0)
    layer.set_weights([(w.normal(size=x.shape) * 0.5).astype("float32")
                       for x in layer.get_weights()])
    out, scores = layer(q, q, return_attention_scores=True, use_causal_mask=True)
    np.testing.assert_allclose(scores.numpy()[0, 0], [
        [1, 0, 0, 0, 0], [0.930421, 0.069579, 0, 0, 0], [0, 0.0352, 0.9648, 0, 0],
        [0, 0, 0.571165, 0.428835, 0], [0, 0, 0, 0.323845, 0.676155]], atol=2e-6)
    np.testing.assert_allclose(out.numpy()[0, :2], [
        [0.338999, -0.166705, 0.484811, 0.134786],
        [0.262323, -0.387565, 0.251102, 0.096544]], atol=2e-6)
    np.testing.assert_allclose(layer(q, q).numpy()[0, :2], [
        [-0.014667, -0.109539, 0.226094, 0.122194],
        [0.132866, -0.266931, 0.17919, 0.056728]], atol=2e-6)
    with pytest.raises(ValueError, match="sliding_window"):
        L.MultiHeadAttention(num_heads=2, key_dim=2, sliding_window=0)
    with pytest.raises(NotImplementedError, match="flash_attention"):
        L.MultiHeadAttention(num_heads=2, key_dim=2, flash_attention=True)


def test_mha_value_mask_attention_mask_and_causal_match_numpy():
    layer, weights = built_mha(Q, Q, num_heads=2, key_dim=3)
    value_mask = np.array([[1, 1, 0, 1], [1, 0, 1, 1]], bool)
    attention_mask = RNG.random((2, 4, 4)) > 0.3
    attention_mask[:, :, 0] = True  # no fully masked rows
    causal = np.tril(np.ones((4, 4), bool))[None]
    cases = [
        (dict(value_mask=value_mask), value_mask[:, None, :]),
        (dict(attention_mask=attention_mask), attention_mask),
        (dict(use_causal_mask=True), causal),
        (dict(value_mask=value_mask, use_causal_mask=True, attention_mask=attention_mask),
         value_mask[:, None, :] & causal & attention_mask),
    ]
    for kwargs, allowed in cases:
        out, scores = layer(Q, Q, return_attention_scores=True, **kwargs)
        expected, expected_scores = ref_mha(weights, Q, Q, mask=np.broadcast_to(
            allowed, (2, 4, 4)))
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(scores.numpy(), expected_scores, atol=1e-6)
        assert np.all(scores.numpy()[np.broadcast_to(~allowed[:, None], (2, 2, 4, 4))] == 0)


def test_mha_masks_from_embedding_combine_and_pass_on():
    tokens = np.array([[3, 5, 2, 0], [4, 1, 0, 0]])
    embedding = L.Embedding(8, 5, mask_zero=True)
    x = embedding(tokens)
    layer = L.MultiHeadAttention(num_heads=2, key_dim=3, dropout=0.1)
    out, scores = layer(x, x, return_attention_scores=True, training=False)
    weights = layer.get_weights()
    keep = tokens != 0
    allowed = keep[:, :, None] & keep[:, None, :]
    expected, expected_scores = ref_mha(weights, x.numpy(), x.numpy(), mask=allowed,
                                        zero_masked=True)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(scores.numpy(), expected_scores, atol=1e-6)
    # the output keeps the query's mask and the inputs lose theirs, as in Keras 3 (whose
    # MultiHeadAttention takes the masks off the tensors it is given)
    np.testing.assert_array_equal(np.asarray(out._keras_mask), keep)
    assert x._keras_mask is None
    # an explicit query_mask is the same as the query's own mask
    plain = x.numpy()
    explicit = layer(plain, plain, query_mask=keep, value_mask=keep,
                     return_attention_scores=True)
    np.testing.assert_allclose(explicit[0].numpy(), expected, rtol=1e-5, atol=1e-5)


def test_mha_fully_masked_rows_as_keras():
    # Keras 3 zeroes a fully masked row's weights on its explicit-scores path (returned
    # scores, dropout) and gives it uniform weights on its fused path: the output of a row
    # whose values are all masked is then the mean of the projected values
    layer, weights = built_mha(Q, V, num_heads=2, key_dim=3)
    value_mask = np.array([[0, 0, 0], [1, 0, 1]], bool)
    allowed = np.broadcast_to(value_mask[:, None, :], (2, 4, 3))
    fused = layer(Q, V, value_mask=value_mask)
    np.testing.assert_allclose(fused.numpy(), ref_mha(weights, Q, V, mask=allowed)[0],
                               rtol=1e-5, atol=1e-5)
    out, scores = layer(Q, V, value_mask=value_mask, return_attention_scores=True)
    expected, expected_scores = ref_mha(weights, Q, V, mask=allowed, zero_masked=True)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-5)
    assert np.all(scores.numpy()[0] == 0)
    np.testing.assert_allclose(out.numpy()[0], np.broadcast_to(weights[-1], (4, 5)),
                               atol=1e-6)  # no attention: the output bias alone


def test_mha_dropout_only_when_training():
    layer, weights = built_mha(Q, V, num_heads=2, key_dim=3, dropout=0.5, seed=3)
    expected = ref_mha(weights, Q, V)[0]
    np.testing.assert_allclose(layer(Q, V).numpy(), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(layer(Q, V, training=False).numpy(), expected, rtol=1e-5,
                               atol=1e-5)
    trained, scores = layer(Q, V, training=True, return_attention_scores=True)
    assert not np.allclose(trained.numpy(), expected, atol=1e-3)
    np.testing.assert_allclose(scores.numpy().sum(-1), 1, rtol=1e-5)  # before dropout


def test_mha_attention_axes_over_one_of_two_axes():
    x = RNG.normal(size=(2, 3, 4, 5)).astype("float32")
    layer = L.MultiHeadAttention(num_heads=2, key_dim=2, attention_axes=(2,))
    out, scores = layer(x, x, return_attention_scores=True)
    assert out.shape == (2, 3, 4, 5) and scores.shape == (2, 3, 2, 4, 4)
    weights = random_weights(layer)
    out = layer(x, x).numpy()
    for row in range(3):  # axis 1 is a batch axis: each row attends on its own
        np.testing.assert_allclose(out[:, row], ref_mha(weights, x[:, row], x[:, row])[0],
                                   rtol=1e-5, atol=1e-5)


def test_mha_keras_documented_examples():
    # keras.layers.MultiHeadAttention's docstring: shapes of its two examples
    layer = L.MultiHeadAttention(num_heads=2, key_dim=2)
    target, source = rt.keras.Input(shape=[8, 16]), rt.keras.Input(shape=[4, 16])
    output, scores = layer(target, source, return_attention_scores=True)
    assert output.shape.as_list() == [None, 8, 16] and scores.shape.as_list() == [None, 2, 8, 4]
    layer = L.MultiHeadAttention(num_heads=2, key_dim=2, attention_axes=(2, 3))
    assert layer(rt.keras.Input(shape=[5, 3, 4, 16]), rt.keras.Input(shape=[5, 3, 4, 16])
                 ).shape.as_list() == [None, 5, 3, 4, 16]
    # attending over axes (2, 3) jointly is attending over them flattened into one axis
    weights = random_weights(layer)
    x = RNG.normal(size=(2, 5, 3, 4, 16)).astype("float32")
    out = layer(x, x).numpy()
    for row in range(5):
        flat = x[:, row].reshape(2, 12, 16)
        np.testing.assert_allclose(out[:, row].reshape(2, 12, 16),
                                   ref_mha(weights, flat, flat)[0], rtol=1e-4, atol=1e-5)


def test_mha_in_function_and_keywords():
    layer, weights = built_mha(Q, V, num_heads=2, key_dim=3)

    @rt.function
    def attend(q, v):
        return layer(query=q, value=v, use_causal_mask=True)

    causal = np.broadcast_to(np.tril(np.ones((4, 3), bool))[None], (2, 4, 3))
    np.testing.assert_allclose(attend(Q, V).numpy(), ref_mha(weights, Q, V, mask=causal)[0],
                               rtol=1e-5, atol=1e-5)


def test_mha_config_round_trip():
    layer = L.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=4, dropout=0.25,
                                 output_shape=(6,), use_bias=False, name="attend")
    config = layer.get_config()
    assert {k: config[k] for k in ("num_heads", "key_dim", "value_dim", "dropout",
                                   "use_bias", "name")} == {
        "num_heads": 2, "key_dim": 3, "value_dim": 4, "dropout": 0.25, "use_bias": False,
        "name": "attend"}
    again = L.MultiHeadAttention.from_config(config)
    assert again.get_config() == config
    # Keras's config holds value_dim resolved to key_dim when it is not given
    assert L.MultiHeadAttention(num_heads=2, key_dim=3).get_config()["value_dim"] == 3
    assert layer.compute_output_shape((None, 4, 5), (None, 3, 5)).as_list() == [None, 4, 6]
    layer(Q, V)
    again(Q, V)
    again.set_weights(layer.get_weights())
    np.testing.assert_allclose(again(Q, V).numpy(), layer(Q, V).numpy(), rtol=1e-6)
    assert again(Q, V).shape == (2, 4, 6)


def test_mha_argument_errors():
    with pytest.raises(ValueError, match="num_heads"):
        L.MultiHeadAttention(num_heads=0, key_dim=2)
    with pytest.raises(ValueError, match="key_dim"):
        L.MultiHeadAttention(num_heads=2, key_dim=1.5)
    with pytest.raises(TypeError, match="num_head"):
        L.MultiHeadAttention(num_head=2, key_dim=2)
    with pytest.raises(ValueError, match="value"):
        L.MultiHeadAttention(num_heads=2, key_dim=2)(Q)
    with pytest.raises(ValueError, match="key"):
        L.MultiHeadAttention(num_heads=2, key_dim=2)(Q, V, key=Q)


def test_mha_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    q = rng.normal(size=(1, 3, 2))
    v = rng.normal(size=(1, 2, 2))
    layer = L.MultiHeadAttention(num_heads=2, key_dim=2, dtype="float64")
    layer(q, v)
    random_weights(layer)
    probe = rng.normal(size=(1, 3, 2))
    value_mask = np.array([[1, 0]], bool)
    qt = rt.constant(q)
    with rt.GradientTape() as tape:
        tape.watch(qt)
        loss = rt.reduce_sum(layer(qt, v, value_mask=value_mask) * probe)
    grads = tape.gradient(loss, [qt] + layer.trainable_variables)

    def f(weights, query):
        mask = np.broadcast_to(value_mask[:, None], (1, 3, 2))
        return float((ref_mha(weights, query, v, mask=mask)[0] * probe).sum())

    weights = layer.get_weights()
    eps = 1e-6
    numeric = np.zeros_like(q)
    for index in np.ndindex(q.shape):
        d = np.zeros_like(q)
        d[index] = eps
        numeric[index] = (f(weights, q + d) - f(weights, q - d)) / (2 * eps)
    np.testing.assert_allclose(grads[0].numpy(), numeric, rtol=1e-5, atol=1e-7)
    for i, w in enumerate(weights):
        numeric = np.zeros_like(w)
        for index in np.ndindex(w.shape):
            plus = [x.copy() for x in weights]
            minus = [x.copy() for x in weights]
            plus[i][index] += eps
            minus[i][index] -= eps
            numeric[index] = (f(plus, q) - f(minus, q)) / (2 * eps)
        np.testing.assert_allclose(np.asarray(grads[1 + i]), numeric, rtol=1e-5, atol=1e-7)


class AddPositions(L.Layer):
    """A learned embedding of each step's position, added to the inputs."""

    def build(self, input_shape):
        self.positions = self.add_weight(name="positions", shape=(input_shape[1], input_shape[2]))

    def call(self, inputs):
        return inputs + self.positions


def test_transformer_block_trains_with_fit():
    # a sequence is labelled 1 when token 1 comes before token 2 in it: order matters, so a
    # bag of embeddings cannot learn it, attention with positions can
    rng = np.random.default_rng(5)
    n, steps = 512, 6
    x = rng.integers(3, 8, size=(n, steps))
    for row in x:
        a, b = rng.choice(steps, 2, replace=False)
        row[a], row[b] = 1, 2
    y = (np.argmax(x == 1, axis=1) < np.argmax(x == 2, axis=1)).astype("float32")
    rt.random.set_seed(0)
    tokens = rt.keras.Input(shape=(steps,), dtype="int32")
    h = AddPositions()(L.Embedding(8, 16)(tokens))
    attended = L.MultiHeadAttention(num_heads=2, key_dim=8)(h, h)
    h = L.LayerNormalization()(L.Add()([h, attended]))
    h = L.LayerNormalization()(L.Add()([h, L.Dense(16)(L.Dense(32, activation="relu")(h))]))
    out = L.Dense(1, activation="sigmoid")(L.GlobalAveragePooling1D()(h))
    model = rt.keras.Model(tokens, out)
    model.compile(rt.keras.optimizers.Adam(0.01), "binary_crossentropy", metrics=["accuracy"])
    history = model.fit(x, y, epochs=12, batch_size=32, verbose=0)
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]
    assert history.history["accuracy"][-1] > 0.85


# -- Attention and AdditiveAttention --------------------------------------------------------

def ref_attention(query, value, scores, value_mask=None, query_mask=None, causal=False):
    if value_mask is not None or causal:
        allowed = np.ones(scores.shape, bool)
        if value_mask is not None:
            allowed &= value_mask[:, None, :]
        if causal:
            allowed &= np.tril(np.ones(scores.shape[-2:], bool))
        scores = np.where(allowed, scores, scores - 1e9)
    weights = softmax(scores)
    out = weights @ value
    if query_mask is not None:
        out = np.where(query_mask[..., None], out, 0)
    return out, weights


def test_attention_dot_with_scale_and_masks_matches_numpy():
    q, v, k = Q, V, RNG.normal(size=(2, 3, 5)).astype("float32")
    layer = L.Attention(use_scale=True)
    layer([q, v, k])
    layer.set_weights([np.float32(0.6)])
    value_mask = np.array([[1, 0, 1], [1, 1, 0]], bool)
    query_mask = np.array([[1, 1, 0, 1], [0, 1, 1, 1]], bool)
    out, weights = layer([q, v, k], mask=[query_mask, value_mask],
                         return_attention_scores=True)
    expected, expected_weights = ref_attention(q, v, 0.6 * q @ k.transpose(0, 2, 1),
                                               value_mask, query_mask)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(weights.numpy(), expected_weights, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(layer.compute_mask([q, v], [query_mask, None])),
                                  query_mask)
    assert layer.compute_output_shape([(None, 4, 5), (None, 3, 7)]).as_list() == [None, 4, 7]


def test_attention_causal_and_keras_masks():
    tokens = np.array([[3, 5, 2, 0], [4, 1, 0, 0]])
    x = L.Embedding(8, 5, mask_zero=True)(tokens)
    layer = L.Attention()
    out, weights = layer([x, x], use_causal_mask=True, return_attention_scores=True)
    keep = tokens != 0
    xv = x.numpy()
    expected, expected_weights = ref_attention(xv, xv, xv @ xv.transpose(0, 2, 1), keep, keep,
                                               causal=True)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(weights.numpy(), expected_weights, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(out._keras_mask), keep)


def test_attention_concat_and_additive_match_keras_numbers():
    # Keras 3.x under TensorFlow 2.21 printed these for the same inputs and weights
    r = np.random.RandomState(1)
    q = r.normal(size=(1, 3, 4)).astype("float32")
    v = r.normal(size=(1, 2, 4)).astype("float32")
    concat = L.Attention(use_scale=True, score_mode="concat")
    concat([q, v])
    concat.set_weights([np.float32(0.7), np.float32(1.3)])
    out, weights = concat([q, v], return_attention_scores=True,
                          mask=[np.array([[1, 0, 1]], bool), np.array([[1, 0]], bool)])
    row = [-0.322417, -0.384054, 1.133769, -1.099891]
    np.testing.assert_allclose(out.numpy()[0], [row, [0, 0, 0, 0], row], atol=2e-6)
    np.testing.assert_allclose(weights.numpy()[0], [[1, 0]] * 3, atol=1e-6)
    additive = L.AdditiveAttention()
    additive([q, v])
    assert [w.shape for w in additive.get_weights()] == [(4,)]
    additive.set_weights([np.array([0.5, -1.0, 2.0, 0.25], "float32")])
    np.testing.assert_allclose(additive([q, v]).numpy()[0], [
        [-0.299125, -0.460738, 0.964259, -0.838579],
        [-0.241597, -0.650136, 0.545595, -0.193181],
        [-0.240618, -0.65336, 0.538469, -0.182196]], atol=2e-6)


def test_additive_and_concat_match_numpy():
    scale = RNG.normal(size=5).astype("float32")
    layer = L.AdditiveAttention()
    layer([Q, V])
    layer.set_weights([scale])
    summed = np.tanh(Q[:, :, None, :] + V[:, None, :, :])
    value_mask = np.array([[1, 1, 0], [0, 1, 1]], bool)
    out = layer([Q, V], mask=[None, value_mask])
    np.testing.assert_allclose(out.numpy(), ref_attention(Q, V, (scale * summed).sum(-1),
                                                          value_mask)[0],
                               rtol=1e-5, atol=1e-6)
    plain = L.Attention(score_mode="concat")
    np.testing.assert_allclose(plain([Q, V]).numpy(), ref_attention(Q, V, summed.sum(-1))[0],
                               rtol=1e-5, atol=1e-6)
    unscaled = L.AdditiveAttention(use_scale=False)
    np.testing.assert_allclose(unscaled([Q, V]).numpy(),
                               ref_attention(Q, V, summed.sum(-1))[0], rtol=1e-5, atol=1e-6)
    assert unscaled.get_weights() == []


def test_attention_in_function_dropout_and_config():
    layer = L.Attention(dropout=0.5, seed=1)

    @rt.function
    def attend(q, v, training):
        return layer([q, v], training=training)

    expected = ref_attention(Q, V, Q @ V.transpose(0, 2, 1))[0]
    np.testing.assert_allclose(attend(Q, V, False).numpy(), expected, rtol=1e-5, atol=1e-6)
    assert not np.allclose(attend(Q, V, True).numpy(), expected, atol=1e-3)
    config = layer.get_config()
    assert (config["use_scale"], config["score_mode"], config["dropout"]) == (False, "dot", 0.5)
    again = L.Attention.from_config(config)
    assert again.get_config() == config
    additive = L.AdditiveAttention(use_scale=False, name="add")
    assert L.AdditiveAttention.from_config(additive.get_config()).get_config() == \
        additive.get_config()


def test_attention_argument_errors():
    with pytest.raises(ValueError, match="score_mode"):
        L.Attention(score_mode="sum")
    with pytest.raises(ValueError, match=r"\[query, value\]"):
        L.Attention()(Q)
    with pytest.raises(ValueError, match="mask"):
        L.Attention()([Q, V], mask=Q)


# -- EinsumDense ------------------------------------------------------------------------------

@pytest.mark.parametrize("equation, output_shape, bias_axes, shape, out, weights", [
    # Keras 3's documented examples, and the shapes Keras gave for the same calls
    ("ab,bc->ac", 64, "c", (2, 32), (2, 64), [(32, 64), (64,)]),
    ("abc,cd->abd", (None, 64), "d", (2, 32, 128), (2, 32, 64), [(128, 64), (64,)]),
    ("...b,bc->...c", 64, "c", (2, 32, 128), (2, 32, 64), [(128, 64), (64,)]),
    ("ab...,bc->ac...", 64, "c", (2, 32, 128), (2, 64, 128), [(32, 64), (64, 1)]),
    ("abc,cde->abde", (None, 2, 3), "de", (2, 4, 5), (2, 4, 2, 3), [(5, 2, 3), (2, 3)]),
    ("abcd,cde->abe", (None, 5), "e", (2, 4, 2, 3), (2, 4, 5), [(2, 3, 5), (5,)]),
])
def test_einsum_dense_shapes_and_values(equation, output_shape, bias_axes, shape, out,
                                        weights):
    layer = L.EinsumDense(equation, output_shape=output_shape, bias_axes=bias_axes,
                          activation="relu")
    x = RNG.normal(size=shape).astype("float32")
    assert layer(x).shape == out
    assert layer.compute_output_shape((None,) + shape[1:]).as_list() == [None, *out[1:]]
    assert [w.shape for w in layer.get_weights()] == weights
    kernel, bias = random_weights(layer)
    lhs, rest = equation.split(",")
    full = equation.replace("...", "XYZ"[:len(shape) - len(lhs.replace("...", ""))])
    expected = np.maximum(np.einsum(full, x, kernel) + bias, 0)
    np.testing.assert_allclose(layer(x).numpy(), expected, rtol=1e-5, atol=1e-5)


def test_einsum_dense_errors_and_config():
    with pytest.raises(ValueError, match="equation"):
        L.EinsumDense("ab->b", output_shape=3)
    with pytest.raises(ValueError, match="bias_axes"):
        L.EinsumDense("ab,bc->ac", output_shape=3, bias_axes="x")
    with pytest.raises(ValueError, match="output_shape"):
        L.EinsumDense("abc,cd->abd", output_shape=4)(np.zeros((2, 3, 5), "float32"))
    layer = L.EinsumDense("ab,bc->ac", output_shape=4, bias_axes="c")
    again = L.EinsumDense.from_config(layer.get_config())
    assert again.get_config() == layer.get_config()
    assert again(np.ones((2, 3), "float32")).shape == (2, 4)


@pytest.mark.parametrize("tier, module", [(True, "numba"), ("xla", "jax")])
def test_attention_layers_on_compiler_tiers(tier, module):
    pytest.importorskip(module)
    mha, weights = built_mha(Q, Q, num_heads=2, key_dim=3)
    dot = L.Attention(use_scale=True)
    additive = L.AdditiveAttention()
    value_mask = np.array([[1, 1, 0, 1], [1, 0, 1, 1]], bool)

    def attend(x):
        return [mha(x, x, value_mask=value_mask, use_causal_mask=True), dot([x, x]),
                additive([x, x])]

    expected = [t.numpy() for t in attend(Q)]  # the NumPy tier, eagerly
    allowed = value_mask[:, None, :] & np.tril(np.ones((4, 4), bool))[None]
    np.testing.assert_allclose(expected[0], ref_mha(weights, Q, Q, mask=allowed)[0],
                               rtol=1e-5, atol=1e-5)
    compiled = rt.function(attend, jit_compile=tier)
    for got, want in zip(compiled(Q), expected):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)


def test_model_with_attention_saves_and_loads(tmp_path):
    tokens = rt.keras.Input(shape=(5,), dtype="int32")
    x = L.Embedding(10, 8, mask_zero=True)(tokens)
    y = L.MultiHeadAttention(num_heads=2, key_dim=4, value_dim=3)(x, x, use_causal_mask=True)
    y = L.AdditiveAttention()([L.Attention(use_scale=True)([y, x]), x])
    model = rt.keras.Model(tokens, L.Dense(1)(L.GlobalAveragePooling1D()(y)))
    data = np.array([[1, 2, 3, 0, 0], [4, 5, 0, 0, 0]], "int32")
    expected = model.predict(data, verbose=0)
    model.save(tmp_path / "model.keras")
    loaded = rt.keras.models.load_model(tmp_path / "model.keras")
    np.testing.assert_allclose(loaded.predict(data, verbose=0), expected, rtol=1e-6)
    serve = rt.function(lambda x: model(x), input_signature=[rt.TensorSpec([None, 5], rt.int32)])
    rt.saved_model.save(model, str(tmp_path / "saved"), signatures=serve)
    restored = rt.saved_model.load(str(tmp_path / "saved"))
    result = restored.signatures["serving_default"](rt.constant(data))
    result = next(iter(result.values())) if isinstance(result, dict) else result
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6)


# -- GroupQueryAttention ----------------------------------------------------------------------

def ref_gqa(weights, query, value, mask=None, zero_masked=False):
    """Grouped-query attention in NumPy from Keras's weights (no gate)."""
    qk, qb, kk, kb, vk, vb, ok, ob = weights
    repeats = qk.shape[1] // kk.shape[1]
    q = (np.einsum("btd,dnh->btnh", query, qk) + qb) / np.sqrt(qk.shape[-1])
    k = np.repeat(np.einsum("bsd,dnh->bsnh", value, kk) + kb, repeats, axis=2)
    v = np.repeat(np.einsum("bsd,dnh->bsnh", value, vk) + vb, repeats, axis=2)
    scores = np.einsum("btnh,bsnh->bnts", q, k)
    if mask is not None:
        allowed = np.broadcast_to(mask[:, None], scores.shape)
        scores = np.where(allowed, scores, -1e9)
    weights_ = softmax(scores)
    if mask is not None and zero_masked:
        weights_ = np.where(allowed, weights_, 0.0)
    return np.einsum("bnts,bsnh,nhd->btd", weights_, v, ok) + ob, weights_


def test_group_query_attention_matches_numpy():
    layer = L.GroupQueryAttention(head_dim=3, num_query_heads=4, num_key_value_heads=2)
    layer(Q, V)
    assert [w.shape for w in layer.get_weights()] == [
        (5, 4, 3), (4, 3), (5, 2, 3), (2, 3), (5, 2, 3), (2, 3), (4, 3, 5), (5,)]
    weights = random_weights(layer)
    out, scores = layer(Q, V, return_attention_scores=True)
    expected, expected_scores = ref_gqa(weights, Q, V)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(scores.numpy(), expected_scores, rtol=1e-5, atol=1e-6)
    value_mask = np.array([[1, 0, 1], [0, 1, 1]], bool)
    allowed = np.broadcast_to(value_mask[:, None], (2, 4, 3))
    np.testing.assert_allclose(layer(Q, V, value_mask=value_mask).numpy(),
                               ref_gqa(weights, Q, V, mask=allowed)[0], rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="divisible"):
        L.GroupQueryAttention(head_dim=2, num_query_heads=3, num_key_value_heads=2)


@pytest.mark.filterwarnings("ignore:Layer .* does not support masking")
def test_group_query_attention_matches_keras_numbers():
    # Keras 3.x under TensorFlow 2.21 printed these for the same inputs and weights (a
    # gate, masks from Embedding(mask_zero=True), causal)
    r = np.random.RandomState(1)
    tokens = np.array([[3, 5, 2, 0, 0], [4, 1, 6, 7, 0]])
    embedding = L.Embedding(8, 4, mask_zero=True)
    embedding.build((None, 5))
    embedding.set_weights([r.normal(size=(8, 4)).astype("float32")])
    layer = L.GroupQueryAttention(head_dim=3, num_query_heads=4, num_key_value_heads=2,
                                  use_gate=True)
    x = embedding(tokens)
    with pytest.warns(UserWarning, match="does not support masking"):  # as Keras warns
        layer(x, x)
    w = np.random.RandomState(0)
    layer.set_weights([(w.normal(size=v.shape) * 0.5).astype("float32")
                       for v in layer.get_weights()])
    x = embedding(tokens)
    out, scores = layer(x, x, return_attention_scores=True, use_causal_mask=True)
    np.testing.assert_allclose(out.numpy()[1, :2], [
        [-0.005322, 0.360325, -0.244972, 0.663792],
        [1.253071, 0.75558, 1.58974, 1.714264]], atol=2e-6)
    np.testing.assert_allclose(scores.numpy()[1, 3], [
        [1, 0, 0, 0, 0], [0.029068, 0.970932, 0, 0, 0], [0.415053, 0.2418, 0.343147, 0, 0],
        [0.47811, 0.095846, 0.117326, 0.308718, 0], [0, 0, 0, 0, 0]], atol=2e-6)
    np.testing.assert_array_equal(np.asarray(out._keras_mask), tokens != 0)
    assert x._keras_mask is not None  # unlike MultiHeadAttention, the inputs keep theirs
    np.testing.assert_allclose(layer(x, x).numpy()[0, 3:], [
        [0.422453, 0.845659, -0.830096, 0.332714]] * 2, atol=2e-6)


def test_group_query_attention_config_and_saving(tmp_path):
    layer = L.GroupQueryAttention(head_dim=2, num_query_heads=4, num_key_value_heads=1,
                                  sliding_window=2, name="gqa")
    again = L.GroupQueryAttention.from_config(layer.get_config())
    assert again.get_config() == layer.get_config()
    assert layer.compute_output_shape((None, 5, 6)).as_list() == [None, 5, 6]
    inputs = rt.keras.Input(shape=(5, 6))
    model = rt.keras.Model(inputs, layer(inputs, inputs, use_causal_mask=True))
    data = RNG.normal(size=(2, 5, 6)).astype("float32")
    expected = model.predict(data, verbose=0)
    model.save(tmp_path / "gqa.keras")
    loaded = rt.keras.models.load_model(tmp_path / "gqa.keras")
    np.testing.assert_allclose(loaded.predict(data, verbose=0), expected, rtol=1e-6)
    band = np.tril(np.ones((5, 5), bool)) & ~np.tril(np.ones((5, 5), bool), -2)
    np.testing.assert_allclose(expected, ref_gqa(layer.get_weights(), data, data,
                                                 mask=np.broadcast_to(band, (2, 5, 5)))[0],
                               rtol=1e-5, atol=1e-5)


def test_attention_model_trains_as_keras():
    # the same model, weights and data under Keras 3.x with TensorFlow 2.21 (SGD, no
    # shuffling) printed these losses and predictions: the four attention layers with masks
    # from Embedding(mask_zero=True) and a causal mask train here step for step as there
    steps, vocab = 6, 10
    tokens = rt.keras.Input(shape=(steps,), dtype="int32")
    h = L.Embedding(vocab, 8, mask_zero=True)(tokens)
    a = L.MultiHeadAttention(num_heads=2, key_dim=4)(h, h, use_causal_mask=True)
    h = L.LayerNormalization()(L.Add()([h, a]))
    b = L.Attention(use_scale=True)([h, h])
    c = L.AdditiveAttention()([b, h])
    g = L.GroupQueryAttention(head_dim=2, num_query_heads=4, num_key_value_heads=2)(c, c)
    model = rt.keras.Model(tokens, L.Dense(1, activation="sigmoid")(
        L.GlobalAveragePooling1D()(g)))
    r = np.random.RandomState(0)
    model.set_weights([(r.normal(size=w.shape) * 0.3).astype("float32")
                       for w in model.get_weights()])
    rng = np.random.default_rng(0)
    x = rng.integers(0, vocab, size=(64, steps)).astype("int32")
    x[:, 4:] = 0
    y = (x[:, 0] > x[:, 1]).astype("float32")
    model.compile(rt.keras.optimizers.SGD(0.1), "binary_crossentropy")
    history = model.fit(x, y, epochs=5, batch_size=16, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"],
                               [0.667393, 0.658799, 0.656544, 0.655947, 0.655676], atol=2e-6)
    np.testing.assert_allclose(model.predict(x[:3], verbose=0).ravel(),
                               [0.355553, 0.351933, 0.365466], atol=2e-6)
