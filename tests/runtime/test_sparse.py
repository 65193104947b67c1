"""rt.sparse: SparseTensor and its functions against NumPy, eagerly, staged and compiled."""

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError


def _dense(indices, values, shape, default=0):
    out = np.full(shape, default, dtype=np.asarray(values).dtype)
    for i, v in zip(indices, values):
        out[tuple(i)] = v
    return out


IDX = [[0, 0], [1, 2], [2, 3]]
VAL = np.array([1.5, -2.0, 3.0], np.float32)
SHAPE = [3, 4]


def _sp(values=VAL):
    return rt.sparse.SparseTensor(indices=IDX, values=values, dense_shape=SHAPE)


def test_attributes_and_repr():
    sp = _sp()
    assert rt.SparseTensor is rt.sparse.SparseTensor
    assert sp.indices.dtype == rt.int64 and sp.dense_shape.dtype == rt.int64
    assert sp.dtype == rt.float32
    assert sp.shape == rt.TensorShape([3, 4])
    np.testing.assert_array_equal(sp.indices.numpy(), IDX)
    # TensorFlow's sparse tensor guide prints st1 as its components as print shows them
    st1 = rt.sparse.SparseTensor(indices=[[0, 3], [2, 4]], values=[10, 20], dense_shape=[3, 10])
    tensorflow = ("SparseTensor(indices=tf.Tensor(\n[[0 3]\n [2 4]], shape=(2, 2), dtype=int64), "
                  "values=tf.Tensor([10 20], shape=(2,), dtype=int32), "
                  "dense_shape=tf.Tensor([ 3 10], shape=(2,), dtype=int64))")
    assert repr(st1) == str(st1) == tensorflow.replace("tf.", "rt.")


def test_bad_construction():
    with pytest.raises(ValueError, match="values"):
        rt.sparse.SparseTensor([[0, 0]], [1.0, 2.0], [2, 2])
    with pytest.raises(TypeError, match="indices"):
        rt.sparse.SparseTensor([[0.5, 0]], [1.0], [2, 2])
    with pytest.raises(ValueError, match="dense_shape"):
        rt.sparse.SparseTensor([[0, 0]], [1.0], [2, 2, 2])
    with pytest.raises(TypeError):
        rt.sparse.SparseTensor([[0, 0]], [1.0], [2, 2], dens_shape=1)


def test_to_dense_and_default():
    np.testing.assert_array_equal(rt.sparse.to_dense(_sp()).numpy(), _dense(IDX, VAL, SHAPE))
    np.testing.assert_array_equal(rt.sparse.to_dense(_sp(), default_value=-1).numpy(),
                                  _dense(IDX, VAL, SHAPE, default=-1))


def test_to_dense_validates_indices():
    unordered = rt.sparse.SparseTensor([[1, 0], [0, 0]], [1, 2], [2, 2])
    with pytest.raises(InvalidArgumentError, match="out of order"):
        rt.sparse.to_dense(unordered)
    np.testing.assert_array_equal(rt.sparse.to_dense(unordered, validate_indices=False).numpy(),
                                  [[2, 0], [1, 0]])
    with pytest.raises(InvalidArgumentError, match="out of bounds"):
        rt.sparse.to_dense(rt.sparse.SparseTensor([[2, 0]], [1], [2, 2]))
    with pytest.raises(TypeError, match="sp_input"):
        rt.sparse.to_dense(np.zeros(3))


def test_from_dense_round_trip():
    x = np.array([[0, 1.0, 0], [2, 0, 3]], np.float32)
    sp = rt.sparse.from_dense(x)
    np.testing.assert_array_equal(sp.indices.numpy(), np.argwhere(x))
    np.testing.assert_array_equal(sp.values.numpy(), x[x != 0])
    np.testing.assert_array_equal(sp.dense_shape.numpy(), [2, 3])
    np.testing.assert_array_equal(rt.sparse.to_dense(sp).numpy(), x)


def test_add_sparse_sparse_and_sparse_dense():
    other = rt.sparse.SparseTensor([[2, 3], [0, 1], [1, 2]], [1.0, 4.0, 2.0], SHAPE)
    total = rt.sparse.add(_sp(), other)
    assert isinstance(total, rt.SparseTensor)
    expected = _dense(IDX, VAL, SHAPE) + _dense([[2, 3], [0, 1], [1, 2]], [1.0, 4.0, 2.0], SHAPE)
    np.testing.assert_array_equal(rt.sparse.to_dense(total).numpy(), expected)
    np.testing.assert_array_equal(total.indices.numpy(), [[0, 0], [0, 1], [1, 2], [2, 3]])
    dense = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = rt.sparse.add(_sp(), dense)
    assert isinstance(out, rt.Tensor)
    np.testing.assert_array_equal(out.numpy(), dense + _dense(IDX, VAL, SHAPE))
    np.testing.assert_array_equal(rt.sparse.add(dense, _sp()).numpy(), out.numpy())
    with pytest.raises(TypeError):
        rt.sparse.add(dense, dense)


def test_sparse_dense_matmul():
    b = np.arange(8, dtype=np.float32).reshape(4, 2)
    out = rt.sparse.sparse_dense_matmul(_sp(), b)
    np.testing.assert_allclose(out.numpy(), _dense(IDX, VAL, SHAPE) @ b)
    c = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_allclose(rt.sparse.sparse_dense_matmul(_sp(), c, adjoint_a=True).numpy(),
                               _dense(IDX, VAL, SHAPE).T @ c)
    d = np.arange(8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_allclose(rt.sparse.sparse_dense_matmul(_sp(), d, adjoint_b=True).numpy(),
                               _dense(IDX, VAL, SHAPE) @ d.T)
    with pytest.raises(InvalidArgumentError):
        rt.sparse.sparse_dense_matmul(_sp(), np.ones((3, 2), np.float32))


def test_reorder_and_reduce_sum():
    sp = rt.sparse.SparseTensor([[1, 2], [0, 3], [1, 0]], [1, 2, 3], [2, 4])
    r = rt.sparse.reorder(sp)
    np.testing.assert_array_equal(r.indices.numpy(), [[0, 3], [1, 0], [1, 2]])
    np.testing.assert_array_equal(r.values.numpy(), [2, 3, 1])
    dense = _dense(IDX, VAL, SHAPE)
    assert float(rt.sparse.reduce_sum(_sp())) == pytest.approx(dense.sum())
    np.testing.assert_allclose(rt.sparse.reduce_sum(_sp(), axis=1).numpy(), dense.sum(1))
    np.testing.assert_allclose(rt.sparse.reduce_sum(_sp(), axis=0, keepdims=True).numpy(),
                               dense.sum(0, keepdims=True))


def test_to_indicator_and_transpose():
    sp = rt.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [3, 1, 2], [2, 2])
    np.testing.assert_array_equal(rt.sparse.to_indicator(sp, 4).numpy(),
                                  [[False, True, False, True], [False, False, True, False]])
    t = rt.sparse.transpose(_sp())
    np.testing.assert_array_equal(rt.sparse.to_dense(t).numpy(), _dense(IDX, VAL, SHAPE).T)


def test_gradients_wrt_values():
    b = np.random.default_rng(0).normal(size=(4, 2)).astype(np.float64)
    v = rt.Variable(VAL.astype(np.float64))

    def loss(values):
        sp = rt.sparse.SparseTensor(IDX, values, SHAPE)
        return rt.reduce_sum(rt.sparse.sparse_dense_matmul(sp, b) ** 2) + \
            rt.reduce_sum(rt.sparse.to_dense(sp) * np.arange(12.0).reshape(3, 4))

    with rt.GradientTape() as tape:
        y = loss(v * 1.0)
    grad = tape.gradient(y, v).numpy()
    eps = 1e-6
    base = v.numpy()
    numeric = []
    for i in range(3):
        up, down = base.copy(), base.copy()
        up[i] += eps
        down[i] -= eps
        numeric.append((float(loss(up)) - float(loss(down))) / (2 * eps))
    np.testing.assert_allclose(grad, numeric, rtol=1e-5)


@pytest.mark.parametrize("jit", [False, True])
def test_staged_sparse_argument(jit):
    def f(sp, b):
        return (rt.sparse.to_dense(sp), rt.sparse.sparse_dense_matmul(sp, b),
                rt.sparse.reduce_sum(sp, axis=0))

    staged = rt.function(f, jit_compile=jit)
    b = np.ones((4, 2), np.float32)
    for got, want in zip(staged(_sp(), b), f(_sp(), b)):
        np.testing.assert_allclose(got.numpy(), want.numpy())
    staged(_sp(VAL * 2), b)   # same shapes: the same trace
    assert staged.experimental_get_tracing_count() == 1


def test_staged_sparse_result():
    @rt.function
    def f(x):
        return rt.sparse.from_dense(x)

    x = np.array([[0, 1.0], [2, 0]], np.float32)
    sp = f(x)
    assert isinstance(sp, rt.SparseTensor)
    np.testing.assert_array_equal(rt.sparse.to_dense(sp).numpy(), x)


def test_to_dense_of_strings_writes_values_over_the_default():
    # TF's sparse_to_dense takes strings (the ragged guide's `tf.sparse.to_dense(st, '')`)
    st = rt.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=["a", "b"], dense_shape=[2, 3])
    expected = np.array([[b"a", b"", b""], [b"", b"", b"b"]], dtype=object)
    np.testing.assert_array_equal(rt.sparse.to_dense(st, "").numpy(), expected)
    np.testing.assert_array_equal(rt.sparse.to_dense(st).numpy(), expected)
    staged = rt.function(lambda s: rt.sparse.to_dense(s, default_value="-"))(st).numpy()
    np.testing.assert_array_equal(staged, np.where(expected == b"", b"-", expected))


def test_scaling_by_a_python_number_and_over_rows():
    # TensorFlow: a Python number takes the values' dtype; map_fn gives each row as a
    # SparseTensor and stacks the rows' results
    sp = rt.sparse.SparseTensor([[0, 0], [1, 2]], [1.0, -2.0], [2, 3])
    np.testing.assert_array_equal((sp * 2).values.numpy(), np.float32([1.0, -2.0]) * 2)
    np.testing.assert_array_equal((3 * sp).values.numpy(), np.float32([1.0, -2.0]) * 3)
    doubled = rt.map_fn(lambda row: row * 2, sp)
    np.testing.assert_array_equal(rt.sparse.to_dense(doubled).numpy(),
                                  2 * np.array([[1.0, 0, 0], [0, 0, -2.0]], np.float32))
    with pytest.raises((TypeError, ValueError)):
        sp * rt.constant(2)  # an int32 tensor: TensorFlow refuses it too
