"""Initial weights are Keras 3's for the same `keras.utils.set_random_seed`.

An initializer made without a seed takes one from Python's `random` when it is made (as do the
layers that hold a Keras SeedGenerator: Dropout, the recurrent cells, ...), and draws with
TensorFlow's stateless Philox streams. The expected values were printed by TensorFlow 2.21 +
Keras 3.15 for the same models (`np.asarray(w).ravel()[:k].tolist()` of `get_weights()`).
Uniform draws are bit-identical; truncated normals may differ in the last bit of a float32
(TensorFlow's C-library float functions), and an orthogonal kernel by its QR's rounding.
"""

import numpy as np

import runtime as rt
from runtime import keras


def _first(weights, k):
    return [np.asarray(w).ravel()[:k] for w in weights]


def test_dense_layers_draw_keras_seeds_in_order():
    keras.utils.set_random_seed(7)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4),
                              keras.layers.Dense(2, kernel_initializer="he_normal")])
    kernel, bias, he_kernel, he_bias = _first(model.get_weights(), 6)
    np.testing.assert_array_equal(kernel, np.float32(
        [-0.3380742073059082, 0.4256371259689331, 0.8404884338378906, -0.3156418204307556,
         -0.20789051055908203, 0.031118690967559814]))
    np.testing.assert_allclose(he_kernel, np.float32(
        [-0.21311736106872559, 0.2247033566236496, -0.49655476212501526, -1.4028584957122803,
         -1.3080339431762695, 0.5265449285507202]), rtol=1e-6)
    assert not bias.any() and not he_bias.any()


def test_conv_and_embedding_weights():
    keras.utils.set_random_seed(1)
    conv = keras.Sequential([keras.Input((5, 5, 2)), keras.layers.Conv2D(3, 3),
                             keras.layers.Flatten()])
    np.testing.assert_array_equal(_first(conv.get_weights(), 6)[0], np.float32(
        [-0.176001638174057, 0.2646937966346741, 0.3201625347137451, -0.11448252201080322,
         -0.3421708345413208, -0.2845672369003296]))
    embedding = keras.layers.Embedding(10, 3)
    embedding.build((None, 4))
    np.testing.assert_array_equal(_first(embedding.get_weights(), 6)[0], np.float32(
        [0.00912608951330185, -0.009767331182956696, 0.03110356256365776, 0.006343044340610504,
         -0.01817459985613823, 0.0012024752795696259]))


def test_an_lstm_and_a_dropout_take_their_seeds_where_keras_does():
    keras.utils.set_random_seed(2)
    lstm = keras.Sequential([keras.Input((4, 3)), keras.layers.LSTM(2), keras.layers.Dense(1)])
    kernel, recurrent, bias, dense, _ = _first(lstm.get_weights(), 4)
    np.testing.assert_array_equal(kernel, np.float32(
        [0.4200841784477234, -0.6674823760986328, 0.18378251791000366, 0.3262858986854553]))
    np.testing.assert_allclose(recurrent, np.float32(
        [0.010139107704162598, -0.24541695415973663, 0.47600847482681274, 0.3463144600391388]),
        rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(bias, [0.0, 0.0, 1.0, 1.0])  # unit_forget_bias
    np.testing.assert_array_equal(dense, np.float32([0.3320709466934204, 0.22983551025390625]))
    keras.utils.set_random_seed(2)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.Dropout(0.5),
                              keras.layers.Dense(2)])
    first, _, after_dropout, _ = _first(model.get_weights(), 4)
    np.testing.assert_array_equal(first, np.float32(
        [0.5266033411026001, -0.8367334604263306, 0.23038363456726074, 0.4090210199356079]))
    np.testing.assert_array_equal(after_dropout, np.float32(
        [0.23526597023010254, 0.09649920463562012, 0.6805996894836426, -0.6491026878356934]))


def test_a_seeded_initializer_gives_the_same_values_every_call_and_keeps_its_config():
    init = keras.initializers.GlorotUniform(seed=3)
    np.testing.assert_array_equal(init((4, 3)).numpy(), init((4, 3)).numpy())
    assert init.get_config() == {"seed": 3, "input_axes": None, "output_axes": None}
    assert keras.initializers.GlorotUniform().get_config()["seed"] is None
    normal = keras.initializers.RandomNormal(seed=3)((5,)).numpy()
    np.testing.assert_allclose(normal, np.float32(
        [-0.03357924148440361, 0.08380252122879028, -0.04721227288246155, 0.030396947637200356,
         0.0626392588019371]), rtol=1e-6)
    assert isinstance(rt.keras.layers.Orthogonal(), keras.initializers.Orthogonal)


def test_keras_random_draws_are_keras_draws():
    # Recorded from TensorFlow 2.21 + Keras 3.15 (keras.utils.set_random_seed(7), then the
    # calls below in this order): a draw without a seed takes the global SeedGenerator's
    # next seed, an int seed is reduced modulo 2**31 - 2, shuffle sorts a uniform draw.
    keras = rt.keras
    keras.utils.set_random_seed(7)
    np.testing.assert_array_equal(keras.random.normal((3,)).numpy(),
                                  np.float32([-1.5028461, -0.19109805, 0.26961696]))
    np.testing.assert_array_equal(keras.random.uniform((3,)).numpy(),
                                  np.float32([0.99025905, 0.7070477, 0.46156514]))
    np.testing.assert_array_equal(keras.random.normal((2,), seed=5).numpy(),
                                  np.float32([-2.0553784, 1.1581877]))
    np.testing.assert_array_equal(keras.random.normal((2,), seed=2**40 + 3).numpy(),
                                  np.float32([0.27526534, -0.5117996]))
    g = keras.random.SeedGenerator(3)
    np.testing.assert_array_equal(keras.random.uniform((2,), seed=g).numpy(),
                                  np.float32([0.19591284, 0.93934524]))
    np.testing.assert_array_equal(keras.random.uniform((2,), seed=g).numpy(),
                                  np.float32([0.4414147, 0.68550384]))
    assert g.get_config()["seed"] == 3
    assert keras.random.SeedGenerator().state.numpy().tolist() == [161973070, 0]
    assert keras.random.randint((4,), 0, 100).numpy().tolist() == [38, 38, 21, 65]
    assert keras.random.shuffle(np.arange(5)).numpy().tolist() == [2, 3, 1, 4, 0]
    np.testing.assert_array_equal(
        keras.random.dropout(np.ones(6, np.float32), 0.5, seed=1).numpy(),
        np.float32([2, 0, 2, 0, 0, 0]))
    np.testing.assert_array_equal(
        keras.random.shuffle(np.arange(12).reshape(3, 4), axis=1, seed=4).numpy(),
        [[2, 0, 3, 1], [6, 4, 7, 5], [10, 8, 11, 9]])
    keras.utils.set_random_seed(7)  # a new global generator: the same draws again
    np.testing.assert_array_equal(keras.random.normal((3,)).numpy(),
                                  np.float32([-1.5028461, -0.19109805, 0.26961696]))


def test_dropout_layers_draw_keras_masks_from_their_seed_generators():
    # Recorded from TensorFlow 2.21 + Keras 3.15: a Dropout's SeedGenerator state is one of
    # its variables (not a weight), and its masks are TensorFlow's stateless dropout at the
    # generator's seeds, so a seeded program drops what Keras drops.
    keras = rt.keras
    keras.backend.clear_session()  # fresh name counters, as in a new Keras program
    d = keras.layers.Dropout(0.5)
    assert [v.path for v in d.variables] == ["seed_generator/seed_generator_state"]
    assert d.weights == [] and len(d.non_trainable_variables) == 1
    keras.utils.set_random_seed(3)
    m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), keras.layers.Dropout(0.5)])
    assert [v.path for v in m.variables][:2] == ["sequential/dense/kernel",
                                                  "sequential/dense/bias"]
    assert len(m.variables) == 3 and len(m.weights) == 2 and len(m.get_weights()) == 2
    assert m.count_params() == 15 and m.non_trainable_weights == []
    ones = np.ones((2, 4), np.float32)
    np.testing.assert_allclose(m(ones, training=True).numpy(),
                               [[-2.1664972, 0, 0], [-2.1664972, 0, 0]], rtol=1e-6)
    np.testing.assert_allclose(m(ones, training=True).numpy(),
                               [[-2.1664972, 0, 0], [0, 0, 0]], rtol=1e-6)
    np.testing.assert_array_equal(
        keras.layers.Dropout(0.5, seed=1)(ones, training=True).numpy(),
        [[2, 0, 2, 0], [0, 0, 0, 2]])
    np.testing.assert_array_equal(
        keras.layers.Dropout(0.5, noise_shape=(None, 1), seed=1)(ones, training=True).numpy(),
        [[2, 2, 2, 2], [0, 0, 0, 0]])
    x = np.ones((2, 3, 4), np.float32)
    keras.utils.set_random_seed(5)
    first = {type(layer).__name__: layer(x, training=True).numpy().ravel()[:4]
             for layer in [keras.layers.SpatialDropout1D(0.5), keras.layers.GaussianNoise(0.3),
                           keras.layers.GaussianDropout(0.4)]}
    np.testing.assert_array_equal(first["SpatialDropout1D"], [2, 2, 0, 2])
    np.testing.assert_allclose(first["GaussianNoise"],
                               [0.95194, 0.89775, 0.80691, 1.01857], atol=1e-5)
    np.testing.assert_allclose(first["GaussianDropout"],
                               [1.55383, 2.08025, 0.76283, -0.16061], atol=1e-5)


def test_a_compiled_fit_with_dropout_takes_keras_steps_on_every_tier():
    # Keras 3.15 on TensorFlow 2.21, the same program: losses 0.66991329, 0.71281111,
    # 0.64019346; the seed generator's counter moves once per batch (12)
    x = np.random.RandomState(0).randn(64, 8).astype(np.float32)
    y = (x.sum(1) > 0).astype(np.int32)
    for jit_compile in (False, True):
        keras.utils.set_random_seed(1)
        m = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dropout(0.3), keras.layers.Dense(2)])
        m.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  jit_compile=jit_compile)
        losses = m.fit(x, y, epochs=3, batch_size=16, verbose=0, shuffle=False).history["loss"]
        np.testing.assert_allclose(losses, [0.66991329, 0.71281111, 0.64019346], rtol=1e-6)
        assert m.layers[1].seed_generator.state.numpy()[1] == 12
