"""tf.sparse.eye, maximum, minimum, softmax and split: TensorFlow's docstring examples and
NumPy on the dense values."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt


def _dense(sp):
    return rt.sparse.to_dense(sp).numpy()


def test_eye():
    assert _dense(rt.sparse.eye(3)).tolist() == np.eye(3).tolist()
    rect = rt.sparse.eye(2, 4, dtype=rt.int32)
    assert rect.values.dtype == rt.int32 and _dense(rect).tolist() == np.eye(2, 4).tolist()


def test_maximum_minimum_docstring_example_and_union():
    zero = rt.SparseTensor([[0]], [0.0], [7])
    one = rt.SparseTensor([[1]], [1.0], [7])
    res = rt.sparse.maximum(zero, one)
    assert res.indices.numpy().tolist() == [[0], [1]] and res.values.numpy().tolist() == [0, 1]
    a = rt.SparseTensor([[0, 0], [1, 2], [2, 1]], [3.0, -1.0, 2.0], [3, 3])
    b = rt.SparseTensor([[0, 0], [2, 1], [2, 2]], [1.0, 5.0, -4.0], [3, 3])
    for fn, ref in ((rt.sparse.maximum, np.maximum), (rt.sparse.minimum, np.minimum)):
        got = fn(a, b)
        assert got.indices.numpy().tolist() == [[0, 0], [1, 2], [2, 1], [2, 2]]
        np.testing.assert_array_equal(_dense(got), ref(_dense(a), _dense(b)))
    with pytest.raises(TypeError, match="SparseTensor"):
        rt.sparse.maximum(a, np.ones((3, 3)))


def test_softmax_over_present_entries():
    sp = rt.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 0], [2, 1], [2, 2]],
                         [1.0, 2.0, 3.0, 0.5, -1.0, 4.0], [3, 3])
    got = rt.sparse.softmax(sp).values.numpy()
    rows = [[1.0, 2.0], [3.0], [0.5, -1.0, 4.0]]
    want = np.concatenate([np.exp(r) / np.exp(r).sum() for r in map(np.array, rows)])
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_split():
    sp = rt.sparse.reorder(rt.SparseTensor([[0, 0], [0, 4], [1, 1], [1, 5], [0, 2]],
                                           [1, 2, 3, 4, 5], [2, 6]))
    pieces = rt.sparse.split(sp_input=sp, num_split=4, axis=1)
    assert [p.dense_shape.numpy().tolist() for p in pieces] == [[2, 2], [2, 2], [2, 1], [2, 1]]
    np.testing.assert_array_equal(np.concatenate([_dense(p) for p in pieces], 1), _dense(sp))
