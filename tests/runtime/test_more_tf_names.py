"""More TensorFlow 2.21 names: tf.sparse.bincount / cross_hashed / mask / sampled_addmm,
tf.ragged.cross / cross_hashed / stack_dynamic_partitions, tf.strings.unicode_script,
tf.math.sobol_sample, tf.nn.fractional_max_pool / fractional_avg_pool / isotonic_regression,
the tf.nn RNN cell wrappers, tf.image's JPEG-quality functions and decode_webp,
tf.io.gfile.get_registered_schemes, tf.io.match_filenames_once and tf.io.write_graph.

Expected values are TensorFlow 2.21's results for the same calls (recorded once), or closed
forms: the Sobol points of low dimensions, pooling maxima and means worked out by hand.
"""

from __future__ import annotations

import collections
import io

import numpy as np
import pytest

import runtime as tf
from runtime import keras
from runtime.errors import InvalidArgumentError


def _triple(sp):
    return (sp.indices.numpy().tolist(), sp.values.numpy().tolist(),
            sp.dense_shape.numpy().tolist())


# -- tf.sparse.bincount --------------------------------------------------------------------

SP = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 2]], [1, 2, 1, 4], [2, 5])


def test_sparse_bincount_counts_present_entries_per_row_and_overall():
    assert _triple(tf.sparse.bincount(SP, axis=-1)) == (
        [[0, 1], [0, 2], [1, 1], [1, 4]], [1, 1, 1, 1], [2, 5])
    assert _triple(tf.sparse.bincount(SP, axis=0, minlength=3)) == ([[1], [2], [4]], [2, 1, 1], [5])
    assert _triple(tf.sparse.bincount([1, 1, 3], binary_output=True)) == ([[1], [3]], [1, 1], [4])
    assert _triple(tf.sparse.bincount([5, 1, 1], maxlength=3)) == ([[1]], [2], [3])
    assert _triple(tf.sparse.bincount([5, 1, 1], minlength=7)) == ([[1], [5]], [2, 1], [7])
    # a 1-D input is one row whatever the axis; axis 0 and None count a 2-D one as a whole
    assert _triple(tf.sparse.bincount([1, 1, 3], axis=-1)) == ([[1], [3]], [2, 1], [4])
    one_row = tf.sparse.SparseTensor([[0], [2]], [1, 1], [4])
    assert _triple(tf.sparse.bincount(one_row, axis=-1)) == ([[1]], [2], [2])
    for axis in (0, None):
        assert _triple(tf.sparse.bincount(tf.constant([[1, 1], [3, 0]]), axis=axis)) == (
            [[0], [1], [3]], [1, 2, 1], [4])


def test_sparse_bincount_weights_ragged_and_dtypes():
    out = tf.sparse.bincount(tf.constant([[1, 2], [2, 2]]),
                             weights=tf.constant([[.5, 1.], [2., 3.]]), axis=-1)
    assert _triple(out) == ([[0, 1], [0, 2], [1, 2]], [0.5, 1.0, 5.0], [2, 3])
    assert out.values.dtype == tf.float32
    ragged = tf.sparse.bincount(tf.ragged.constant([[1, 2], [3]]), axis=-1)
    assert _triple(ragged) == ([[0, 1], [0, 2], [1, 3]], [1, 1, 1], [2, 4])
    weights = tf.sparse.SparseTensor(SP.indices, [1., 2., 3., 4.], SP.dense_shape)
    assert _triple(tf.sparse.bincount(SP, weights=weights, axis=-1))[1] == [1., 2., 3., 4.]
    assert tf.sparse.bincount(tf.constant([1, 2, 2], tf.int64)).values.dtype == tf.int64


def test_sparse_bincount_errors():
    with pytest.raises(ValueError, match="Only 0 and -1"):
        tf.sparse.bincount([[1, 2]], axis=1)
    with pytest.raises(ValueError, match="mutually exclusive"):
        tf.sparse.bincount([1], weights=[1.], binary_output=True)
    with pytest.raises(ValueError, match="must be a SparseTensor"):
        tf.sparse.bincount(SP, weights=tf.constant([1., 2., 3., 4.]), axis=-1)
    with pytest.raises(InvalidArgumentError, match="non-negative"):
        tf.sparse.bincount([1, -2])
    with pytest.raises(TypeError, match="bincountt|did you mean|unexpected"):
        tf.sparse.bincount([1], minlenght=2)


def test_sparse_bincount_in_a_function():
    @tf.function
    def f(x):
        return tf.sparse.bincount(x, axis=-1).values

    assert f(tf.constant([[1, 1], [2, 3]])).numpy().tolist() == [2, 1, 1]


# -- crosses -------------------------------------------------------------------------------

STRINGS = tf.sparse.SparseTensor([[0, 0], [1, 0], [1, 1]], [b"a", b"b", b"c"], [2, 2])
DENSE = tf.constant([["x"], ["y"]])


def test_sparse_cross_hashed_matches_tensorflow():
    assert _triple(tf.sparse.cross_hashed([STRINGS, DENSE], num_buckets=100)) == (
        [[0, 0], [1, 0], [1, 1]], [92, 5, 60], [2, 2])
    assert _triple(tf.sparse.cross_hashed([STRINGS, DENSE]))[1] == [
        1484974617627318892, 5470948523078679805, 6571367263544129360]
    assert _triple(tf.sparse.cross_hashed([STRINGS, DENSE], num_buckets=100,
                                          hash_key=123))[1] == [61, 55, 80]
    assert _triple(tf.sparse.cross_hashed([tf.constant([[1, 2]]), DENSE[:1]],
                                          num_buckets=1000))[1] == [859, 569]
    four = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 2]], [b"a", b"b", b"c", b"d"],
                                  [2, 3])
    # dense inputs come after sparse ones, whatever the order given
    out = tf.sparse.cross_hashed([tf.constant([[7], [8]], tf.int64), four], num_buckets=1000)
    assert _triple(out) == ([[0, 0], [0, 1], [1, 0], [1, 1]], [856, 976, 489, 402], [2, 2])


def test_ragged_cross_and_cross_hashed():
    r = tf.ragged.constant([["a", "b"], ["c"]])
    assert tf.ragged.cross([r, DENSE]).to_list() == [[b"a_X_x", b"b_X_x"], [b"c_X_y"]]
    assert tf.ragged.cross([STRINGS, r]).to_list() == [[b"a_X_a", b"a_X_b"],
                                                       [b"b_X_c", b"c_X_c"]]
    assert tf.ragged.cross([tf.constant([[1, 2]]), tf.constant([[3]])]).to_list() == [
        [b"1_X_3", b"2_X_3"]]
    assert tf.ragged.cross([tf.ragged.constant([["a"], []]), DENSE]).to_list() == [
        [b"a_X_x"], []]
    assert tf.ragged.cross_hashed([r, DENSE], num_buckets=100).to_list() == [[92, 4], [60]]
    ints = tf.ragged.constant([[1, 2], [3]], tf.int64)
    assert tf.ragged.cross_hashed([ints, DENSE], num_buckets=50, hash_key=7).to_list() == [
        [49, 30], [28]]
    with pytest.raises(TypeError, match="RaggedTensor"):
        tf.sparse.cross_hashed([r, DENSE])


# -- sparse.mask, sampled_addmm, ragged.stack_dynamic_partitions ---------------------------

Slices = collections.namedtuple("Slices", ["values", "indices", "dense_shape"])


def test_sparse_mask_drops_the_masked_indices():
    a = Slices(tf.constant([[1., 2], [3, 4], [5, 6]]), tf.constant([0, 2, 4]), tf.constant([5, 2]))
    out = tf.sparse.mask(a, [4, 0, 7])
    assert isinstance(out, Slices)
    assert out.values.numpy().tolist() == [[3., 4.]]
    assert out.indices.numpy().tolist() == [2]
    assert tf.sparse.mask(a, tf.constant([2])).indices.numpy().tolist() == [0, 4]
    with pytest.raises(TypeError, match="IndexedSlices"):
        tf.sparse.mask(tf.constant([1.]), [0])


def test_sparse_mask_of_indexed_slices_when_offered():
    try:
        cls = tf.IndexedSlices
    except (AttributeError, ImportError):
        pytest.skip("rt.IndexedSlices is not offered in this tree yet")
    a = cls(tf.constant([[1., 2], [3, 4]]), tf.constant([0, 3]), tf.constant([4, 2]))
    out = tf.sparse.mask(a, [3])
    assert isinstance(out, cls) and out.indices.numpy().tolist() == [0]


def test_sampled_addmm():
    indices, values, shape = tf.constant([[0, 0], [1, 1]]), tf.constant([0.5, 0.3]), [2, 2]
    a, b = tf.constant([[1., 2], [3, 4]]), tf.constant([[5., 6], [7, 8]])
    idx, out, dense = tf.sparse.sampled_addmm(indices, values, shape, a, b, beta=0.5, alpha=0.5)
    np.testing.assert_allclose(out.numpy(), [9.75, 25.15], rtol=1e-6)  # (19, 50) / 2 + v / 2
    assert idx.numpy().tolist() == [[0, 0], [1, 1]]
    _, out, _ = tf.sparse.sampled_addmm(indices, values, shape, a, b)
    np.testing.assert_allclose(out.numpy(), [19.5, 50.3], rtol=1e-6)
    m1 = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    m2 = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    _, out, _ = tf.sparse.sampled_addmm(tf.constant([[[0, 1]], [[1, 0]]]),
                                        tf.constant([[1.], [2.]]), [2, 2], m1, m2)
    assert out.numpy().tolist() == [[14.], [246.]]
    with pytest.raises(ValueError, match="does not match output shape"):
        tf.sparse.sampled_addmm(indices, values, [2, 2], tf.constant([[1., 2]]),
                                tf.constant([[1., 2]]))


def test_sampled_addmm_gradient_reaches_the_matrices():
    a = tf.Variable([[1., 2], [3, 4]])
    b = tf.constant([[5., 6], [7, 8]])
    with tf.GradientTape() as tape:
        _, out, _ = tf.sparse.sampled_addmm([[0, 1]], [0.], [2, 2], a, b)
        total = tf.reduce_sum(out)
    # d(a[0] . b[:, 1]) / da = b[:, 1] in row 0
    assert tape.gradient(total, a).numpy().tolist() == [[6., 8.], [0., 0.]]


def test_stack_dynamic_partitions():
    out = tf.ragged.stack_dynamic_partitions(["a", "b", "c", "d", "e"], [3, 0, 2, 2, 3], 5)
    assert out.to_list() == [[b"b"], [], [b"c", b"d"], [b"a", b"e"], []]
    out = tf.ragged.stack_dynamic_partitions(tf.constant([[1, 2], [3, 4], [5, 6]]), [1, 0, 1], 3)
    assert out.to_list() == [[[3, 4]], [[1, 2], [5, 6]], []]
    out = tf.ragged.stack_dynamic_partitions(tf.ragged.constant([[1], [2, 3], [4]]), [1, 0, 1], 2)
    assert out.to_list() == [[[2, 3]], [[1], [4]]]
    with pytest.raises(InvalidArgumentError, match="less than num_partitions"):
        tf.ragged.stack_dynamic_partitions(["a", "b"], [0, 5], 3)


# -- strings.unicode_script ----------------------------------------------------------------

def test_unicode_script_codes_are_icus():
    points = [1, 31, 38, 65, 0x3B1, 0x410, 0x4E00, 0x30A2, 0x3042, 0xAC00, 0x5D0, 0x627, 0x300,
              0x378, 0x10FFFF, -1, 0x110000, 0xE000, 0x20000]
    assert tf.strings.unicode_script(points).numpy().tolist() == [
        0, 0, 0, 25, 14, 8, 17, 22, 20, 18, 19, 2, 1, 103, 103, -1, -1, 103, 17]
    more = [0x0915, 0x0E01, 0x10D0, 0x0531, 0x1200, 0x1780, 0x0F40, 0x0B85, 0x0C05, 0x0C85,
            0x0D05, 0x0A05, 0x0A85, 0x0985, 0x0B05, 0x0D85, 0x1820, 0x1000, 0xA000, 0x1401,
            0x13A0, 0x16A0, 0x1680, 0x0710, 0x0780, 0x3105, 0x0E81, 0x1F600, 0x2000, 0x0030,
            0x064B, 0x200C, 0x3000, 0xFF21, 0x1D400]
    assert tf.strings.unicode_script(more).numpy().tolist() == [
        10, 38, 12, 3, 11, 23, 39, 35, 36, 21, 26, 16, 15, 4, 31, 33, 27, 28, 41, 40, 6, 32, 29,
        34, 37, 5, 24, 0, 0, 0, 1, 1, 0, 25, 0]


def test_unicode_script_shapes_ragged_and_dtype():
    out = tf.strings.unicode_script(tf.constant([[65, 0x3B1], [0x410, 0x4E00]]))
    assert out.shape == (2, 2) and out.dtype == tf.int32
    assert out.numpy().tolist() == [[25, 14], [8, 17]]
    ragged = tf.strings.unicode_script(tf.ragged.constant([[65], [0x3B1, 0x410]]))
    assert ragged.to_list() == [[25], [14, 8]]
    codes = tf.strings.unicode_decode("Aλ漢", "UTF-8")
    assert tf.strings.unicode_script(codes).numpy().tolist() == [25, 14, 17]
    with pytest.raises(TypeError, match="int32"):
        tf.strings.unicode_script(tf.constant([65], tf.int64))


# -- math.sobol_sample ---------------------------------------------------------------------

def test_sobol_sample_is_tensorflows_sequence():
    pytest.importorskip("scipy")
    assert tf.math.sobol_sample(3, 6).numpy().tolist() == [
        [0.5, 0.5, 0.5], [0.75, 0.25, 0.25], [0.25, 0.75, 0.75], [0.375, 0.375, 0.625],
        [0.875, 0.875, 0.125], [0.625, 0.125, 0.875]]
    skipped = tf.math.sobol_sample(2, 4, skip=3, dtype=tf.float64)
    assert skipped.dtype == tf.float64
    assert skipped.numpy().tolist() == [[0.375, 0.375], [0.875, 0.875], [0.625, 0.125],
                                        [0.125, 0.625]]
    high = tf.math.sobol_sample(1000, 4, skip=7, dtype=tf.float64).numpy()[:, 996:]
    assert high.tolist() == [[0.4375, 0.4375, 0.5625, 0.9375], [0.9375, 0.9375, 0.0625, 0.4375],
                             [0.6875, 0.6875, 0.8125, 0.1875], [0.1875, 0.1875, 0.3125, 0.6875]]
    last = tf.math.sobol_sample(21200, 2, dtype=tf.float64).numpy()[:, -3:]
    assert last.tolist() == [[0.5, 0.5, 0.5], [0.75, 0.25, 0.75]]


def test_sobol_sample_errors_and_tracing():
    pytest.importorskip("scipy")
    for args, message in (((0, 2), "dim must be at least one"),
                          ((21201, 1), "dim must be at most 21200"),
                          ((2, 0), "num_results must be at least one"),
                          ((2, 2, -1), "skip must be non-negative")):
        with pytest.raises(InvalidArgumentError, match=message):
            tf.math.sobol_sample(*args)
    with pytest.raises(TypeError, match="not in the list of allowed"):
        tf.math.sobol_sample(2, 2, dtype=tf.float16)

    @tf.function
    def f(n):
        return tf.math.sobol_sample(2, n)

    concrete = f.get_concrete_function(tf.TensorSpec([], tf.int32))
    assert concrete.structured_outputs.shape.as_list() == [None, 2]
    assert f(tf.constant(2)).numpy().tolist() == [[0.5, 0.5], [0.75, 0.25]]


# -- nn.isotonic_regression ----------------------------------------------------------------

def test_isotonic_regression_values_and_segments():
    x = tf.constant([[3., 1., 2.], [1., 3., 4.]])
    out, seg = tf.nn.isotonic_regression(x)
    np.testing.assert_allclose(out.numpy(), [[3, 1.5, 1.5], [8 / 3] * 3], rtol=1e-6)
    assert seg.numpy().tolist() == [[0, 1, 1], [0, 0, 0]]
    out, seg = tf.nn.isotonic_regression(x, decreasing=False)
    assert out.numpy().tolist() == [[2, 2, 2], [1, 3, 4]]
    assert seg.numpy().tolist() == [[0, 0, 1], [0, 1, 2]]
    out, seg = tf.nn.isotonic_regression(x, axis=0)
    assert out.numpy().tolist() == [[3, 2, 3], [1, 2, 3]]
    assert seg.numpy().tolist() == [[0, 0, 0], [1, 0, 0]]
    # equal neighbours are separate blocks; only strict violations merge
    out, seg = tf.nn.isotonic_regression(tf.constant([4., 4., 1., 5., 5., 2.]))
    np.testing.assert_allclose(out.numpy(), [4, 4, 11 / 3, 11 / 3, 11 / 3, 2], rtol=1e-6)
    assert seg.numpy().tolist() == [0, 1, 2, 2, 2, 3]
    out, seg = tf.nn.isotonic_regression(tf.constant([[5., 1, 4, 2, 3, 0.5, 7]]),
                                         decreasing=False)
    np.testing.assert_allclose(out.numpy(), [[15.5 / 6] * 6 + [7]], rtol=1e-6)
    assert seg.numpy().tolist() == [[0, 0, 0, 0, 0, 0, 1]]


def test_isotonic_regression_axis_dtypes_and_gradient():
    x3 = tf.reshape(tf.constant([3., 1, 2, 6, 5, 4, 0, 9, 8, 7, 2, 2]), [2, 3, 2])
    out, seg = tf.nn.isotonic_regression(x3, axis=1)
    assert seg.numpy().tolist() == [[[0, 0], [0, 0], [0, 0]], [[0, 0], [0, 1], [1, 2]]]
    assert out.numpy()[1].tolist() == [[4, 9], [4, 7], [2, 2]]
    result = tf.nn.isotonic_regression(tf.constant([1, 5, 3, 7, 2]))
    assert result.output.dtype == tf.float64
    assert result.output.numpy().tolist() == [4, 4, 4, 4, 2]
    assert tf.nn.isotonic_regression(tf.constant([1, 2], tf.int16)).output.dtype == tf.float32
    empty = tf.nn.isotonic_regression(tf.zeros([2, 0]))
    assert empty.output.shape == (2, 0) and empty.segments.shape == (2, 0)
    v = tf.Variable([0., 2., 4., 6.])
    with tf.GradientTape() as tape:
        out, _ = tf.nn.isotonic_regression(v)  # one block: every output is the mean
        total = tf.reduce_sum(out * tf.constant([1., 2., 3., 4.]))
    assert tape.gradient(total, v).numpy().tolist() == [2.5, 2.5, 2.5, 2.5]


# -- nn.fractional_max_pool / fractional_avg_pool ------------------------------------------

X = tf.reshape(tf.range(70, dtype=tf.float32), [1, 5, 7, 2])


def test_fractional_pools_with_given_sequences_are_tensorflows():
    from runtime.ops.nn_fractional import pool_with_sequences
    rows, cols = tf.constant([0, 1, 3, 5]), tf.constant([0, 2, 4, 7])
    cases = {(False, False): [[2, 6, 12], [30, 34, 40], [58, 62, 68]],
             (False, True): [[1, 5, 10], [22, 26, 31], [50, 54, 59]],
             (True, False): [[18, 22, 26], [46, 50, 54], [60, 64, 68]],
             (True, True): [[9, 13, 17], [30, 34, 38], [51, 55, 59]]}
    for (overlapping, average), want in cases.items():
        out = pool_with_sequences(X, rows, cols, overlapping, average)
        assert out.numpy()[0, :, :, 0].tolist() == want, (overlapping, average)


@pytest.mark.parametrize("pool", [tf.nn.fractional_max_pool, tf.nn.fractional_avg_pool])
@pytest.mark.parametrize("pseudo_random", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
def test_fractional_pool_shapes_sequences_and_outputs(pool, pseudo_random, overlapping):
    from runtime.ops.nn_fractional import pool_with_sequences
    out, rows, cols = pool(X, [1, 1.44, 1.73, 1], pseudo_random=pseudo_random,
                           overlapping=overlapping, seed=7)
    assert out.shape == (1, 3, 4, 2)  # floor(5 / 1.44), floor(7 / 1.73)
    r, c = rows.numpy(), cols.numpy()
    assert rows.dtype == tf.int64 and r[0] == 0 and r[-1] == 5 and len(r) == 4
    assert c[0] == 0 and c[-1] == 7 and len(c) == 5
    assert set(np.diff(r)) <= {1, 2} and set(np.diff(c)) <= {1, 2}
    average = pool is tf.nn.fractional_avg_pool
    np.testing.assert_array_equal(out.numpy(),
                                  pool_with_sequences(X, r, c, overlapping, average).numpy())
    again = pool(X, [1, 1.44, 1.73, 1], pseudo_random=pseudo_random, overlapping=overlapping,
                 seed=7)
    assert again[1].numpy().tolist() == r.tolist()


def test_fractional_pool_ratio_checks_and_gradient():
    with pytest.raises(ValueError, match="first and last elements"):
        tf.nn.fractional_max_pool(X, [1.5, 1.5, 1.5, 1])
    with pytest.raises(ValueError, match=">= 1.0"):
        tf.nn.fractional_max_pool(X, [1, 0.5, 1, 1])
    assert tf.nn.fractional_max_pool(X, 1.44)[0].shape == (1, 3, 4, 2)
    v = tf.Variable(X)
    with tf.GradientTape() as tape:
        out, rows, cols = tf.nn.fractional_avg_pool(v, [1, 2.5, 3.5, 1])  # 2 x 2 regions
        total = tf.reduce_sum(out)
    grad = tape.gradient(total, v).numpy()[0, :, :, 0]
    r, c = rows.numpy(), cols.numpy()
    want = np.zeros((5, 7))
    for i in range(2):
        for j in range(2):
            want[r[i]:r[i + 1], c[j]:c[j + 1]] += 1 / ((r[i + 1] - r[i]) * (c[j + 1] - c[j]))
    np.testing.assert_allclose(grad, want, rtol=1e-6)


# -- nn RNN cell wrappers ------------------------------------------------------------------

def test_residual_wrapper_adds_the_inputs():
    cell = keras.layers.SimpleRNNCell(3, kernel_initializer="ones",
                                      recurrent_initializer="ones")
    wrapper = tf.nn.RNNCellResidualWrapper(cell)
    out, states = wrapper(tf.ones([2, 3]), [tf.zeros([2, 3])])
    np.testing.assert_allclose(out.numpy(), 1 + np.tanh(3) * np.ones((2, 3)), rtol=1e-6)
    np.testing.assert_allclose(states[0].numpy(), np.tanh(3) * np.ones((2, 3)), rtol=1e-6)
    doubled = tf.nn.RNNCellResidualWrapper(cell, residual_fn=lambda i, o: i + 2 * o)
    np.testing.assert_allclose(doubled(tf.ones([2, 3]), [tf.zeros([2, 3])])[0].numpy(),
                               1 + 2 * np.tanh(3) * np.ones((2, 3)), rtol=1e-6)
    rnn = keras.layers.RNN(tf.nn.RNNCellResidualWrapper(keras.layers.GRUCell(4)),
                           return_sequences=True)
    assert rnn(tf.ones([2, 5, 4])).shape == (2, 5, 4)
    assert len(rnn.trainable_weights) == 3


def test_dropout_wrapper_drops_and_scales():
    cell = keras.layers.SimpleRNNCell(64, kernel_initializer="ones",
                                      recurrent_initializer="zeros")
    x = tf.ones([4, 2])
    plain, _ = cell(x, [tf.zeros([4, 64])])
    wrapper = tf.nn.RNNCellDropoutWrapper(cell, output_keep_prob=0.5, seed=1)
    out, states = wrapper(x, [tf.zeros([4, 64])])
    kept = out.numpy() != 0
    assert 0 < kept.mean() < 1
    np.testing.assert_allclose(out.numpy()[kept], 2 * plain.numpy()[kept], rtol=1e-6)
    np.testing.assert_allclose(states[0].numpy(), plain.numpy(), rtol=1e-6)
    unchanged = tf.nn.RNNCellDropoutWrapper(cell)
    np.testing.assert_allclose(unchanged(x, [tf.zeros([4, 64])])[0].numpy(), plain.numpy())
    with pytest.raises(ValueError, match="between 0 and 1"):
        tf.nn.RNNCellDropoutWrapper(cell, input_keep_prob=0.0)
    with pytest.raises(NotImplementedError, match="variational_recurrent"):
        tf.nn.RNNCellDropoutWrapper(cell, variational_recurrent=True)
    config = tf.nn.RNNCellDropoutWrapper(cell, state_keep_prob=0.8).get_config()
    assert config["state_keep_prob"] == 0.8 and config["cell"]["class_name"] == "SimpleRNNCell"


def test_device_wrapper_places_the_cells_ops():
    @tf.function
    def f(x):
        cell = tf.nn.RNNCellDeviceWrapper(keras.layers.SimpleRNNCell(2), "/device:CPU:0")
        return keras.layers.RNN(cell)(x)

    graph = f.get_concrete_function(tf.TensorSpec([2, 3, 4])).graph
    assert any(op.device == "/device:CPU:0" and op.type == "MatMul" for op in graph.operations)
    cell = tf.nn.RNNCellDeviceWrapper(keras.layers.LSTMCell(2), "/cpu:0")
    assert cell.state_size == [2, 2] and cell.output_size == 2
    assert keras.layers.RNN(cell)(tf.ones([2, 5, 4])).shape == (2, 2)


# -- image: JPEG quality, WebP -------------------------------------------------------------

def _smooth_image():
    ramp = np.arange(16, dtype=np.uint8)[:, None, None] * 16
    return np.tile(ramp, (1, 16, 3))


def test_adjust_jpeg_quality_round_trips_through_jpeg():
    pytest.importorskip("PIL")
    image = _smooth_image()
    out = tf.image.adjust_jpeg_quality(image, 90)
    assert out.dtype == tf.uint8 and out.shape == (16, 16, 3)
    assert np.abs(out.numpy().astype(int) - image).max() <= 3
    again = tf.io.decode_jpeg(tf.io.encode_jpeg(image, quality=90))
    np.testing.assert_array_equal(out.numpy(), again.numpy())
    grey = np.full((8, 8, 1), 128, np.uint8)
    np.testing.assert_array_equal(tf.image.adjust_jpeg_quality(grey, 50).numpy(), grey)
    as_float = tf.image.adjust_jpeg_quality(image.astype(np.float32) / 255, tf.constant(90))
    assert as_float.dtype == tf.float32
    np.testing.assert_allclose(as_float.numpy(), out.numpy() / 255, atol=1e-6)


def test_jpeg_quality_errors_and_random_forms():
    pytest.importorskip("PIL")
    image = _smooth_image()
    for quality in (-1, 101):
        with pytest.raises(InvalidArgumentError, match=r"quality must be in \[0,100\]"):
            tf.image.adjust_jpeg_quality(image, quality)
    with pytest.raises(InvalidArgumentError, match="1 or 3 channels"):
        tf.image.adjust_jpeg_quality(np.zeros((4, 4, 4), np.uint8), 50)
    with pytest.raises(ValueError, match="less than"):
        tf.image.random_jpeg_quality(image, 50, 40)
    with pytest.raises(ValueError, match="between 0 and 100"):
        tf.image.random_jpeg_quality(image, -1, 40)
    assert tf.image.random_jpeg_quality(image, 70, 90, seed=1).shape == (16, 16, 3)
    # TensorFlow's stateless draw for seed (1, 2) in [50, 60) is 50
    np.testing.assert_array_equal(
        tf.image.stateless_random_jpeg_quality(image, 50, 60, seed=(1, 2)).numpy(),
        tf.image.adjust_jpeg_quality(image, 50).numpy())


def _webp(array, **options):
    from PIL import Image
    out = io.BytesIO()
    Image.fromarray(array).save(out, format="WEBP", lossless=True, **options)
    return out.getvalue()


def test_decode_webp():
    pytest.importorskip("PIL")
    rng = np.random.default_rng(0)
    rgb = (rng.random((6, 5, 3)) * 255).astype(np.uint8)
    rgba = np.dstack([rgb, np.full((6, 5), 128, np.uint8)])
    out = tf.io.decode_webp(_webp(rgb))
    assert out.shape == (1, 6, 5, 3) and out.dtype == tf.uint8
    np.testing.assert_array_equal(out.numpy()[0], rgb)
    np.testing.assert_array_equal(tf.image.decode_webp(_webp(rgba), channels=4).numpy()[0], rgba)
    for data, channels in ((_webp(rgb), 4), (_webp(rgba), 3)):
        with pytest.raises(InvalidArgumentError, match="does not match input"):
            tf.io.decode_webp(data, channels=channels)
    with pytest.raises(InvalidArgumentError, match="Unknown image file format"):
        tf.io.decode_webp(b"not an image")
    from PIL import Image
    frames = [Image.fromarray(np.full((4, 4, 3), v, np.uint8)) for v in (10, 200)]
    buffer = io.BytesIO()
    frames[0].save(buffer, format="WEBP", save_all=True, append_images=frames[1:], lossless=True)
    assert tf.io.decode_webp(buffer.getvalue()).shape == (2, 4, 4, 3)


# -- io ------------------------------------------------------------------------------------

def test_gfile_registered_schemes():
    assert tf.io.gfile.get_registered_schemes() == [""]


def test_match_filenames_once(tmp_path):
    for name in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / name).write_text("x")
    found = tf.io.match_filenames_once(str(tmp_path / "*.txt"))
    assert isinstance(found, tf.Variable) and not found.trainable
    assert found.dtype == tf.string and found.shape == (2,)
    assert found.numpy().tolist() == [str(tmp_path / n).encode() for n in ("a.txt", "b.txt")]
    both = tf.io.match_filenames_once([str(tmp_path / "*.txt"), str(tmp_path / "*.csv")])
    assert len(both.numpy()) == 3
    assert tf.io.match_filenames_once(str(tmp_path / "*.zz")).shape == (0,)


def test_write_graph(tmp_path):
    @tf.function
    def f(x):
        return x * 2

    graph = f.get_concrete_function(tf.TensorSpec([2])).graph
    path = tf.io.write_graph(graph, str(tmp_path / "logs"), "g.pbtxt")
    assert path == str(tmp_path / "logs" / "g.pbtxt")
    text = (tmp_path / "logs" / "g.pbtxt").read_text()
    assert 'op: "Placeholder"' in text and 'op: "Mul"' in text
    assert tf.io.write_graph(graph.as_graph_def(), str(tmp_path), "h.pbtxt")
    assert (tmp_path / "h.pbtxt").read_text() == text
    with pytest.raises(NotImplementedError, match="as_text"):
        tf.io.write_graph(graph, str(tmp_path), "g.pb", as_text=False)


def test_pooling_sequences_follow_tensorflows_rules():
    from runtime.ops.nn_fractional import pooling_sequence
    for length in range(2, 14):
        for out in range(1, length + 1):
            for pseudo_random in (False, True):
                seq = pooling_sequence(length, out, pseudo_random, [length, out]).numpy()
                k = length // out
                assert seq[0] == 0 and seq[-1] == length and len(seq) == out + 1
                assert set(np.diff(seq)) <= {k, k + 1}, (length, out, pseudo_random, seq)


def test_the_new_functions_stage_inside_a_function():
    @tf.function
    def f(x, r):
        scripts = tf.strings.unicode_script(x)
        fit = tf.nn.isotonic_regression(tf.cast(x, tf.float32))
        crossed = tf.ragged.cross([r, tf.constant([["x"], ["y"]])])
        _, rows, _ = tf.nn.fractional_max_pool(tf.ones([1, 5, 7, 1]), [1, 1.5, 2, 1])
        parts = tf.ragged.stack_dynamic_partitions(x, [1, 0, 1], 2)
        return scripts, fit.segments, crossed, rows, parts

    x, r = tf.constant([65, 0x3B1, 0x4E00]), tf.ragged.constant([["a", "b"], ["c"]])
    scripts, segments, crossed, rows, parts = f(x, r)
    assert scripts.numpy().tolist() == [25, 14, 17]
    assert segments.numpy().tolist() == [0, 0, 0]
    assert crossed.to_list() == [[b"a_X_x", b"b_X_x"], [b"c_X_y"]]
    assert parts.to_list() == [[945], [65, 19968]]
    # seed 0: the regions are drawn afresh at every call of the traced function
    drawn = {tuple(f(x, r)[3].numpy().tolist()) for _ in range(12)} | {tuple(rows.numpy())}
    assert len(drawn) > 1 and all(s[0] == 0 and s[-1] == 5 for s in drawn)
