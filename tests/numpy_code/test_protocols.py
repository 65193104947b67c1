"""How tensors meet NumPy: dtype promotion, ndarray methods, refusals, variables, randomness."""

import itertools

import numpy as np
import pytest

import runtime as rt

DTYPES = [np.bool_, np.int8, np.int32, np.int64, np.uint8, np.float16, np.float32, np.float64]


def _values(dtype):
    return np.array([1, 0, 1], dtype)


@pytest.mark.parametrize("x_dtype, y_dtype", list(itertools.product(DTYPES, DTYPES)))
def test_two_tensors_promote_as_numpy_arrays_do(x_dtype, y_dtype):
    x, y = _values(x_dtype), _values(y_dtype)
    for ufunc in (np.add, np.multiply, np.maximum, np.less):
        if ufunc is np.less and x_dtype is y_dtype is np.bool_:
            continue  # the runtime orders numbers only
        expected = ufunc(x, y)
        got = ufunc(rt.constant(x), rt.constant(y))
        assert np.asarray(got).dtype == expected.dtype, (ufunc, x_dtype, y_dtype)
    assert np.asarray(np.where(x > 0, rt.constant(x), rt.constant(y))).dtype == \
        np.where(x > 0, x, y).dtype


@pytest.mark.parametrize("dtype", DTYPES[1:])
@pytest.mark.parametrize("scalar", [2, 2.5, True])
def test_python_scalars_are_weak_as_in_numpy(dtype, scalar):
    x = _values(dtype)
    for ufunc in (np.add, np.multiply, np.true_divide, np.power):
        if ufunc is np.power and isinstance(scalar, bool):
            continue
        expected = ufunc(x, scalar)
        got = np.asarray(ufunc(rt.constant(x), scalar))
        assert got.dtype == expected.dtype, (ufunc, dtype, scalar)
        np.testing.assert_allclose(got, expected)


def test_numpy_values_are_weak_where_numpy_makes_them_strong():
    x32 = rt.constant(np.ones(2, np.float32))
    wide = np.ones(2, np.float64)
    # documented difference from NumPy: the tensor keeps its dtype within a kind ...
    for got in (np.add(x32, wide), wide + x32, x32 + wide, np.float64(2.0) * x32):
        assert got.dtype is rt.float32
    assert (np.add(rt.constant(np.ones(2, np.int32)), np.ones(2, np.int64))).dtype is rt.int32
    # ... and a higher kind promotes as a Python number of that kind would
    assert np.add(rt.constant(np.ones(2, np.int32)), np.ones(2, np.float32)).dtype is rt.float64
    assert np.add(rt.constant(np.ones(2, np.int32)), 0.5).dtype is rt.float64


def test_eager_and_compiled_promotion_agree_bit_for_bit():
    def f(x, n):
        return np.subtract(np.add(np.divide(np.exp(x), n), np.multiply(np.float64(0.1), x)),
                           np.sqrt(n))

    x = rt.constant(np.linspace(0.0, 1.0, 7, dtype=np.float32))
    n = rt.constant(np.arange(1, 8, dtype=np.int32))
    eager, compiled = f(x, n), rt.function(f)(x, n)
    assert eager.dtype is compiled.dtype is rt.float64
    assert np.array_equal(eager.numpy(), compiled.numpy())


def test_ndarray_methods_and_properties_follow_numpy():
    a = np.arange(24.0).reshape(2, 3, 4)
    t = rt.constant(a)
    pairs = [
        (t.T, a.T), (t.reshape(4, 6), a.reshape(4, 6)), (t.reshape((6, -1)), a.reshape((6, -1))),
        (t.astype(int), a.astype(int)), (t.astype(rt.float32), a.astype(np.float32)),
        (t.transpose(1, 0, 2), a.transpose(1, 0, 2)), (t.transpose((2, 0, 1)), a.transpose((2, 0, 1))),
        (t.transpose(), a.transpose()), (t.sum(axis=1, keepdims=True), a.sum(axis=1, keepdims=True)),
        (t.mean(0), a.mean(0)), (t.max(axis=(0, 2)), a.max(axis=(0, 2))), (t.min(), a.min()),
        (t.prod(axis=-1), a.prod(axis=-1)), (t.std(axis=1, ddof=1), a.std(axis=1, ddof=1)),
        (t.var(), a.var()), (t.argmax(), a.argmax()), (t.argmin(axis=2), a.argmin(axis=2)),
        (t[0].dot(t[1].T), a[0].dot(a[1].T)), (t.clip(3, 9), a.clip(3, 9)),
        (t.clip(max=5), a.clip(max=5)), (t.flatten(), a.flatten()), (t.ravel(), a.ravel()),
        (t[:, :1].squeeze(), a[:, :1].squeeze()), (t.copy(), a.copy()), (t.cumsum(), a.cumsum()),
        (t.any(), a.any()), (t.round(), a.round()), (t.swapaxes(0, 2), a.swapaxes(0, 2)),
    ]
    for got, expected in pairs:
        assert isinstance(got, rt.Tensor)
        np.testing.assert_array_equal(got.numpy(), expected)
        assert got.numpy().dtype == np.asarray(expected).dtype
    assert t.ndim == 3 and t.size == 24 and t.shape == rt.TensorShape([2, 3, 4])
    assert t[1, 2, 3].item() == 23.0 and t[0, 0].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_methods_work_while_tracing_and_item_is_refused():
    @rt.function
    def f(x):
        return x.reshape(2, -1).T.sum(axis=0) + x.size + x.ndim

    a = np.arange(6.0)
    np.testing.assert_array_equal(f(rt.constant(a)).numpy(), a.reshape(2, -1).T.sum(axis=0) + 7)

    @rt.function
    def g(x):
        return x.item()

    with pytest.raises(TypeError, match="item\\(\\) needs the tensor's value"):
        g(rt.constant(1.0))


def test_unsupported_call_is_refused_while_tracing_with_a_hint():
    @rt.function
    def f(x):
        return np.sort(x)

    with pytest.raises(TypeError) as info:
        f(rt.constant([3.0, 1.0]))
    message = str(info.value)
    assert "np.sort" in message and "cannot be staged" in message and "rt." in message


def test_unsupported_call_is_refused_under_a_tape_and_runs_in_numpy_otherwise():
    x = rt.constant([3.0, 1.0, 2.0])
    np.testing.assert_array_equal(np.sort(x), [1.0, 2.0, 3.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(TypeError, match="np.sort.*GradientTape"):
            np.sort(x)


def test_out_and_where_arguments_are_refused_clearly():
    x = rt.constant([1.0, 2.0])
    with pytest.raises(TypeError, match="out=.*immutable"):
        np.exp(x, out=np.empty(2))
    with pytest.raises(TypeError, match="where="):
        np.add(x, 1.0, where=np.array([True, False]))
    with pytest.raises(TypeError, match="out="):
        np.sum(x, out=np.empty(()))
    with pytest.raises(TypeError, match="np.maximum.accumulate"):
        rt.function(lambda t: np.maximum.accumulate(t), autograph=False)(x)


def test_eager_results_are_tensors_on_the_tape():
    x = rt.constant([0.5, 1.5])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.exp(x) * np.sin(x))
    assert isinstance(y, rt.Tensor)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(),
                               np.exp([0.5, 1.5]) * (np.sin([0.5, 1.5]) + np.cos([0.5, 1.5])),
                               rtol=1e-6)


def test_variables_work_in_numpy_calls_eagerly_and_compiled():
    v = rt.Variable([1.0, 2.0])
    np.testing.assert_allclose(np.exp(v).numpy(), np.exp([1.0, 2.0]), rtol=1e-6)
    with rt.GradientTape() as tape:
        loss = np.sum(v ** 2) + v.mean()
    np.testing.assert_allclose(tape.gradient(loss, v).numpy(), [2.5, 4.5])

    @rt.function
    def f():
        return np.linalg.norm(v)

    assert np.isclose(f().numpy(), np.sqrt(5.0))
    v.assign([3.0, 4.0])
    assert np.isclose(f().numpy(), 5.0)


def test_asarray_converts_eager_tensors_and_refuses_symbolic_ones():
    t = rt.constant([1.0, 2.0])
    assert isinstance(np.asarray(t), np.ndarray) and np.asarray(t).tolist() == [1.0, 2.0]

    @rt.function
    def f(x):
        return np.asarray(x)

    with pytest.raises(NotImplementedError, match="symbolic tensor"):
        f(t)


def test_numpy_random_is_a_trace_time_constant_and_rt_random_is_not():
    @rt.function
    def frozen(x):
        return x + np.random.uniform(size=3)

    @rt.function
    def fresh(x):
        return x + rt.random.uniform([3], dtype=rt.float64)

    x = rt.constant(np.zeros(3))
    assert np.array_equal(frozen(x).numpy(), frozen(x).numpy())
    assert not np.array_equal(fresh(x).numpy(), fresh(x).numpy())


def test_loops_over_tensors_and_len_still_work_in_converted_code():
    def total(rows):
        out = np.zeros(rows.shape[1])
        for row in rows:
            out = out + np.abs(row)
        return out * len(rows)

    a = np.arange(-3.0, 3.0).reshape(3, 2)
    np.testing.assert_array_equal(rt.function(total)(rt.constant(a)).numpy(), total(a))


def test_shape_functions_give_python_values_when_known():
    t = rt.constant(np.zeros((2, 5)))
    assert np.shape(t) == (2, 5) and np.ndim(t) == 2 and np.size(t) == 10

    @rt.function(input_signature=[rt.TensorSpec([None, 5], rt.float64)])
    def rows(x):
        return np.shape(x)[0] * 2 + np.shape(x)[1]

    assert rows(t).numpy() == 9
