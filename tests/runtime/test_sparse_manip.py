"""rt.sparse's structural functions against NumPy on the dense values and TensorFlow's
documented results (the sparse_tensor guide, TensorFlow 2.21's outputs and errors)."""

import numpy as np
import pytest

import runtime as rt

ST2 = dict(indices=[[0, 0], [0, 3], [2, 2]], values=[1, 8, 3], dense_shape=[3, 4])


def st2():
    return rt.sparse.SparseTensor(**ST2)


def dense_of(indices, values, shape):
    out = np.zeros(shape, np.asarray(values).dtype)
    for i, v in zip(indices, values):
        out[tuple(i)] = v
    return out


def random_sparse(rng, shape, n):
    flat = rng.choice(int(np.prod(shape)), size=n, replace=False)
    indices = np.stack(np.unravel_index(np.sort(flat), shape), axis=1)
    values = rng.integers(1, 9, size=n).astype(np.int32)
    return rt.sparse.SparseTensor(indices, values, shape), dense_of(indices, values, shape)


def check_sorted(sp):
    idx = np.asarray(sp.indices)
    linear = np.ravel_multi_index(tuple(idx.T), tuple(np.asarray(sp.dense_shape))) \
        if len(idx) else idx
    assert (np.diff(linear) > 0).all()


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_is_numpys_concatenate_in_row_major_order(axis):
    rng = np.random.default_rng(axis + 3)
    shapes = [(3, 4), (3, 2), (3, 5)] if axis != 0 else [(2, 4), (3, 4), (1, 4)]
    parts = [random_sparse(rng, s, 3) for s in shapes]
    joined = rt.sparse.concat(axis, [p[0] for p in parts])
    np.testing.assert_array_equal(rt.sparse.to_dense(joined),
                                  np.concatenate([p[1] for p in parts], axis=axis))
    check_sorted(joined)


def test_concat_expand_and_tensorflows_errors():
    a = rt.sparse.SparseTensor([[0, 0]], [1], [2, 3])
    b = rt.sparse.SparseTensor([[2, 1]], [2], [3, 3])
    joined = rt.sparse.concat(1, [a, b], expand_nonconcat_dims=True)
    # TensorFlow 2.21: indices [[0, 0], [2, 4]], dense_shape [3, 6]
    assert np.asarray(joined.dense_shape).tolist() == [3, 6]
    assert np.asarray(joined.indices).tolist() == [[0, 0], [2, 4]]
    with pytest.raises(rt.errors.InvalidArgumentError,
                       match="expected 2 for dimension 0 but got 3 at position 1"):
        rt.sparse.concat(1, [a, b])
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"range \[-2, 2\), got 2"):
        rt.sparse.concat(2, [a, a])
    with pytest.raises(TypeError, match="sp_inputs\\[1\\]"):
        rt.sparse.concat(0, [a, np.ones((2, 3))])


def test_slice_keeps_the_box_and_clips_its_shape():
    rng = np.random.default_rng(0)
    sp, dense = random_sparse(rng, (6, 7), 15)
    part = rt.sparse.slice(sp, start=[1, 2], size=[3, 9])
    np.testing.assert_array_equal(rt.sparse.to_dense(part), dense[1:4, 2:11])
    assert np.asarray(part.dense_shape).tolist() == [3, 5]
    empty = rt.sparse.slice(sp, [0, 7], [6, 3])       # the guide's slice past the end: [8, 0]
    assert np.asarray(empty.dense_shape).tolist() == [6, 0]
    with pytest.raises(ValueError, match="`start` must be a vector of length 2"):
        rt.sparse.slice(sp, [0], [1, 1])


def test_map_values_as_the_guide_and_its_errors():
    out = rt.sparse.map_values(rt.add, st2(), 5)
    np.testing.assert_array_equal(rt.sparse.to_dense(out),
                                  [[6, 0, 0, 13], [0, 0, 0, 0], [0, 0, 8, 0]])  # the guide's
    both = rt.sparse.map_values(rt.multiply, st2(), st2())
    np.testing.assert_array_equal(both.values, [1, 64, 9])
    with pytest.raises(ValueError, match="No SparseTensor in argument list of map_values"):
        rt.sparse.map_values(rt.add, 1, 2)
    other = rt.sparse.SparseTensor([[0, 1], [0, 3], [2, 2]], [1, 1, 1], [3, 4])
    with pytest.raises(rt.errors.InvalidArgumentError, match="different indices"):
        rt.sparse.map_values(rt.add, st2(), other)


def test_retain_and_reset_shape():
    kept = rt.sparse.retain(st2(), [True, False, True])
    np.testing.assert_array_equal(kept.indices, [[0, 0], [2, 2]])
    np.testing.assert_array_equal(kept.values, [1, 3])
    assert np.asarray(rt.sparse.reset_shape(st2()).dense_shape).tolist() == [3, 4]
    assert np.asarray(rt.sparse.reset_shape(st2(), [5, 6]).dense_shape).tolist() == [5, 6]
    nothing = rt.sparse.SparseTensor(np.zeros((0, 2), np.int64), np.zeros(0, np.float32), [3, 3])
    assert np.asarray(rt.sparse.reset_shape(nothing).dense_shape).tolist() == [0, 0]
    with pytest.raises(ValueError, match="new_shape should have dimension sizes >="):
        rt.sparse.reset_shape(st2(), [2, 4])
    with pytest.raises(ValueError, match="bool vector"):
        rt.sparse.retain(st2(), [1, 0, 1])


@pytest.mark.parametrize("shape", [[2, 6], [-1, 2], [4, 3, 1], [12]])
def test_reshape_is_numpys_reshape(shape):
    rng = np.random.default_rng(1)
    sp, dense = random_sparse(rng, (3, 4), 5)
    out = rt.sparse.reshape(sp, shape)
    np.testing.assert_array_equal(rt.sparse.to_dense(out), dense.reshape(shape))


def test_reshape_refuses_another_size():
    with pytest.raises(rt.errors.InvalidArgumentError,
                       match="12 dense values, but the requested shape has 25"):
        rt.sparse.reshape(st2(), [5, 5])


def test_fill_empty_rows_is_tensorflows_result():
    filled, empty = rt.sparse.fill_empty_rows(st2(), -1)
    # TensorFlow 2.21's output
    assert np.asarray(filled.indices).tolist() == [[0, 0], [0, 3], [1, 0], [2, 2]]
    assert np.asarray(filled.values).tolist() == [1, 8, -1, 3]
    assert np.asarray(empty).tolist() == [False, True, False]


def test_segment_reductions_match_numpy_and_tensorflow():
    data = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    indices, ids = [0, 1, 2], [0, 0, 2]
    np.testing.assert_allclose(rt.sparse.segment_sum(data, indices, ids),
                               [data[0] + data[1], [0, 0], data[2]])
    np.testing.assert_allclose(rt.sparse.segment_mean(data, indices, ids),
                               [[2.0, 3.0], [0.0, 0.0], [5.0, 6.0]])   # TensorFlow's
    np.testing.assert_allclose(rt.sparse.segment_sqrt_n(data, indices, ids, num_segments=4),
                               [(data[0] + data[1]) / np.sqrt(2), [0, 0], data[2], [0, 0]],
                               rtol=1e-6)
    with pytest.raises(TypeError, match="floating-point `data`"):
        rt.sparse.segment_mean(np.ones((2, 2), np.int32), [0, 1], [0, 1])


def test_staged_in_a_function_with_gradients_to_values():
    @rt.function
    def f(values, dense):
        sp = rt.sparse.SparseTensor([[0, 0], [1, 2]], values, [2, 3])
        joined = rt.sparse.concat(0, [sp, rt.sparse.reshape(sp, [2, 3])])
        part = rt.sparse.slice(joined, [1, 0], [2, 3])
        return rt.reduce_sum(rt.sparse.sparse_dense_matmul(part, dense))

    values = rt.constant([2.0, 3.0])
    dense = rt.constant(np.arange(6.0, dtype=np.float32).reshape(3, 2))
    with rt.GradientTape() as tape:
        tape.watch(values)
        total = f(values, dense)
    # rows 1..2 of [[2,0,0],[0,0,3],[2,0,0],[0,0,3]]: [[0,0,3],[2,0,0]]
    part = np.array([[0, 0, 3.0], [2.0, 0, 0]])
    assert float(total) == pytest.approx((part @ np.asarray(dense)).sum())
    np.testing.assert_allclose(tape.gradient(total, values),
                               [np.asarray(dense)[0].sum(), np.asarray(dense)[2].sum()])


def test_cross_is_tensorflows_result():
    a = rt.sparse.from_dense(rt.constant([[b"a", b""], [b"b", b"c"]]))
    b = rt.constant([["d"], ["e"]])
    c = rt.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], rt.constant([1, 2, 3], rt.int64), [2, 2])
    crossed = rt.sparse.cross([a, b, c])
    # TensorFlow 2.21's output: sparse inputs first, then dense ones, the last varying fastest
    assert np.asarray(crossed.indices).tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert np.asarray(crossed.values).tolist() == [b"a_X_1_X_d", b"a_X_2_X_d", b"b_X_3_X_e",
                                                   b"c_X_3_X_e"]
    assert np.asarray(crossed.dense_shape).tolist() == [2, 2]
    staged = rt.function(lambda x, y: rt.sparse.cross([x, y], separator="+").values)
    assert np.asarray(staged(a, b)).tolist() == [b"a+d", b"b+e", b"c+e"]
    with pytest.raises(rt.errors.InvalidArgumentError,
                       match="Expected batch size 2 got 1 at dense tensor 0"):
        rt.sparse.cross([a, rt.constant([["x"]])])


def test_add_threshold_drops_only_small_sums():
    a = rt.sparse.SparseTensor([[0, 1], [1, 0], [1, 2]], [-3.0, -1.0, 2.0], [3, 3])
    b = rt.sparse.SparseTensor([[0, 1], [2, 2]], [3.0, 0.5], [3, 3])
    total = rt.sparse.add(a, b, threshold=1.0)
    # TensorFlow 2.21: the sum at [0, 1] (0.0) is dropped; 0.5, set in b only, is kept
    assert np.asarray(total.indices).tolist() == [[1, 0], [1, 2], [2, 2]]
    assert np.asarray(total.values).tolist() == [-1.0, 2.0, 0.5]
