"""rt.linalg.LinearOperator and its family, and the tridiagonal / banded solvers: every method
against NumPy on the dense matrix each operator stands for, TensorFlow's documented examples,
and gradients against finite differences."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import runtime as rt

L = rt.linalg
RNG = np.random.default_rng(0)
A = RNG.normal(size=(3, 3)) + 3 * np.eye(3)
B = RNG.normal(size=(2, 2)) + 3 * np.eye(2)
C23 = RNG.normal(size=(2, 3))
U = RNG.normal(size=(3, 1))
def F64(values):
    return np.array(values, np.float64)


SPECTRUM = np.array([6.0, 1 + 1j, 2.0, 1 - 1j])


def _circulant(spectrum_shape_kernel):
    kernel = spectrum_shape_kernel
    shape = kernel.shape
    idx = np.indices(shape).reshape(len(shape), -1)
    diff = [(idx[a][:, None] - idx[a][None, :]) % shape[a] for a in range(len(shape))]
    return kernel[tuple(diff)]


def _toeplitz(col, row):
    n = len(col)
    return np.array([[col[i - j] if i >= j else row[j - i] for j in range(n)] for i in range(n)])


CASES = {  # name: (operator factory, the dense matrix in NumPy)
    "full": (lambda: L.LinearOperatorFullMatrix(A), A),
    "diag": (lambda: L.LinearOperatorDiag(F64([1.0, -2.0, 3.0])), np.diag([1.0, -2.0, 3.0])),
    "identity": (lambda: L.LinearOperatorIdentity(3, dtype=rt.float64), np.eye(3)),
    "scaled": (lambda: L.LinearOperatorScaledIdentity(3, np.float64(2.5)), 2.5 * np.eye(3)),
    "tril": (lambda: L.LinearOperatorLowerTriangular(A), np.tril(A)),
    "composition": (lambda: L.LinearOperatorComposition([
        L.LinearOperatorFullMatrix(A), L.LinearOperatorDiag(F64([1.0, 2.0, 4.0]))]),
        A @ np.diag([1.0, 2.0, 4.0])),
    "adjoint": (lambda: L.LinearOperatorAdjoint(L.LinearOperatorFullMatrix(A)), A.T),
    "inversion": (lambda: L.LinearOperatorInversion(L.LinearOperatorFullMatrix(A)),
                  np.linalg.inv(A)),
    "block_diag": (lambda: L.LinearOperatorBlockDiag([
        L.LinearOperatorFullMatrix(A), L.LinearOperatorFullMatrix(B)]),
        np.block([[A, np.zeros((3, 2))], [np.zeros((2, 3)), B]])),
    "block_lower": (lambda: L.LinearOperatorBlockLowerTriangular([
        [L.LinearOperatorFullMatrix(A)],
        [L.LinearOperatorFullMatrix(C23), L.LinearOperatorFullMatrix(B)]]),
        np.block([[A, np.zeros((3, 2))], [C23, B]])),
    "kronecker": (lambda: L.LinearOperatorKronecker([
        L.LinearOperatorFullMatrix(A), L.LinearOperatorFullMatrix(B)]), np.kron(A, B)),
    "low_rank": (lambda: L.LinearOperatorLowRankUpdate(
        L.LinearOperatorDiag(F64([2.0, 3.0, 4.0])), U, diag_update=F64([0.5])),
        np.diag([2.0, 3.0, 4.0]) + 0.5 * U @ U.T),
    "permutation": (lambda: L.LinearOperatorPermutation([2, 0, 1], dtype=rt.float64),
                    np.eye(3)[[2, 0, 1]]),
    "toeplitz": (lambda: L.LinearOperatorToeplitz(F64([4.0, 1.0, 0.5]), F64([9.0, 2.0, 0.3])),
                 _toeplitz([4.0, 1.0, 0.5], [9.0, 2.0, 0.3])),
    "tridiag": (lambda: L.LinearOperatorTridiag(
        F64([[1.0, 2.0, 0.0], [4.0, 5.0, 6.0], [0.0, 0.5, 1.5]])),
        np.diag([4.0, 5.0, 6.0]) + np.diag([1.0, 2.0], 1) + np.diag([0.5, 1.5], -1)),
    "householder": (lambda: L.LinearOperatorHouseholder(F64([1.0, 2.0, 2.0])),
                    np.eye(3) - 2 * np.outer([1, 2, 2], [1, 2, 2]) / 9.0),
    "circulant": (lambda: L.LinearOperatorCirculant(SPECTRUM, input_output_dtype=rt.complex128),
                  _circulant(np.fft.ifft(SPECTRUM))),
    "circulant_2d": (lambda: L.LinearOperatorCirculant2D(
        np.array([[6.0, 1.0], [2.0, 3.0]], np.complex128), input_output_dtype=rt.complex128),
        _circulant(np.fft.ifft2(np.array([[6.0, 1.0], [2.0, 3.0]])))),
    "circulant_3d": (lambda: L.LinearOperatorCirculant3D(
        np.arange(1.0, 9.0).reshape(2, 2, 2).astype(np.complex128),
        input_output_dtype=rt.complex128),
        _circulant(np.fft.ifftn(np.arange(1.0, 9.0).reshape(2, 2, 2)))),
}


@pytest.mark.parametrize("name", CASES)
def test_methods_agree_with_numpy_on_the_dense_matrix(name):
    factory, dense = CASES[name]
    op = factory()
    n = dense.shape[0]
    x = RNG.normal(size=(n, 2)).astype(dense.dtype)
    np.testing.assert_allclose(op.to_dense().numpy(), dense, atol=1e-10)
    assert op.shape.as_list() == [n, n] and op.domain_dimension == n
    np.testing.assert_allclose(op.matmul(x).numpy(), dense @ x, atol=1e-10)
    np.testing.assert_allclose(op.matmul(x, adjoint=True).numpy(), dense.conj().T @ x,
                               atol=1e-10)
    np.testing.assert_allclose(op.matmul(x.T, adjoint_arg=True).numpy(), dense @ x, atol=1e-10)
    np.testing.assert_allclose(op.matvec(x[:, 0]).numpy(), dense @ x[:, 0], atol=1e-10)
    np.testing.assert_allclose((op @ x).numpy(), dense @ x, atol=1e-10)
    np.testing.assert_allclose(op.solve(x).numpy(), np.linalg.solve(dense, x), atol=1e-9)
    np.testing.assert_allclose(op.solve(x, adjoint=True).numpy(),
                               np.linalg.solve(dense.conj().T, x), atol=1e-9)
    np.testing.assert_allclose(op.solvevec(x[:, 0]).numpy(), np.linalg.solve(dense, x[:, 0]),
                               atol=1e-9)
    np.testing.assert_allclose(op.determinant().numpy(), np.linalg.det(dense), atol=1e-8)
    np.testing.assert_allclose(op.log_abs_determinant().numpy(),
                               np.log(np.abs(np.linalg.det(dense))), atol=1e-8)
    np.testing.assert_allclose(op.diag_part().numpy(), np.diag(dense), atol=1e-10)
    np.testing.assert_allclose(op.trace().numpy(), np.trace(dense), atol=1e-10)
    np.testing.assert_allclose(op.adjoint().to_dense().numpy(), dense.conj().T, atol=1e-10)
    np.testing.assert_allclose(op.inverse().to_dense().numpy(), np.linalg.inv(dense),
                               atol=1e-9)
    np.testing.assert_allclose(op.add_to_tensor(np.ones_like(dense)).numpy(), dense + 1,
                               atol=1e-10)


def test_documented_examples():
    # LinearOperatorDiag's docstring
    op = L.LinearOperatorDiag([1.0, -1.0])
    np.testing.assert_array_equal(op.to_dense().numpy(), [[1.0, 0.0], [0.0, -1.0]])
    assert op.shape.as_list() == [2, 2] and op.is_self_adjoint
    # LinearOperatorFullMatrix's: a batch of matrices
    batch = RNG.normal(size=(2, 3, 4))
    full = L.LinearOperatorFullMatrix(batch)
    assert full.shape.as_list() == [2, 3, 4] and full.batch_shape.as_list() == [2]
    assert full.matmul(np.ones((2, 4, 5))).shape.as_list() == [2, 3, 5]
    assert full.is_square is False
    # LinearOperatorIdentity's: a batch shape broadcasts the argument
    ident = L.LinearOperatorIdentity(2, batch_shape=[3])
    assert ident.to_dense().shape.as_list() == [3, 2, 2]
    assert ident.matmul(np.ones((2, 4), np.float32)).shape.as_list() == [3, 2, 4]
    # LinearOperatorPermutation's: P @ x permutes the rows
    perm = L.LinearOperatorPermutation([2, 0, 1], dtype=rt.float64)
    np.testing.assert_array_equal(perm.matvec([10.0, 20.0, 30.0]).numpy(), [30.0, 10.0, 20.0])
    # LinearOperatorZeros: a rectangular one says it is not square
    zeros = L.LinearOperatorZeros(3, 2, is_square=False, is_self_adjoint=False)
    np.testing.assert_array_equal(zeros.matmul(np.ones((2, 4))).numpy(), np.zeros((3, 4)))
    with pytest.raises(ValueError, match="is_square=True"):
        L.LinearOperatorZeros(3, 2)
    # a real circulant operator of a Hermitian spectrum: TensorFlow's example
    circ = L.LinearOperatorCirculant(SPECTRUM, input_output_dtype=rt.float64)
    assert circ.dtype == rt.float64
    np.testing.assert_allclose(circ.to_dense().numpy(), np.real(_circulant(np.fft.ifft(SPECTRUM))))
    np.testing.assert_allclose(circ.convolution_kernel().numpy(), np.fft.ifft(SPECTRUM))


def test_composition_of_operators_and_hints():
    a, b = L.LinearOperatorFullMatrix(A), L.LinearOperatorDiag(F64([1.0, 2.0, 3.0]))
    product = a.matmul(b)
    assert isinstance(product, L.LinearOperatorComposition)
    np.testing.assert_allclose(product.to_dense().numpy(), A @ np.diag([1.0, 2.0, 3.0]))
    spd = L.LinearOperatorFullMatrix(A @ A.T, is_self_adjoint=True, is_positive_definite=True)
    np.testing.assert_allclose(spd.cholesky().to_dense().numpy(), np.linalg.cholesky(A @ A.T))
    np.testing.assert_allclose(spd.eigvals().numpy(), np.linalg.eigvalsh(A @ A.T))
    np.testing.assert_allclose(spd.cond().numpy(), np.linalg.cond(A @ A.T))
    with pytest.raises(ValueError, match="positive definite"):
        L.LinearOperatorFullMatrix(A).cholesky()
    with pytest.raises(ValueError, match="always square"):
        L.LinearOperatorFullMatrix(A, is_self_adjoint=True, is_square=False)
    with pytest.raises(ValueError, match="columns"):
        L.LinearOperatorFullMatrix(A).matmul(np.ones((4, 1)))
    with pytest.raises(TypeError, match="did you mean"):
        L.LinearOperatorDiag([1.0], is_self_ajoint=True)


def test_gradients_flow_through_the_operators():
    d = rt.Variable(F64([2.0, 3.0, 5.0]))
    with rt.GradientTape() as tape:
        y = L.LinearOperatorDiag(d).log_abs_determinant()
    np.testing.assert_allclose(tape.gradient(y, d).numpy(), 1 / np.array([2.0, 3.0, 5.0]),
                               rtol=1e-6)
    m = rt.constant(A)
    x = rt.constant(RNG.normal(size=(3, 1)))

    def loss(mat):
        op = L.LinearOperatorKronecker([L.LinearOperatorFullMatrix(mat),
                                        L.LinearOperatorIdentity(2, dtype=rt.float64)])
        return rt.reduce_sum(op.solve(rt.concat([x, x], 0)) ** 2)

    with rt.GradientTape() as tape:
        tape.watch(m)
        value = loss(m)
    grad = tape.gradient(value, m).numpy()
    eps = 1e-6
    numeric = np.zeros_like(A)
    for i in range(3):
        for j in range(3):
            bump = np.zeros_like(A)
            bump[i, j] = eps
            numeric[i, j] = (loss(rt.constant(A + bump)).numpy() -
                             loss(rt.constant(A - bump)).numpy()) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-7)


def test_tridiagonal_solve_and_matmul():
    diags = RNG.normal(size=(2, 3, 4)) + np.array([[0.0], [4.0], [0.0]])
    rhs = RNG.normal(size=(2, 4, 3))
    dense = np.stack([np.diag(d[1]) + np.diag(d[0, :-1], 1) + np.diag(d[2, 1:], -1)
                      for d in diags])
    np.testing.assert_allclose(L.tridiagonal_solve(diags, rhs).numpy(),
                               np.linalg.solve(dense, rhs))
    np.testing.assert_allclose(L.tridiagonal_solve(diags, rhs[..., 0]).numpy(),
                               np.linalg.solve(dense, rhs[..., :1])[..., 0])
    np.testing.assert_allclose(
        L.tridiagonal_solve(diags, np.swapaxes(rhs, -1, -2), transpose_rhs=True).numpy(),
        np.linalg.solve(dense, rhs))
    seq = [diags[:, 0], diags[:, 1], diags[:, 2]]
    np.testing.assert_allclose(L.tridiagonal_solve(seq, rhs, diagonals_format="sequence")
                               .numpy(), np.linalg.solve(dense, rhs))
    np.testing.assert_allclose(L.tridiagonal_solve(dense[0], rhs[0], diagonals_format="matrix")
                               .numpy(), np.linalg.solve(dense[0], rhs[0]))
    np.testing.assert_allclose(L.tridiagonal_matmul(diags, rhs).numpy(), dense @ rhs)
    with pytest.raises(ValueError, match="diagonals_format"):
        L.tridiagonal_matmul(diags, rhs, diagonals_format="banded")


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_banded_triangular_solve(lower, adjoint):
    k, n = 3, 5
    bands = RNG.normal(size=(2, k, n))
    bands[:, 0 if lower else k - 1] += 4.0
    dense = np.zeros((2, n, n))
    for band in range(k):  # LEFT_RIGHT alignment, as TensorFlow documents it
        for i in range(n - band):
            if lower:
                dense[:, i + band, i] = bands[:, band, i + band]
            else:
                dense[:, i, i + band] = bands[:, k - 1 - band, i]
    rhs = RNG.normal(size=(2, n, 2))
    system = np.swapaxes(dense, -1, -2) if adjoint else dense
    np.testing.assert_allclose(
        L.banded_triangular_solve(bands, rhs, lower=lower, adjoint=adjoint).numpy(),
        np.linalg.solve(system, rhs), rtol=1e-10, atol=1e-10)


def test_the_family_loads_on_first_use():
    code = ("import sys, runtime as rt; assert 'runtime.linear_operator' not in sys.modules; "
            "rt.linalg.LinearOperatorDiag; assert 'runtime.linear_operator' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
