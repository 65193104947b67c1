"""rt.experimental.numpy against TensorFlow's documented results (the tf_numpy guides) and NumPy."""

import numpy as np
import pytest

import runtime as rt
import runtime.experimental.numpy as tnp


@pytest.fixture(autouse=True)
def numpy_behavior():
    tnp.experimental_enable_numpy_behavior()
    yield
    tnp._disable_numpy_behavior()


def test_import_forms_and_ndarray_is_the_tensor_type():
    assert rt.experimental.numpy is tnp
    ones = tnp.ones([5, 3], dtype=tnp.float32)
    assert isinstance(ones, tnp.ndarray) and isinstance(ones, rt.Tensor)
    assert (tuple(ones.shape), ones.ndim, tuple(ones.T.shape), tuple(ones.reshape(-1).shape)) == \
        ((5, 3), 2, (3, 5), (15,))


def test_operator_promotion_is_tensorflows_documented_table():
    # the tf_numpy guide's printed table
    expected = {("int32", "int64"): "int64", ("int32", "float32"): "float64",
                ("int32", "float64"): "float64", ("int64", "float32"): "float64",
                ("int64", "float64"): "float64", ("float32", "float64"): "float64"}
    for (a, b), result in expected.items():
        total = tnp.asarray(1, dtype=getattr(tnp, a)) + tnp.asarray(1, dtype=getattr(tnp, b))
        assert total.dtype.name == result
        assert np.dtype(total.dtype.as_numpy_dtype) == np.result_type(a, b)


def test_creation_infers_as_numpy_and_prefer_float32():
    assert (tnp.asarray(1).dtype, tnp.asarray(1.).dtype) == (tnp.int64, tnp.float64)
    assert tnp.ones([2]).dtype == tnp.float64 and tnp.arange(24).dtype == tnp.int64
    tnp.experimental_enable_numpy_behavior(prefer_float32=True)
    assert tnp.asarray(1.).dtype == tnp.float32 and tnp.add(1., 2.).dtype == tnp.float32
    tnp.experimental_enable_numpy_behavior(prefer_float32=False)
    assert tnp.add(1., 2.).dtype == tnp.float64


def test_all_mode_lattice_and_safe_mode_refusals():
    # the tf_numpy_type_promotion guide's documented results
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    assert (rt.constant(10, rt.int32) + rt.constant(5.0, rt.float32)).dtype is rt.float32
    assert (rt.constant(10, rt.int8) + rt.constant(5, rt.uint32)).dtype is rt.int64
    assert (rt.constant(1, rt.int64) + rt.constant(3.2, rt.float16)).dtype is rt.float16
    assert (rt.constant(5, rt.int16) - rt.constant(1, rt.float32)).dtype is rt.float32
    total = rt.add(rt.add(np.array(1, np.int8), rt.constant(1)), np.array(1, np.float16))
    assert total.dtype is rt.float16 and float(total) == 3.0
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="safe")
    for a, b in [(rt.constant(10, rt.int32), rt.constant(5.0, rt.float32)),
                 (rt.constant(10, rt.int8), rt.constant(5, rt.uint32))]:
        with pytest.raises(TypeError, match="PromoMode.SAFE"):
            a + b
    assert (rt.constant(1, rt.int8) + rt.constant(1, rt.int16)).dtype is rt.int16


def test_legacy_mode_follows_numpys_promotion():
    total = np.array(3.2, np.float16) + rt.constant(1, rt.int8) + rt.constant(50)
    assert total.dtype is rt.float64    # TensorFlow's documented float64 54.19921875
    assert float(total) == pytest.approx(54.19921875)


def test_disabled_behavior_keeps_the_runtimes_rule():
    tnp._disable_numpy_behavior()
    with pytest.raises(TypeError, match="different dtypes"):
        rt.constant(1, rt.int32) + rt.constant(1.0, rt.float32)


def test_bad_mode_and_unknown_keyword():
    with pytest.raises(ValueError, match="dtype_conversion_mode"):
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="loose")
    with pytest.raises(TypeError, match="prefer_float32"):
        tnp.experimental_enable_numpy_behavior(prefer_float=True)


def test_functions_match_numpy_and_take_ndarrays_as_arrays():
    a = np.arange(6.0).reshape(2, 3)
    assert tnp.sum(a).dtype == tnp.float64 and float(tnp.sum(a)) == 15.0
    np.testing.assert_allclose(tnp.matmul(a, a.T), a @ a.T)
    np.testing.assert_allclose(tnp.concatenate([a, tnp.asarray(a)], axis=0),
                               np.concatenate([a, a], axis=0))
    np.testing.assert_allclose(tnp.where(a > 2, a, -a), np.where(a > 2, a, -a))
    np.testing.assert_allclose(tnp.mean(a, axis=1), a.mean(axis=1))
    np.testing.assert_allclose(tnp.linspace(0.0, 1.0, 5), np.linspace(0.0, 1.0, 5))
    np.testing.assert_allclose(tnp.full_like(a, 7), np.full_like(a, 7))
    assert (tnp.ones([2]) + np.ones([2])).dtype == tnp.float64
    with pytest.raises(AttributeError, match="no runtime op"):
        tnp.unique  # noqa: B018


def test_inside_function_one_trace_and_gradients():
    @rt.function
    def loss(w, x):
        return tnp.sum(tnp.square(tnp.matmul(x, w) - 1.0))

    w = tnp.asarray(np.array([[0.5], [0.25]], np.float32))
    x = tnp.asarray(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    expected = np.sum(np.square(np.asarray(x) @ np.asarray(w) - 1.0))
    assert float(loss(w, x)) == pytest.approx(expected)
    loss(w * 2, x)
    assert loss.experimental_get_tracing_count() == 1
    with rt.GradientTape() as tape:
        tape.watch(w)
        value = loss(w, x)
    grad = tape.gradient(value, w)
    xn, wn = np.asarray(x), np.asarray(w)
    np.testing.assert_allclose(grad, 2 * xn.T @ (xn @ wn - 1.0), rtol=1e-6)
    assert isinstance(grad, tnp.ndarray)


def test_random_draws_have_the_default_float_and_shape():
    assert tnp.random.randn(4, 3).dtype == tnp.float64
    assert tuple(tnp.random.randn(4, 3).shape) == (4, 3)
    values = np.asarray(tnp.random.uniform(2.0, 3.0, size=(100,)))
    assert values.min() >= 2.0 and values.max() < 3.0
    tnp.experimental_enable_numpy_behavior(prefer_float32=True)
    assert tnp.random.randn(2).dtype == tnp.float32


def test_numpy_indexing_as_the_guide_and_numpy():
    x = tnp.arange(24).reshape(2, 3, 4)
    n = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(x[:, (True, False, True)], n[:, (True, False, True)])
    picked = x[1, (0, 0, 1), tnp.asarray([0, 1, 1])]
    assert np.asarray(picked).tolist() == [12, 13, 17]          # the guide's printed result
    np.testing.assert_array_equal(x[1, tnp.newaxis, 1:3, ...], n[1, np.newaxis, 1:3, ...])

    @rt.function
    def rows(t):
        return tnp.sum(t[(0, 2), :] * 2.0)

    t = tnp.asarray(np.arange(6.0).reshape(3, 2))
    with rt.GradientTape() as tape:
        tape.watch(t)
        total = rows(t)
    assert float(total) == 2.0 * (0 + 1 + 4 + 5)
    np.testing.assert_array_equal(tape.gradient(total, t), [[2, 2], [0, 0], [2, 2]])
    tnp._disable_numpy_behavior()
    with pytest.raises(TypeError):
        x[:, (True, False, True)]  # noqa: B018


def test_legacy_mode_promotes_operators_not_ops():
    # TensorFlow 2.21, legacy mode: `int32 + int64` is int64, while rt.add keeps its own rule
    assert (tnp.asarray(1, tnp.int32) + tnp.asarray(1, tnp.int64)).dtype == tnp.int64
    assert (tnp.asarray(2.0, tnp.float32) < tnp.asarray(3, tnp.int64)).dtype is rt.bool
    with pytest.raises(TypeError, match="different dtypes"):
        rt.add(rt.constant(1, rt.int32), rt.constant(1, rt.int64))
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    assert rt.add(rt.constant(1, rt.int32), rt.constant(1, rt.int64)).dtype is rt.int64


A = np.array([[3.0, -1.0, 2.0], [0.5, np.nan, -4.0], [1.0, 2.0, 3.0]])
B = np.nan_to_num(A)
COMPOSED = {
    "abs": (lambda m: m.abs(A), lambda: np.abs(A)),
    "divide": (lambda m: m.divide(B, 2), lambda: np.divide(B, 2)),
    "sort": (lambda m: m.sort(B, axis=0), lambda: np.sort(B, axis=0)),
    "argsort": (lambda m: m.argsort(B), lambda: np.argsort(B, kind="stable")),
    "cumprod": (lambda m: m.cumprod(B), lambda: np.cumprod(B)),
    "diagonal": (lambda m: m.diagonal(B, 1), lambda: np.diagonal(B, 1)),
    "diag": (lambda m: m.diag(np.array([1.0, 2.0]), 1), lambda: np.diag(np.array([1.0, 2.0]), 1)),
    "tril": (lambda m: m.tril(B, -1), lambda: np.tril(B, -1)),
    "triu": (lambda m: m.triu(B, 1), lambda: np.triu(B, 1)),
    "atleast_3d": (lambda m: m.atleast_3d(np.ones(3)), lambda: np.atleast_3d(np.ones(3))),
    "repeat": (lambda m: m.repeat(B, 2, axis=1), lambda: np.repeat(B, 2, axis=1)),
    "pad": (lambda m: m.pad(B, ((1, 0), (0, 2)), constant_values=7),
            lambda: np.pad(B, ((1, 0), (0, 2)), constant_values=7)),
    "rot90": (lambda m: m.rot90(np.arange(6.0).reshape(2, 3), 3),
              lambda: np.rot90(np.arange(6.0).reshape(2, 3), 3)),
    "dstack": (lambda m: m.dstack([B, B]), lambda: np.dstack([B, B])),
    "append": (lambda m: m.append(B, [1, 2]), lambda: np.append(B, [1, 2])),
    "nonzero": (lambda m: m.stack(m.nonzero(B)), lambda: np.stack(np.nonzero(B))),
    "nansum": (lambda m: m.nansum(A, axis=1), lambda: np.nansum(A, axis=1)),
    "nanmean": (lambda m: m.nanmean(A), lambda: np.nanmean(A)),
    "cbrt": (lambda m: m.cbrt(B), lambda: np.cbrt(B)),
    "heaviside": (lambda m: m.heaviside(B, 0.5), lambda: np.heaviside(B, 0.5)),
    "sinc": (lambda m: m.sinc(B), lambda: np.sinc(B)),
    "geomspace": (lambda m: m.geomspace(1, 8, 4), lambda: np.geomspace(1, 8, 4)),
}


@pytest.mark.parametrize("name", sorted(COMPOSED))
def test_composed_functions_match_numpy(name):
    ours, numpy_result = COMPOSED[name]
    got, expected = np.asarray(ours(tnp)), np.asarray(numpy_result())
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, equal_nan=True)


def test_composed_functions_stage_in_a_function():
    @rt.function
    def f(x):
        return tnp.sum(tnp.triu(tnp.sort(x, axis=0), 1)) + tnp.nansum(tnp.cbrt(x))

    x = np.array([[8.0, -1.0], [1.0, 27.0]])
    expected = np.sum(np.triu(np.sort(x, axis=0), 1)) + np.nansum(np.cbrt(x))
    assert float(f(tnp.asarray(x))) == pytest.approx(expected)


def test_the_scalar_types_are_numpys():
    # TensorFlow 2.21: tnp.float32 is numpy.float32 (tnp.float32(0.1) -> np.float32(0.1)), and
    # a tensor's dtype compares equal to it
    assert tnp.float32 is np.float32 and tnp.int64 is np.int64 and tnp.float_ is np.float64
    assert tnp.float32(0.1) == np.float32(0.1)
    x = tnp.ones([2], dtype=tnp.float32)
    assert x.dtype == tnp.float32 and x.dtype is rt.float32 and x.dtype != tnp.float64
    assert tnp.zeros([2], dtype=tnp.int32).dtype == rt.int32
    assert tnp.finfo(tnp.float32).eps == np.finfo(np.float32).eps
