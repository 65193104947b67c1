"""tf.linalg.lu and its users, eig / eigvals, sqrtm / logm, eigh_tridiagonal and
experimental.conjugate_gradient: against NumPy and TensorFlow's documented values."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

L = rt.linalg
RNG = np.random.default_rng(0)


def test_lu_factorization_and_its_users():
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]])
    lower_upper, perm = L.lu(a)
    # TensorFlow's result for this matrix: pivots 7, then 5 - 8 * 4/7 (rows 2, 0, 1)
    assert perm.numpy().tolist() == [2, 0, 1] and perm.dtype == rt.int32
    lower = np.tril(lower_upper.numpy(), -1) + np.eye(3)
    upper = np.triu(lower_upper.numpy())
    np.testing.assert_allclose(lower @ upper, a[[2, 0, 1]])
    np.testing.assert_allclose(np.abs(lower), np.minimum(np.abs(lower), 1.0))  # |l_ij| <= 1
    batch = RNG.normal(size=(2, 4, 4))
    lu_b, p_b = L.lu(batch, output_idx_type=rt.int64)
    assert p_b.dtype == rt.int64
    np.testing.assert_allclose(L.lu_reconstruct(lu_b, p_b).numpy(), batch)
    rhs = RNG.normal(size=(2, 4, 3))
    np.testing.assert_allclose(L.lu_solve(lu_b, p_b, rhs).numpy(), np.linalg.solve(batch, rhs))
    np.testing.assert_allclose(L.lu_matrix_inverse(lu_b, p_b).numpy(), np.linalg.inv(batch))
    # the composed users differentiate: d/dA of sum(solve(A, b)) through a fixed factorization
    t = rt.constant(a)
    with rt.GradientTape() as tape:
        tape.watch(t)
        s = rt.reduce_sum(L.lu_reconstruct(t, perm))
    assert tape.gradient(s, t) is not None
    with pytest.raises(ValueError, match="square"):
        L.lu(np.ones((2, 3)))


def test_eig_eigvals_sqrtm_logm():
    m = RNG.normal(size=(3, 3)) + 3 * np.eye(3)
    e, v = rt.eig(m)
    assert e.dtype == rt.complex128 and v.dtype == rt.complex128
    np.testing.assert_allclose(m @ v.numpy(), v.numpy() * e.numpy(), atol=1e-10)
    np.testing.assert_allclose(np.sort_complex(rt.eigvals(m).numpy()),
                               np.sort_complex(np.linalg.eigvals(m)))
    assert L.eigvals(m.astype(np.float32)).dtype == rt.complex64
    # the rotation by 90 degrees: eigenvalues +-i (TensorFlow's docstring)
    np.testing.assert_allclose(np.sort_complex(L.eigvals(np.array([[0.0, 1.0], [-1.0, 0.0]]))
                                               .numpy()), [-1j, 1j])
    spd = m @ m.T
    root = L.sqrtm(spd).numpy()
    np.testing.assert_allclose(root @ root, spd, atol=1e-9)
    np.testing.assert_allclose(rt.matrix_square_root(np.array([[4.0, 1.0], [0.0, 9.0]])).numpy(),
                               [[2.0, 0.2], [0.0, 3.0]])
    log = L.logm(spd.astype(np.complex128)).numpy()
    np.testing.assert_allclose(L.expm(log.real).numpy(), spd, rtol=1e-8)
    np.testing.assert_allclose(L.logm(np.array([[1.0, 2.0], [0.0, 3.0]], np.complex128)).numpy(),
                               [[0.0, np.log(3.0)], [0.0, np.log(3.0)]], atol=1e-12)
    with pytest.raises(rt.errors.InvalidArgumentError, match="complex"):
        L.logm(spd)


def test_eigh_tridiagonal():
    alpha, beta = np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0])
    dense = np.diag(alpha) + np.diag(beta, 1) + np.diag(beta, -1)
    want = np.linalg.eigvalsh(dense)
    np.testing.assert_allclose(L.eigh_tridiagonal(alpha, beta).numpy(), want)
    np.testing.assert_allclose(L.eigh_tridiagonal(alpha, beta, select="i", select_range=[1, 2])
                               .numpy(), want[1:])
    np.testing.assert_allclose(L.eigh_tridiagonal(alpha, beta, select="v",
                                                  select_range=[0.0, 3.0]).numpy(), want[:2])
    w, v = L.eigh_tridiagonal(alpha, beta, eigvals_only=False)
    np.testing.assert_allclose(dense @ v.numpy(), v.numpy() * w.numpy(), atol=1e-12)
    with pytest.raises(ValueError, match="select_range"):
        L.eigh_tridiagonal(alpha, beta, select="i")


def test_conjugate_gradient():
    a = np.array([[4.0, 1.0], [1.0, 3.0]], np.float32)
    op = L.LinearOperatorFullMatrix(a, is_self_adjoint=True, is_positive_definite=True)
    state = L.experimental.conjugate_gradient(op, rt.constant([1.0, 2.0]))
    np.testing.assert_allclose(state.x.numpy(), np.linalg.solve(a, [1.0, 2.0]), rtol=1e-5)
    assert int(state.i) == 2  # exact in n steps for an n x n system
    # one step from zero: x = (r.r / p.Ap) r = 0.25 * [1, 2], as TensorFlow gives
    one = L.experimental.conjugate_gradient(op, rt.constant([1.0, 2.0]), max_iter=1)
    np.testing.assert_allclose(one.x.numpy(), [0.25, 0.5])
    np.testing.assert_allclose(one.r.numpy(), [-0.5, 0.25])
    np.testing.assert_allclose(one.p.numpy(), [-0.4375, 0.375])
    np.testing.assert_allclose(float(one.gamma), 0.3125)
