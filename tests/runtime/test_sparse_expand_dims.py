"""rt.sparse.expand_dims against np.expand_dims of the dense value, eagerly, traced, and as
the body of a staged loop whose SparseTensor changes rank (shape invariant TensorShape(None)),
as in TensorFlow's AutoGraph reference programs."""

import numpy as np
import pytest

import runtime as rt


def _sparse():
    return rt.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])


@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1, -2, -3])
@pytest.mark.parametrize("staged", [False, True], ids=["eager", "traced"])
def test_expand_dims_is_numpys_on_the_dense_value(axis, staged):
    dense = rt.sparse.to_dense(_sparse()).numpy()

    def expand(sp):
        out = rt.sparse.expand_dims(sp) if axis is None else rt.sparse.expand_dims(sp, axis)
        return rt.sparse.to_dense(out)
    got = rt.function(expand)(_sparse()) if staged else expand(_sparse())
    np.testing.assert_array_equal(got.numpy(), np.expand_dims(dense, -1 if axis is None else axis))


@pytest.mark.parametrize("axis", [3, -4])
def test_an_axis_out_of_range_is_a_value_error(axis):
    with pytest.raises(ValueError, match="out of range"):
        rt.sparse.expand_dims(_sparse(), axis)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_a_staged_loop_grows_the_rank_of_a_sparse_tensor(n):
    def grow(n):
        v = _sparse()
        i = 0
        while i < n:
            rt.autograph.experimental.set_loop_options(shape_invariants=[(v, rt.TensorShape(None))])
            v = rt.sparse.expand_dims(v)
            i += 1
        return v
    got = rt.function(grow)(rt.constant(n))
    expected = rt.sparse.to_dense(_sparse()).numpy().reshape((3, 4) + (1,) * n)
    np.testing.assert_array_equal(rt.sparse.to_dense(got).numpy(), expected)
    np.testing.assert_array_equal(got.dense_shape.numpy(), expected.shape)
