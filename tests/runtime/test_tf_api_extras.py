"""Names TensorFlow programs call that are composed of existing ops (runtime/ops/math_extras.py,
random_extras.py, recompute.py): values from TensorFlow's documentation or NumPy, gradients by
finite differences, staged runs equal to eager ones."""

import numpy as np
import pytest

import runtime as rt


def _numeric_grad(f, x, eps=1e-3):
    x = np.asarray(x, np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = (f(up) - f(down)) / (2 * eps)
    return grad


def _tape_grad(f, x):
    x = rt.constant(np.asarray(x, np.float64))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(f(x))
    return tape.gradient(y, x).numpy()


def test_in_top_k_counts_ties_and_refuses_non_finite_targets():
    predictions = rt.constant([[1.0, 1.0, 0.0], [0.5, 0.1, 0.3]])
    assert rt.math.in_top_k(rt.constant([0, 2]), predictions, 1).numpy().tolist() == [True, False]
    assert rt.nn.in_top_k(rt.constant([2]), rt.constant([[1.0, 1.0, 1.0]]), 1).numpy().tolist() == [True]
    assert rt.math.in_top_k(rt.constant([0]), rt.constant([[np.nan, 1.0, 1.0]]), 3).numpy().tolist() == [False]
    staged = rt.function(lambda t, p: rt.math.in_top_k(t, p, 2))
    rng = np.random.default_rng(0)
    p = rng.normal(size=(6, 5)).astype(np.float32)
    t = rng.integers(0, 5, size=6).astype(np.int32)
    expected = [(p[i] > p[i, t[i]]).sum() < 2 for i in range(6)]
    assert staged(rt.constant(t), rt.constant(p)).numpy().tolist() == expected


def test_segment_mean_and_sqrt_n_and_their_gradients():
    data, ids = [1.0, 2.0, 3.0, 4.0], [0, 0, 2, 2]
    np.testing.assert_allclose(rt.math.unsorted_segment_mean(data, ids, 4).numpy(), [1.5, 0, 3.5, 0])
    np.testing.assert_allclose(rt.math.unsorted_segment_sqrt_n(data, ids, 4).numpy(),
                               [3 / np.sqrt(2), 0, 7 / np.sqrt(2), 0], rtol=1e-6)
    grad = _tape_grad(lambda x: rt.math.unsorted_segment_mean(x, ids, 4) * [1.0, 2.0, 3.0, 4.0], data)
    np.testing.assert_allclose(grad, [0.5, 0.5, 1.5, 1.5])
    rows = rt.math.unsorted_segment_mean([[1.0, 2.0], [3.0, 4.0]], [1, 1], 2).numpy()
    np.testing.assert_allclose(rows, [[0, 0], [2, 3]])


def test_accumulate_n_sums_and_checks_its_arguments():
    assert rt.math.accumulate_n([[1, 2], [3, 4]]).numpy().tolist() == [4, 6]
    with pytest.raises(ValueError, match="at least one"):
        rt.math.accumulate_n([])
    with pytest.raises(TypeError, match="tensor_dtype"):
        rt.math.accumulate_n([rt.constant([1.0])], tensor_dtype=rt.int32)


def test_broadcast_shapes_static_and_dynamic():
    assert rt.broadcast_static_shape(rt.TensorShape([2, 1]), rt.TensorShape([3])).as_list() == [2, 3]
    assert rt.broadcast_static_shape(rt.TensorShape([None, 1]), rt.TensorShape([4])).as_list() == [None, 4]
    assert rt.broadcast_dynamic_shape([2, 1], [3]).numpy().tolist() == [2, 3]
    with pytest.raises(ValueError, match="Incompatible"):
        rt.broadcast_static_shape(rt.TensorShape([2]), rt.TensorShape([3]))
    with pytest.raises(rt.errors.InvalidArgumentError, match="Incompatible"):
        rt.broadcast_dynamic_shape([2], [3])

    @rt.function(input_signature=[rt.TensorSpec([None], rt.int32), rt.TensorSpec([None], rt.int32)])
    def staged(a, b):
        return rt.broadcast_dynamic_shape(a, b)

    assert staged(rt.constant([5, 1, 3]), rt.constant([4, 1])).numpy().tolist() == [5, 4, 3]


def test_set_diag_tensor_diag_and_its_part():
    x = np.arange(6.0).reshape(2, 3)
    out = rt.linalg.set_diag(x, [10.0, 20.0]).numpy()
    expected = x.copy()
    expected[0, 0], expected[1, 1] = 10, 20
    np.testing.assert_array_equal(out, expected)
    tall = rt.linalg.set_diag(np.zeros((3, 2)), [1.0, 2.0]).numpy()
    np.testing.assert_array_equal(tall, [[1, 0], [0, 2], [0, 0]])
    np.testing.assert_allclose(_tape_grad(lambda d: rt.linalg.set_diag(x, d) * x, [1.0, 1.0]), [0.0, 4.0])
    with pytest.raises(NotImplementedError, match="k=0"):
        rt.linalg.set_diag(x, [1.0], k=1)
    # TensorFlow's documented example: [[1, 0, 0, 0], [0, 2, 0, 0], ...] of rank 4
    d = rt.linalg.tensor_diag([[1, 2], [3, 4]]).numpy()
    assert d.shape == (2, 2, 2, 2) and d[1, 0, 1, 0] == 3 and d.sum() == 10
    part = rt.linalg.tensor_diag_part(np.arange(16).reshape(2, 2, 2, 2)).numpy()
    np.testing.assert_array_equal(part, [[0, 5], [10, 15]])
    np.testing.assert_array_equal(rt.linalg.tensor_diag_part(d).numpy(), [[1, 2], [3, 4]])


def test_matrix_rank_and_normalize():
    assert rt.linalg.matrix_rank([[1.0, 2.0], [2.0, 4.0]]).numpy() == 1
    assert rt.linalg.matrix_rank(np.eye(3)).numpy() == 3
    normed, norm = rt.linalg.normalize([[3.0, 4.0]])
    np.testing.assert_allclose(normed.numpy(), [[0.6, 0.8]])
    np.testing.assert_allclose(norm.numpy(), [[5.0]])
    assert rt.linalg.l2_normalize is rt.math.l2_normalize


def test_depth_to_space_and_back():
    x = np.arange(2 * 2 * 3 * 8).reshape(2, 2, 3, 8)
    deep = rt.nn.depth_to_space(x, 2).numpy()
    # NumPy oracle: out[b, 2h + i, 2w + j, c] = x[b, h, w, (2i + j) * C + c]
    expected = x.reshape(2, 2, 3, 2, 2, 2).transpose(0, 1, 3, 2, 4, 5).reshape(2, 4, 6, 2)
    np.testing.assert_array_equal(deep, expected)
    np.testing.assert_array_equal(rt.nn.space_to_depth(deep, 2).numpy(), x)
    assert rt.nn.depth_to_space(np.arange(8).reshape(1, 1, 2, 4), 2).numpy().ravel().tolist() == \
        [0, 1, 4, 5, 2, 3, 6, 7]
    with pytest.raises(ValueError, match="block_size"):
        rt.nn.space_to_depth(np.zeros((1, 3, 3, 1)), 2)
    with pytest.raises(NotImplementedError, match="NHWC"):
        rt.nn.depth_to_space(np.zeros((1, 4, 1, 1)), 2, data_format="NCHW")


def test_fftshift_matches_numpy():
    x = np.arange(20).reshape(4, 5)
    np.testing.assert_array_equal(rt.signal.fftshift(x).numpy(), np.fft.fftshift(x))
    np.testing.assert_array_equal(rt.signal.ifftshift(x, axes=1).numpy(), np.fft.ifftshift(x, axes=1))


def test_colour_spaces_round_trip_and_match_the_yiq_definition():
    rng = np.random.default_rng(1)
    rgb = rng.uniform(size=(2, 3, 3)).astype(np.float32)
    yiq = rt.image.rgb_to_yiq(rgb).numpy()
    np.testing.assert_allclose(yiq[..., 0], rgb @ np.array([0.299, 0.587, 0.114]), rtol=1e-5)
    np.testing.assert_allclose(rt.image.yiq_to_rgb(yiq).numpy(), rgb, atol=1e-5)
    yuv = rt.image.rgb_to_yuv(rgb)
    np.testing.assert_allclose(rt.image.yuv_to_rgb(yuv).numpy(), rgb, atol=1e-5)


def test_psnr_image_gradients_and_gamma():
    a, b = np.full((1, 2, 2, 1), 0.1), np.full((1, 2, 2, 1), 0.2)
    np.testing.assert_allclose(rt.image.psnr(a, b, 1.0).numpy(), [10 * np.log10(1 / 0.01)])
    image = np.arange(9.0).reshape(1, 3, 3, 1)
    dy, dx = rt.image.image_gradients(image)
    np.testing.assert_array_equal(dy.numpy().ravel(), [3, 3, 3, 3, 3, 3, 0, 0, 0])
    np.testing.assert_array_equal(dx.numpy().ravel(), [1, 1, 0, 1, 1, 0, 1, 1, 0])
    np.testing.assert_allclose(rt.image.adjust_gamma([[[0.25]]], 2.0, 2.0).numpy(), [[[0.125]]])
    assert rt.image.adjust_gamma(np.array([[[255]]], np.uint8), 0.5).numpy().item() == 255


def test_stateless_dropout_is_a_function_of_the_seed():
    x = rt.ones([1000])
    first = rt.nn.experimental.stateless_dropout(x, 0.3, seed=[1, 2]).numpy()
    again = rt.function(lambda v: rt.nn.experimental.stateless_dropout(v, 0.3, seed=[1, 2]))(x).numpy()
    np.testing.assert_array_equal(first, again)
    kept = first != 0
    np.testing.assert_allclose(first[kept], 1 / 0.7, rtol=1e-6)
    assert 0.25 < 1 - kept.mean() < 0.35
    grad = _tape_grad(lambda v: rt.nn.experimental.stateless_dropout(v, 0.3, seed=[1, 2]), np.ones(1000))
    ones64 = rt.ones([1000], rt.float64)  # the gradient is the mask of the float64 draw
    np.testing.assert_allclose(grad, rt.nn.experimental.stateless_dropout(ones64, 0.3, seed=[1, 2]).numpy())
    with pytest.raises(ValueError, match="rate"):
        rt.nn.experimental.stateless_dropout(x, 1.5, seed=[1, 2])
    half = rt.nn.experimental.general_dropout(
        x, 0.5, uniform_sampler=lambda shape, dtype: rt.fill(shape, rt.constant(0.7, dtype)))
    np.testing.assert_allclose(half.numpy(), 2.0)


def test_index_shuffle_is_a_permutation_fixed_by_the_seed():
    perm = [int(rt.random.experimental.index_shuffle(i, seed=[1, 2, 3], max_index=9)) for i in range(10)]
    assert sorted(perm) == list(range(10)) and perm != list(range(10))
    vector = rt.random.experimental.index_shuffle(rt.range(10), seed=[1, 2, 3], max_index=9).numpy()
    assert vector.tolist() == perm
    other = rt.random.experimental.index_shuffle(rt.range(10), seed=[4, 5, 6], max_index=9).numpy()
    assert other.tolist() != perm
    shuffled = rt.random.experimental.stateless_shuffle(rt.range(8), seed=[1, 2]).numpy()
    assert sorted(shuffled.tolist()) == list(range(8))
    np.testing.assert_array_equal(
        shuffled, rt.random.experimental.stateless_shuffle(rt.range(8), seed=[1, 2]).numpy())


def test_recompute_grad_keeps_values_and_gradients():
    def f(x):
        return rt.sin(x) * x

    g = rt.recompute_grad(f)
    x = np.array([0.3, 1.2])
    np.testing.assert_allclose(g(rt.constant(x)).numpy(), np.sin(x) * x)
    np.testing.assert_allclose(_tape_grad(g, x), np.cos(x) * x + np.sin(x))
    with pytest.raises(TypeError, match="callable"):
        rt.recompute_grad(3)


def test_aliases_and_error_codes():
    assert rt.dtypes.cast([1.7], rt.int32).numpy().tolist() == [1]
    assert rt.half is rt.float16 and rt.dtypes.double is rt.float64 and rt.dtypes.bool is rt.bool
    assert rt.assert_equal is rt.debugging.assert_equal
    codes = [rt.errors.OK, rt.errors.CANCELLED, rt.errors.INVALID_ARGUMENT, rt.errors.NOT_FOUND,
             rt.errors.OUT_OF_RANGE, rt.errors.UNAUTHENTICATED]
    assert codes == [0, 1, 3, 5, 11, 16]


def test_strided_slice_follows_numpy_slicing_and_the_masks():
    x = np.arange(24).reshape(2, 3, 4)
    same = np.testing.assert_array_equal
    same(rt.strided_slice(x, [1, 0, 0], [2, 1, 3], [1, 1, 1]).numpy(), x[1:2, 0:1, 0:3])
    same(rt.strided_slice(x, [1, -1, 0], [2, -3, 3], [1, -1, 1]).numpy(), x[1:2, -1:-3:-1, 0:3])
    same(rt.strided_slice(x, [1, 0], [2, 2], shrink_axis_mask=1, begin_mask=2).numpy(), x[1, :2])
    same(rt.strided_slice(x, [0, 1], [0, 3], new_axis_mask=1).numpy(), x[None, 1:3])
    same(rt.strided_slice(x, [0, 1], [0, 2], ellipsis_mask=1).numpy(), x[..., 1:2])
    grad = _tape_grad(lambda v: rt.strided_slice(v, [1], [3]) * 2.0, np.arange(4.0))
    np.testing.assert_array_equal(grad, [0, 2, 2, 0])


def test_dynamic_partition_histogram_bins_and_parallel_stack():
    parts = rt.dynamic_partition([10, 20, 30, 40, 50], [0, 0, 1, 1, 0], 2)
    assert [p.numpy().tolist() for p in parts] == [[10, 20, 50], [30, 40]]
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.dynamic_partition([1, 2], [0, 3], 2)
    # TensorFlow's documented example
    bins = rt.histogram_fixed_width_bins([-1.0, 0.0, 1.5, 2.0, 5.0, 15], [0.0, 5.0], nbins=5)
    assert bins.numpy().tolist() == [0, 0, 1, 2, 4, 4]
    with pytest.raises(RuntimeError, match="eager"):
        rt.parallel_stack([[1, 2]])
    assert rt.function(lambda a: rt.parallel_stack([a, a]))(rt.constant([1, 2])).numpy().tolist() == [[1, 2], [1, 2]]


def test_scope_queries_and_logger():
    assert rt.get_logger().name == "tensorflow"
    assert rt.inside_function() is False and rt.function(lambda: rt.inside_function())() is True
    with rt.name_scope("outer"), rt.name_scope("inner"):
        assert rt.get_current_name_scope() == "outer/inner"
    assert rt.get_current_name_scope() == ""


def test_more_debugging_checks():
    rt.debugging.assert_non_positive([0, -1])
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.debugging.assert_non_positive([0, 1])
    assert rt.debugging.assert_same_float_dtype([rt.constant([1.0]), rt.constant(2.0)]) is rt.float32
    with pytest.raises(ValueError, match="differ"):
        rt.debugging.assert_same_float_dtype([rt.constant([1.0]), rt.constant(2.0, rt.float64)])


def test_config_settings_are_recorded_and_checked():
    threading, optimizer = rt.config.threading, rt.config.optimizer
    saved = (threading.get_inter_op_parallelism_threads(), optimizer.get_jit(),
             rt.config.experimental.get_device_policy())
    assert optimizer.get_experimental_options() == {"disable_model_pruning": False,
                                                    "disable_meta_optimizer": False}
    try:
        threading.set_inter_op_parallelism_threads(2)
        assert threading.get_inter_op_parallelism_threads() == 2
        optimizer.set_jit(True)
        assert optimizer.get_jit() == "autoclustering"
        rt.config.experimental.set_device_policy("warn")
        assert rt.config.experimental.get_device_policy() == "warn"
        with pytest.raises(ValueError, match="device_policy"):
            rt.config.experimental.set_device_policy("bogus")
        with pytest.raises(TypeError, match="num_threads"):
            threading.set_intra_op_parallelism_threads("4")
    finally:
        threading.set_inter_op_parallelism_threads(saved[0])
        optimizer.set_jit(bool(saved[1]))
        rt.config.experimental.set_device_policy(saved[2])
    assert rt.config.get_soft_device_placement() is True
    assert rt.debugging.get_log_device_placement() is False


def test_keras_ops_numpy_and_nn_are_the_ops_by_family():
    ops = rt.keras.ops
    assert ops.numpy.add is ops.add and ops.numpy.matmul is ops.matmul
    assert ops.nn.relu is ops.relu
    np.testing.assert_allclose(ops.numpy.mean(np.array([[1.0, 3.0]]), axis=1).numpy(), [2.0])
    np.testing.assert_allclose(ops.nn.softmax(np.array([0.0, 0.0])).numpy(), [0.5, 0.5])
    assert "add" in dir(ops.numpy)
    with pytest.raises(AttributeError, match="keras.ops.numpy has no 'not_an_op'"):
        ops.numpy.not_an_op  # noqa: B018


def test_keras_tree_matches_keras_3():
    tree = rt.keras.tree
    assert tree.flatten({"b": 1, "a": [2, (3, None)]}) == [2, 3, None, 1]
    assert tree.flatten_with_path({"b": 1, "a": [2, 3]}) == [(("a", 0), 2), (("a", 1), 3), (("b",), 1)]
    assert tree.pack_sequence_as({"b": 0, "a": [0, 0]}, [1, 2, 3]) == {"a": [1, 2], "b": 3}
    assert tree.map_structure(lambda a, b: a + b, [1, (2,)], [10, (20,)]) == [11, (22,)]
    assert tree.map_structure_up_to({"a": 1, "b": 2}, len, {"a": [1, 2], "b": (3,)}) == {"a": 2, "b": 1}
    assert tree.lists_to_tuples([1, [2, {"a": [3]}]]) == (1, (2, {"a": (3,)}))
    double = lambda x: x * 2 if isinstance(x, int) else None  # noqa: E731
    assert tree.traverse(double, [1, (2, 3)]) == [2, (4, 6)]
    assert tree.traverse(double, [1, (2, 3)], top_down=False) == [2, (4, 6)]
    assert tree.traverse(lambda x: tree.MAP_TO_NONE if x == 2 else None, [1, (2, 3)]) == [1, (None, 3)]
    assert tree.map_shape_structure(len, {"a": (1, 2), "b": [(3, None)]}) == {"a": 2, "b": [2]}
    assert tree.is_nested([1]) and not tree.is_nested(1)
    with pytest.raises(ValueError, match="same paths"):
        tree.assert_same_paths({"a": 1}, {"b": 1})
    with pytest.raises(ValueError):
        tree.assert_same_structure([1], [1, 2])


def test_keras_config_and_base_classes():
    keras = rt.keras
    assert keras.config.backend() == "tensorflow" and keras.config.floatx() == "float32"
    assert keras.config.epsilon() == 1e-7 and keras.config.image_data_format() == "channels_last"
    keras.config.set_floatx("float32")
    with pytest.raises(NotImplementedError, match="float32"):
        keras.config.set_floatx("float64")
    with pytest.raises(ValueError, match="floatx"):
        keras.config.set_floatx("float31")
    with pytest.raises(NotImplementedError, match="channels-last"):
        keras.config.set_image_data_format("channels_first")
    assert keras.Loss is keras.losses.Loss and keras.Metric is keras.metrics.Metric
    assert keras.Optimizer is keras.optimizers.Optimizer
    assert isinstance(keras.regularizers.L2(0.1), keras.Regularizer)
    assert isinstance(keras.initializers.Zeros(), keras.Initializer)


def test_random_categorical_draws_in_proportion_and_never_a_minus_infinity_class():
    rt.random.set_seed(1)
    probs = np.array([0.1, 0.6, 0.3])
    logits = np.array([np.log(probs), [np.log(0.5), np.log(0.5), -np.inf]])
    draws = rt.random.categorical(logits, 20000).numpy()
    assert draws.dtype == np.int64 and draws.shape == (2, 20000)
    np.testing.assert_allclose(np.bincount(draws[0], minlength=3) / 20000, probs, atol=0.02)
    assert (draws[1] != 2).all()
    staged = rt.function(lambda logits: rt.random.categorical(logits, 4, dtype=rt.int32, seed=3))
    out = staged(rt.constant([[0.0, -np.inf]]))
    assert out.dtype is rt.int32 and out.numpy().tolist() == [[0, 0, 0, 0]]
    with pytest.raises(ValueError, match="dtype"):
        rt.random.categorical([[0.0, 0.0]], 2, dtype=rt.float32)


def test_keras_random_draws_with_seeds():
    r = rt.keras.random
    ints = r.randint((200,), 3, 7, seed=1).numpy()
    assert ints.dtype == np.int32 and ints.min() >= 3 and ints.max() < 7
    np.testing.assert_array_equal(ints, r.randint((200,), 3, 7, seed=1).numpy())
    assert np.abs(r.truncated_normal((2000,), seed=2).numpy()).max() <= 2.0
    picks = r.categorical(rt.constant([[0.0, 0.0, -np.inf]]), 50, seed=3).numpy()
    assert picks.shape == (1, 50) and set(picks.ravel()) <= {0, 1}
    assert sorted(r.shuffle(rt.range(6), seed=4).numpy().tolist()) == list(range(6))
    rows = r.shuffle(np.arange(12).reshape(3, 4), axis=1, seed=4).numpy()
    assert (np.sort(rows, axis=1) == np.arange(12).reshape(3, 4)).all()
    assert (rows - rows[:, :1] == rows[0] - rows[0, 0]).all()  # one order for every row


def test_signal_windows_match_numpy_and_tensorflow():
    np.testing.assert_allclose(rt.signal.kaiser_window(5, 3.0).numpy(), np.kaiser(5, 3.0), rtol=1e-6)
    np.testing.assert_allclose(rt.signal.kaiser_window(1).numpy(), [1.0])
    n = np.arange(4)
    vorbis = np.sin(np.pi / 2 * np.sin(np.pi * (n + 0.5) / 4) ** 2)
    np.testing.assert_allclose(rt.signal.vorbis_window(4).numpy(), vorbis, rtol=1e-6)
    kaiser = np.kaiser(4, 2.0)
    rising = np.sqrt(np.cumsum(kaiser[:3]) / kaiser.sum())
    kbd = rt.signal.kaiser_bessel_derived_window(6, 2.0).numpy()
    np.testing.assert_allclose(kbd, np.concatenate([rising, rising[::-1]]), rtol=1e-6)
    np.testing.assert_allclose(kbd[:3] ** 2 + kbd[3:] ** 2, 1.0, rtol=1e-6)  # power complementary
    with pytest.raises(ValueError, match="even"):
        rt.signal.kaiser_bessel_derived_window(5)


def _lrn_numpy(x, r, bias, alpha, beta):
    out = np.empty_like(x)
    depth = x.shape[-1]
    for c in range(depth):
        window = x[..., max(0, c - r):min(depth, c + r + 1)]
        out[..., c] = x[..., c] / (bias + alpha * (window ** 2).sum(-1)) ** beta
    return out


def test_local_response_normalization_and_weighted_moments():
    x = np.random.default_rng(2).normal(size=(2, 3, 2, 7))
    got = rt.nn.local_response_normalization(x, depth_radius=2, bias=1.0, alpha=0.5, beta=0.75)
    np.testing.assert_allclose(got.numpy(), _lrn_numpy(x, 2, 1.0, 0.5, 0.75), rtol=1e-10)
    assert rt.nn.lrn is rt.nn.local_response_normalization
    point = x[:1, :1, :1]
    numeric = _numeric_grad(lambda v: _lrn_numpy(v, 1, 2.0, 0.1, 0.5).sum(), point, eps=1e-6)
    tape = _tape_grad(lambda v: rt.nn.lrn(v, 1, 2.0, 0.1, 0.5), point)
    np.testing.assert_allclose(tape, numeric, rtol=1e-5)
    data = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]])
    weights = np.array([[1.0, 2.0, 1.0], [0.0, 1.0, 1.0]])
    mean, variance = rt.nn.weighted_moments(data, axes=[1], frequency_weights=weights)
    expected_mean = (weights * data).sum(1) / weights.sum(1)
    np.testing.assert_allclose(mean.numpy(), expected_mean)
    np.testing.assert_allclose(variance.numpy(), (weights * (data - expected_mean[:, None]) ** 2).sum(1)
                               / weights.sum(1))
    mean, _ = rt.nn.weighted_moments(data, axes=[0, 1], frequency_weights=weights, keepdims=True)
    assert mean.shape == (1, 1)
