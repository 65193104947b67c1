"""The Numba tier's matrix products call NumPy's own BLAS as NumPy's matmul does: a row times
a matrix and a matrix times a column through gemv (gemm would first pack the whole matrix),
others through gemm. Results equal NumPy's bit for bit, for C- and F-ordered operands."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

numba = pytest.importorskip("numba")

from runtime.backends.numba import helpers  # noqa: E402

SHAPES = [(1, 64, 256), (1, 256, 10), (7, 300, 1), (1, 5, 1), (1, 1, 1), (4, 5, 6), (33, 17, 2)]


@numba.njit
def _dot(a, b):
    return helpers.dot(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m, k, n", SHAPES)
def test_dot_of_c_and_f_ordered_operands_is_numpys_matmul(m, k, n, dtype):
    rng = np.random.default_rng(m * 100 + k + n)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    for a_in in (a, np.asfortranarray(a)):
        for b_in in (b, np.asfortranarray(b)):
            got = _dot(a_in, b_in)
            assert got.shape == (m, n) and got.dtype == dtype
            np.testing.assert_array_equal(got, np.matmul(a_in, b_in))


@pytest.mark.parametrize("transpose_b", [False, True])
def test_batch_one_dense_layers_agree_with_the_numpy_tier(transpose_b):
    rng = np.random.default_rng(3)
    w1 = rng.standard_normal((64, 256)).astype(np.float32)
    w2 = rng.standard_normal((10, 256) if transpose_b else (256, 10)).astype(np.float32)

    def mlp(x):
        h = rt.nn.relu(rt.matmul(x, w1))
        return rt.matmul(h, w2, transpose_b=transpose_b), rt.matmul(rt.transpose(w1), rt.transpose(x))

    x = rng.standard_normal((1, 64)).astype(np.float32)
    numpy_tier = rt.function(mlp, jit_compile=False)(x)
    numba_tier = rt.function(mlp, jit_compile=True, experimental_wait_for_compile=True)(x)
    # a row times a matrix: the same gemv call as NumPy's, so the same bits
    np.testing.assert_array_equal(numba_tier[0].numpy(), numpy_tier[0].numpy())
    # a transposed matrix times a column: the tiers may hold the transpose in other orders
    # (a view, a copy), so gemv sums in another order; both within float32 rounding of the
    # float64 product
    exact = w1.T.astype(np.float64) @ x.T.astype(np.float64)
    for got in (numba_tier[1], numpy_tier[1]):
        np.testing.assert_allclose(got.numpy(), exact, rtol=1e-5, atol=1e-5)
