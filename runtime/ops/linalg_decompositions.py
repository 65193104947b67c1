"""Matrix decompositions and solvers: svd, qr, cholesky, eigh, slogdet, solve,
triangular_solve and expm as ops (one definition each, gradient on the lines after it), and
the linalg functions composed from them: logdet, eigvalsh, lstsq, cholesky_solve, matvec,
adjoint, cross, pinv and matrix_rank.

Every op works on the last two axes of its inputs and maps over any leading (batch) axes.
The kernels are NumPy's LAPACK routines; their gradients are built from ops, so they run
eagerly or staged, on either tier, and can be differentiated again. Only real float32 and
float64 matrices are supported.
"""

from __future__ import annotations

from typing import Any, Literal, overload

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import BOOL
from ..errors import InvalidArgumentError
from ..exports import export
from ..opdef import define
from ..shapes import TensorShape
from ..tensor import Tensor
from . import array_composed as _composed
from . import array_math
from .core import apply, convert_to_tensor
from .linalg import inv, matmul
from .shape_rules import broadcast

# -- checks ------------------------------------------------------------------------------------


def _real_matrix(value, what: str, fn: str, dtype=None) -> Tensor:
    """`value` as a tensor of rank >= 2 and a real floating dtype; ValueError / TypeError
    naming the argument otherwise."""
    if dtype is not None and not isinstance(value, Tensor):
        x = convert_to_tensor(value, dtype=dtype)
    else:
        x = convert_to_tensor(value)
    if x.shape.rank is not None and x.shape.rank < 2:
        raise ValueError(f"Argument `{what}` of {fn} should be a (batch) matrix with rank >= 2, "
                         f"got shape {x.shape}.")
    if x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"Argument `{what}` of {fn} must be float32 or float64, got "
                        f"{x.dtype.name}.")
    return x


def _square(name: str, x) -> tuple | None:
    """The dims of a square batch matrix `x`, None when its rank is unknown; raises
    InvalidArgumentError naming the shape for a non-square one."""
    dims = x.shape.as_tuple()
    if dims is None:
        return None
    if len(dims) < 2:
        raise ValueError(f"{name} needs a (batch) matrix of rank >= 2, got shape {x.shape}.")
    if None not in dims[-2:] and dims[-1] != dims[-2]:
        raise InvalidArgumentError(f"{name} needs square matrices, got shape {x.shape}.")
    return dims


def _same_dtype(name: str, a, b) -> None:
    if a.dtype is not b.dtype:
        raise TypeError(f"{name}: `matrix` and `rhs` must share a dtype, got {a.dtype.name} and "
                        f"{b.dtype.name}.")


def _bool(value, what: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"`{what}` must be a Python bool, got {value!r}.")
    return bool(value)


def _lapack(name: str, fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except np.linalg.LinAlgError as exc:
        raise InvalidArgumentError(f"{name}: {exc}.") from None


# -- small builders shared by the gradients ---------------------------------------------------

def _mT(x):
    return _composed.matrix_transpose(x)


def _mm(a, b, ta=False, tb=False):
    return matmul(a, b, transpose_a=ta, transpose_b=tb)


def _col(v):
    """[..., k] -> [..., k, 1]: scales the rows of a matrix it multiplies."""
    return array_math.expand_dims(v, -1)


def _row(v):
    """[..., k] -> [..., 1, k]: scales the columns of a matrix it multiplies."""
    return array_math.expand_dims(v, -2)


def _lower(x):
    return _composed.band_part(x, -1, 0)


def _upper(x):
    return _composed.band_part(x, 0, -1)


def _diagonal(x):
    return _composed.band_part(x, 0, 0)


def _inverse_gaps(values):
    """F[..., i, j] = 1 / (values[j] - values[i]) off the diagonal, 0 on it."""
    gaps = array_math.subtract(_row(values), _col(values))
    n = _composed._last_dims(gaps)[-1]
    on_diagonal = array_math.eye(n, dtype=_dtypes.bool_)
    safe = array_math.where(on_diagonal, array_math.ones_like(gaps), gaps)
    return array_math.where(on_diagonal, array_math.zeros_like(gaps), array_math.divide(1.0, safe))


def _zeros_if_none(g, op, index):
    return g if g is not None else array_math.zeros_for(op, index, output=True)


def _real_grad(op):
    if op.forward_inputs[0].dtype.is_complex:
        raise NotImplementedError(f"The gradient of {op.type} of complex matrices is not "
                                  "supported.")


# -- svd ---------------------------------------------------------------------------------------

def _svd_infer(x, full_matrices, compute_uv):
    dims = x.shape.as_tuple()
    empty = (TensorShape([0]), x.dtype)  # u and v when compute_uv=False
    if dims is None:
        unknown = (TensorShape(None), x.dtype)
        return [unknown] * 3 if compute_uv else [unknown, empty, empty]
    batch, (m, n) = dims[:-2], dims[-2:]
    k = None if m is None or n is None else min(m, n)
    s = (TensorShape(batch + (k,)), x.dtype)
    if not compute_uv:
        return [s, empty, empty]
    cu, cv = (m, n) if full_matrices else (k, k)
    return [s, (TensorShape(batch + (m, cu)), x.dtype), (TensorShape(batch + (n, cv)), x.dtype)]


def _svd_kernel(x, full_matrices, compute_uv):
    if not compute_uv:
        empty = np.zeros((0,), x.dtype)
        return [_lapack("Svd", np.linalg.svd, x, compute_uv=False), empty, empty]
    u, s, vh = _lapack("Svd", np.linalg.svd, x, full_matrices=full_matrices)
    return [s, u, np.swapaxes(vh, -1, -2)]


SVD = define("Svd", _svd_infer, _svd_kernel, num_outputs=3,
             attrs={"full_matrices": BOOL, "compute_uv": BOOL})


@SVD.def_grad
def _svd_grad(op, gs, gu, gv):
    _real_grad(op)
    if op.attrs["compute_uv"]:
        s, u, v = op.outputs
    else:  # the backward pass computes the singular vectors the forward one did not need
        s, u, v = apply(SVD, [op.inputs[0]], {"full_matrices": False, "compute_uv": True})
    dims = op.forward_inputs[0].shape.as_tuple()
    m, n = (None, None) if dims is None else dims[-2:]
    if op.attrs["full_matrices"] and (m is None or n is None or m != n):
        if gu is not None or gv is not None or m is None or n is None:
            raise NotImplementedError("The gradient of svd(full_matrices=True) through u or v "
                                      "is supported only for square matrices; use "
                                      "full_matrices=False.")
        k = min(m, n)
        u, v = u[..., :k], v[..., :k]
    gs = _zeros_if_none(gs, op, 0)
    if gu is None and gv is None:
        return [_mm(array_math.multiply(u, _row(gs)), v, tb=True)]
    gu = gu if gu is not None else array_math.zeros_like(u)
    gv = gv if gv is not None else array_math.zeros_like(v)
    f = _inverse_gaps(array_math.square(s))
    ut_gu = _mm(u, gu, ta=True)
    vt_gv = _mm(v, gv, ta=True)
    j = array_math.multiply(f, array_math.subtract(ut_gu, _mT(ut_gu)))
    k_ = array_math.multiply(f, array_math.subtract(vt_gv, _mT(vt_gv)))
    inner = array_math.add(array_math.add(array_math.multiply(j, _row(s)), _composed.diag(gs)),
                           array_math.multiply(_col(s), k_))
    grad = _mm(_mm(u, inner), v, tb=True)
    inv_s = array_math.divide(1.0, s)
    # the parts of gu and gv outside the spans of u and v (zero for a square matrix)
    gu_out = array_math.subtract(gu, _mm(u, ut_gu))
    gv_out = array_math.subtract(gv, _mm(v, vt_gv))
    grad = array_math.add(grad, _mm(array_math.multiply(gu_out, _row(inv_s)), v, tb=True))
    grad = array_math.add(grad, _mm(array_math.multiply(u, _row(inv_s)), gv_out, tb=True))
    return [grad]


# for type checkers: `s, u, v`, or `s` alone with compute_uv=False
@overload
def svd(tensor: Any, full_matrices: bool = ..., compute_uv: Literal[True] = ...,
        name: str | None = ...) -> tuple[Tensor, Tensor, Tensor]: ...
@overload
def svd(tensor: Any, full_matrices: bool, compute_uv: Literal[False],
        name: str | None = ...) -> Tensor: ...
@overload
def svd(tensor: Any, full_matrices: bool = ..., *, compute_uv: Literal[False],
        name: str | None = ...) -> Tensor: ...
@overload
def svd(tensor: Any, full_matrices: bool = ..., compute_uv: bool = ...,
        name: str | None = ...) -> Tensor | tuple[Tensor, Tensor, Tensor]: ...


@export("linalg.svd")
def svd(tensor, full_matrices: bool = False, compute_uv: bool = True,
        name: str | None = None) -> Tensor | tuple[Tensor, Tensor, Tensor]:
    """The singular value decomposition of each matrix in the last two axes of `tensor`
    ([..., M, N]): `s, u, v` with `tensor = u @ diag(s) @ transpose(v)` (note: `v`, not its
    transpose, as TensorFlow). `s` ([..., P], P = min(M, N)) is in descending order; `u` is
    [..., M, P] and `v` [..., N, P], or [..., M, M] and [..., N, N] with `full_matrices`.
    With `compute_uv=False` only `s` is returned (its gradient computes `u` and `v`).

    Differentiable (real inputs): through `s` always; through `u` and `v` for
    `full_matrices=False` (or square inputs) with distinct non-zero singular values, and for
    losses that do not depend on the signs of the singular vectors.
    """
    x = _real_matrix(tensor, "tensor", "svd")
    attrs = {"full_matrices": _bool(full_matrices, "full_matrices"),
             "compute_uv": _bool(compute_uv, "compute_uv")}
    outs = apply(SVD, [x], attrs, name=name)
    return tuple(outs) if compute_uv else outs[0]


# -- qr ----------------------------------------------------------------------------------------

def _qr_infer(x, full_matrices):
    dims = x.shape.as_tuple()
    if dims is None:
        return [(TensorShape(None), x.dtype)] * 2
    batch, (m, n) = dims[:-2], dims[-2:]
    k = m if full_matrices else (None if m is None or n is None else min(m, n))
    return [(TensorShape(batch + (m, k)), x.dtype), (TensorShape(batch + (k, n)), x.dtype)]


def _qr_kernel(x, full_matrices):
    q, r = _lapack("Qr", np.linalg.qr, x, mode="complete" if full_matrices else "reduced")
    return [q, r]


QR = define("Qr", _qr_infer, _qr_kernel, num_outputs=None, attrs={"full_matrices": BOOL})


@QR.def_grad
def _qr_grad(op, gq, gr):
    _real_grad(op)
    dims = op.forward_inputs[0].shape.as_tuple()
    m, n = (None, None) if dims is None else dims[-2:]
    if m is None or n is None or m < n or (op.attrs["full_matrices"] and m != n):
        raise NotImplementedError(
            "The gradient of qr is supported for matrices of known shape [M, N] with M >= N "
            f"and full_matrices=False (or square ones), got shape {op.forward_inputs[0].shape} "
            f"with full_matrices={op.attrs['full_matrices']}.")
    q, r = op.outputs
    gq = _zeros_if_none(gq, op, 0)
    gr = _zeros_if_none(gr, op, 1)
    mid = array_math.subtract(_mm(r, gr, tb=True), _mm(gq, q, ta=True))
    low = _lower(mid)
    sym = array_math.add(low, _mT(array_math.subtract(low, _diagonal(mid))))  # lower copied up
    b = array_math.add(gq, _mm(q, sym))
    # b @ inverse(r)^T, as a solve with the upper triangular r
    return [_mT(triangular_solve(r, _mT(b), lower=False))]


@export("linalg.qr")
def qr(input, full_matrices: bool = False, name: str | None = None) -> tuple[Tensor, Tensor]:  # noqa: A002
    """The QR decomposition of each matrix of `input` ([..., M, N]): `q, r` with
    `input = q @ r`, `q` orthonormal columns and `r` upper triangular. `q` is [..., M, P]
    and `r` [..., P, N] (P = min(M, N)), or [..., M, M] and [..., M, N] with `full_matrices`.

    Differentiable for M >= N with `full_matrices=False` (or square inputs).
    """
    x = _real_matrix(input, "input", "qr")
    outs = apply(QR, [x], {"full_matrices": _bool(full_matrices, "full_matrices")}, name=name)
    return tuple(outs)


# -- cholesky ----------------------------------------------------------------------------------

def _cholesky_infer(x):
    _square("Cholesky", x)
    return x.shape, x.dtype


def _cholesky_kernel(x):
    try:
        return np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(
            "Cholesky decomposition was not successful: the input is not symmetric "
            "positive definite.") from None


CHOLESKY = define("Cholesky", _cholesky_infer, _cholesky_kernel)


@CHOLESKY.def_grad
def _cholesky_grad(op, g):
    _real_grad(op)
    chol = op.outputs[0]
    # phi(L^T g): the lower triangle with its diagonal halved
    middle = _mm(chol, g, ta=True)
    middle = array_math.subtract(_lower(middle), array_math.multiply(_diagonal(middle), 0.5))
    # L^-T middle L^-1, by two solves with the triangular L
    left = triangular_solve(chol, middle, lower=True, adjoint=True)
    grad = _mT(triangular_solve(chol, _mT(left), lower=True, adjoint=True))
    return [array_math.multiply(array_math.add(grad, _mT(grad)), 0.5)]


@export("linalg.cholesky")
def cholesky(input, name: str | None = None) -> Tensor:  # noqa: A002
    """The lower triangular Cholesky factor L of each symmetric positive definite matrix of
    `input` ([..., M, M]), with `input = L @ transpose(L)`. Only the lower triangle of
    `input` is read. A matrix that is not positive definite raises InvalidArgumentError.
    The gradient is symmetric (as for a symmetric perturbation of `input`)."""
    return apply(CHOLESKY, [_real_matrix(input, "input", "cholesky")], name=name)


# -- eigh --------------------------------------------------------------------------------------

def _eigh_infer(x):
    dims = _square("SelfAdjointEigV2", x)
    if dims is None:
        return [(TensorShape(None), x.dtype)] * 2
    return [(TensorShape(dims[:-1]), x.dtype), (x.shape, x.dtype)]


def _eigh_kernel(x):
    e, v = _lapack("SelfAdjointEigV2", np.linalg.eigh, x)
    return [e, v]


EIGH = define("SelfAdjointEigV2", _eigh_infer, _eigh_kernel, num_outputs=None)


@EIGH.def_grad
def _eigh_grad(op, ge, gv):
    _real_grad(op)
    e, v = op.outputs
    ge = _zeros_if_none(ge, op, 0)
    inner = _composed.diag(ge)
    if gv is not None:
        inner = array_math.add(inner, array_math.multiply(_inverse_gaps(e), _mm(v, gv, ta=True)))
    grad = _mm(_mm(v, inner), v, tb=True)
    # the kernel reads the lower triangle only: an entry below the diagonal stands for itself
    # and its mirror
    both = array_math.add(grad, _mT(grad))
    return [array_math.subtract(_lower(both), array_math.multiply(_diagonal(both), 0.5))]


@export("linalg.eigh")
def eigh(tensor, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The eigen-decomposition of each symmetric matrix of `tensor` ([..., N, N]): `e, v`
    with eigenvalues `e` ([..., N], ascending) and eigenvectors in the columns of `v`. Only
    the lower triangle of `tensor` is read. Differentiable for distinct eigenvalues and losses
    that do not depend on the signs of the eigenvectors."""
    outs = apply(EIGH, [_real_matrix(tensor, "tensor", "eigh")], name=name)
    return tuple(outs)


@export("linalg.eigvalsh")
def eigvalsh(tensor, name: str | None = None) -> Tensor:
    """The eigenvalues ([..., N], ascending) of each symmetric matrix of `tensor`."""
    return eigh(tensor, name=name)[0]


# -- determinants ------------------------------------------------------------------------------

def _slogdet_infer(x):
    dims = _square("LogMatrixDeterminant", x)
    shape = TensorShape(None) if dims is None else TensorShape(dims[:-2])
    return [(shape, x.dtype), (shape, x.dtype)]


def _slogdet_kernel(x):
    sign, log_abs = _lapack("LogMatrixDeterminant", np.linalg.slogdet, x)
    return [sign, log_abs]


SLOGDET = define("LogMatrixDeterminant", _slogdet_infer, _slogdet_kernel, num_outputs=None)


@SLOGDET.def_grad
def _slogdet_grad(op, g_sign, g_log):
    _real_grad(op)
    if g_log is None:
        return [array_math.zeros_for(op, 0)]
    return [array_math.multiply(_col(_col(g_log)), _mT(inv(op.inputs[0])))]


@export("linalg.slogdet")
def slogdet(input, name: str | None = None) -> tuple[Tensor, Tensor]:  # noqa: A002
    """`sign, log_abs_determinant` of each square matrix of `input` ([..., M, M]): the
    determinant is `sign * exp(log_abs_determinant)` without overflow. Differentiable
    through `log_abs_determinant` for invertible matrices."""
    x = _real_matrix(input, "input", "slogdet")
    return tuple(apply(SLOGDET, [x], name=name))


@export("linalg.logdet")
def logdet(matrix, name: str | None = None) -> Tensor:
    """log(det(matrix)) of each symmetric positive definite matrix ([..., M, M]), as twice
    the sum of the logs of its Cholesky factor's diagonal."""
    chol = cholesky(_real_matrix(matrix, "matrix", "logdet"))
    return array_math.multiply(array_math.reduce_sum(array_math.log(_composed.diag_part(chol)), -1), 2.0)


# -- solvers -----------------------------------------------------------------------------------

def _solve_infer(name):
    def infer(matrix, rhs, **_attrs):
        _same_dtype(name, matrix, rhs)
        dims = _square(name, matrix)
        rdims = rhs.shape.as_tuple()
        if dims is None or rdims is None:
            return TensorShape(None), matrix.dtype
        if len(rdims) < 2:
            raise ValueError(f"{name}: `rhs` must be a (batch) matrix of rank >= 2, got shape "
                             f"{rhs.shape}.")
        if dims[-1] is not None and rdims[-2] is not None and dims[-1] != rdims[-2]:
            raise InvalidArgumentError(
                f"{name}: `matrix` of shape {matrix.shape} and `rhs` of shape {rhs.shape} do "
                f"not fit: rhs needs {dims[-1]} rows, got {rdims[-2]}.")
        batch = broadcast(TensorShape(dims[:-2]), TensorShape(rdims[:-2]), name).as_tuple()
        return TensorShape(batch + rdims[-2:]), matrix.dtype
    return infer


def _solve_kernel(matrix, rhs, adjoint):
    a = np.swapaxes(matrix, -1, -2) if adjoint else matrix
    try:
        return np.linalg.solve(a, rhs)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError("MatrixSolve: the input matrix is not invertible.") from None


SOLVE = define("MatrixSolve", _solve_infer("MatrixSolve"), _solve_kernel, attrs={"adjoint": BOOL})


def _solve_grads(op, g, solver):
    """Gradients of x = A^-1 b (or A^-T b): b gets A^-T g (A^-1 g), A gets -b_grad x^T
    (-x b_grad^T); `solver(matrix, rhs, adjoint)` applies the op again."""
    _real_grad(op)
    matrix, x = op.inputs[0], op.outputs[0]
    adjoint = op.attrs["adjoint"]
    g_rhs = solver(matrix, g, not adjoint)
    g_matrix = None
    if op.needs[0]:
        g_matrix = array_math.negative(_mm(x, g_rhs, tb=True) if adjoint else _mm(g_rhs, x, tb=True))
    return g_matrix, g_rhs


@SOLVE.def_grad
def _solve_grad(op, g):
    g_matrix, g_rhs = _solve_grads(op, g, lambda a, b, adj: solve(a, b, adjoint=adj))
    return [array_math.sum_grad(g_matrix, op, 0) if g_matrix is not None else None,
            array_math.sum_grad(g_rhs, op, 1) if op.needs[1] else None]


@export("linalg.solve")
def solve(matrix, rhs, adjoint: bool = False, name: str | None = None) -> Tensor:
    """x with `matrix @ x = rhs` for each square `matrix` ([..., M, M]) and `rhs`
    ([..., M, K]); with `adjoint`, `transpose(matrix) @ x = rhs`. Batch axes broadcast.
    A singular matrix raises InvalidArgumentError."""
    a = _real_matrix(matrix, "matrix", "solve")
    b = _real_matrix(rhs, "rhs", "solve", dtype=a.dtype)
    return apply(SOLVE, [a, b], {"adjoint": _bool(adjoint, "adjoint")}, name=name)


def _triangular_kernel(matrix, rhs, lower, adjoint):
    a = np.tril(matrix) if lower else np.triu(matrix)
    if adjoint:
        a = np.swapaxes(a, -1, -2)
    try:
        return np.linalg.solve(a, rhs)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError("MatrixTriangularSolve: the input matrix is not invertible "
                                   "(a zero on its diagonal).") from None


TRIANGULAR_SOLVE = define("MatrixTriangularSolve", _solve_infer("MatrixTriangularSolve"),
                          _triangular_kernel, attrs={"lower": BOOL, "adjoint": BOOL})


@TRIANGULAR_SOLVE.def_grad
def _triangular_solve_grad(op, g):
    lower = op.attrs["lower"]
    g_matrix, g_rhs = _solve_grads(
        op, g, lambda a, b, adj: triangular_solve(a, b, lower=lower, adjoint=adj))
    if g_matrix is not None:
        g_matrix = array_math.sum_grad(_lower(g_matrix) if lower else _upper(g_matrix), op, 0)
    return [g_matrix, array_math.sum_grad(g_rhs, op, 1) if op.needs[1] else None]


@export("linalg.triangular_solve")
def triangular_solve(matrix, rhs, lower: bool = True, adjoint: bool = False,
                     name: str | None = None) -> Tensor:
    """x with `T @ x = rhs`, T the lower (`lower=True`) or upper triangle of each square
    `matrix` ([..., M, M]; the other triangle is ignored) and `rhs` [..., M, K]; with
    `adjoint`, `transpose(T) @ x = rhs`. Batch axes broadcast."""
    a = _real_matrix(matrix, "matrix", "triangular_solve")
    b = _real_matrix(rhs, "rhs", "triangular_solve", dtype=a.dtype)
    attrs = {"lower": _bool(lower, "lower"), "adjoint": _bool(adjoint, "adjoint")}
    return apply(TRIANGULAR_SOLVE, [a, b], attrs, name=name)


@export("linalg.cholesky_solve")
def cholesky_solve(chol, rhs, name: str | None = None) -> Tensor:
    """x with `A @ x = rhs`, given `chol`, the Cholesky factor of A ([..., M, M], as
    `cholesky` returns it), and `rhs` ([..., M, K])."""
    chol = _real_matrix(chol, "chol", "cholesky_solve")
    rhs = _real_matrix(rhs, "rhs", "cholesky_solve", dtype=chol.dtype)
    y = triangular_solve(chol, rhs, lower=True)
    return triangular_solve(chol, y, lower=True, adjoint=True)


def _regularizer(value, dtype):
    if isinstance(value, Tensor):
        return array_math.cast(value, dtype)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"`l2_regularizer` must be a number, got {value!r}.")
    if value < 0:
        raise ValueError(f"`l2_regularizer` must be >= 0, got {value!r}.")
    return float(value)


@export("linalg.lstsq")
def lstsq(matrix, rhs, l2_regularizer=0.0, fast: bool = True, name: str | None = None) -> Tensor:
    """The least-squares solutions x of `matrix @ x ~ rhs` for `matrix` [..., M, N] and
    `rhs` [..., M, K] (x is [..., N, K]), minimising |matrix @ x - rhs|^2 +
    l2_regularizer * |x|^2; for M < N (and no regulariser) the solution of least norm.

    `fast=True` solves the normal equations with a Cholesky factor (fast; the matrix must
    have full rank unless regularised); `fast=False` uses a QR decomposition (more accurate
    for ill-conditioned matrices). Both are differentiable."""
    a = _real_matrix(matrix, "matrix", "lstsq")
    b = _real_matrix(rhs, "rhs", "lstsq", dtype=a.dtype)
    fast = _bool(fast, "fast")
    lam = _regularizer(l2_regularizer, a.dtype)
    dims = a.shape.as_tuple()
    if dims is None or None in dims[-2:]:
        raise ValueError(f"lstsq needs `matrix` with known last two dimensions, got shape "
                         f"{a.shape}.")
    m, n = dims[-2:]
    bdims = b.shape.as_tuple()
    if bdims is not None and bdims[-2] is not None and bdims[-2] != m:
        raise InvalidArgumentError(f"lstsq: `matrix` of shape {a.shape} and `rhs` of shape "
                                   f"{b.shape} do not fit: rhs needs {m} rows.")
    tall = m >= n
    if fast:
        gram = _mm(a, a, ta=True) if tall else _mm(a, a, tb=True)
        if not (isinstance(lam, float) and lam == 0.0):
            gram = array_math.add(gram, array_math.multiply(array_math.eye(n if tall else m, dtype=a.dtype),
                                                            lam))
        chol = cholesky(gram)
        if tall:
            return cholesky_solve(chol, _mm(a, b, ta=True))
        return _mm(a, cholesky_solve(chol, b), ta=True)
    regularised = not (isinstance(lam, float) and lam == 0.0)
    if tall or regularised:
        # minimise |[a; sqrt(lam) I] x - [b; 0]|: one QR of the stacked matrix
        if regularised:
            rank = a.shape.rank
            root = array_math.sqrt(array_math.cast(convert_to_tensor(lam, dtype=a.dtype), a.dtype))
            scaled = _composed.pad(array_math.multiply(array_math.eye(n, dtype=a.dtype), root),
                                   [[m, 0], [0, 0]])
            a = array_math.add(_composed.pad(a, [[0, 0]] * (rank - 2) + [[0, n], [0, 0]]), scaled)
            b = _composed.pad(b, [[0, 0]] * (b.shape.rank - 2) + [[0, n], [0, 0]])
        q, r = qr(a)
        return triangular_solve(r, _mm(q, b, ta=True), lower=False)
    # least norm: a^T = q r, x = q r^-T b
    q, r = qr(_mT(a))
    return _mm(q, triangular_solve(r, b, lower=False, adjoint=True))


@export("linalg.pinv")
def pinv(a, rcond=None, validate_args: bool = False, name: str | None = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse of each matrix of `a` ([..., M, N] -> [..., N, M]),
    from its singular value decomposition: singular values at most `rcond` times the largest
    count as zero (default: 10 * max(M, N) * the dtype's machine epsilon)."""
    x = _real_matrix(a, "a", "pinv")
    dims = x.shape.as_tuple()
    if rcond is None:
        if dims is None or None in dims[-2:]:
            raise ValueError(f"pinv needs `a` with known last two dimensions for the default "
                             f"rcond, got shape {x.shape}; pass rcond.")
        rcond = 10.0 * max(dims[-2:]) * float(np.finfo(x.dtype.as_numpy_dtype).eps)
    s, u, v = svd(x, full_matrices=False)
    cutoff = array_math.multiply(array_math.reduce_max(s, -1, keepdims=True), rcond)
    kept = array_math.greater(s, cutoff)
    inv_s = array_math.where(kept, array_math.divide(1.0, array_math.where(kept, s, array_math.ones_like(s))),
                             array_math.zeros_like(s))
    return _mm(array_math.multiply(v, _row(inv_s)), u, tb=True)


# -- matrix exponential ------------------------------------------------------------------------

# Pade [13/13] coefficients and the 1-norm up to which it is accurate to double precision
# without scaling (Higham, "The scaling and squaring method for the matrix exponential
# revisited", 2005)
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def _expm_one(a):
    norm = np.linalg.norm(a, 1)
    squarings = max(0, int(np.ceil(np.log2(norm / _THETA13)))) if norm > 0 else 0
    a = a / 2.0 ** squarings
    b = _PADE13
    eye = np.eye(a.shape[0])
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2
             + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    r = _lapack("MatrixExponential", np.linalg.solve, v - u, v + u)
    for _ in range(squarings):
        r = r @ r
    return r


def _expm_kernel(x):
    x = np.asarray(x)
    flat = x.reshape((-1,) + x.shape[-2:]).astype(np.float64)
    out = np.stack([_expm_one(m) for m in flat]) if len(flat) else flat
    return out.reshape(x.shape).astype(x.dtype)


def _expm_infer(x):
    _square("MatrixExponential", x)
    return x.shape, x.dtype


EXPM = define("MatrixExponential", _expm_infer, _expm_kernel)


@EXPM.def_grad
def _expm_grad(op, g):
    # the adjoint of the Frechet derivative at A is the derivative at A^T: the upper right
    # block of expm([[A^T, g], [0, A^T]])
    _real_grad(op)
    at = _mT(op.inputs[0])
    block = array_math.concat([array_math.concat([at, g], -1),
                               array_math.concat([array_math.zeros_like(at), at], -1)], -2)
    n = _composed._last_dims(at)[-1]
    return [apply(EXPM, [block])[..., :n, n:]]


@export("linalg.expm")
def expm(input, name: str | None = None) -> Tensor:  # noqa: A002
    """The matrix exponential of each square matrix of `input` ([..., M, M]), by scaling and
    squaring with a Pade approximant. Differentiable."""
    return apply(EXPM, [_real_matrix(input, "input", "expm")], name=name)


# -- products ----------------------------------------------------------------------------------

@export("linalg.adjoint")
def adjoint(matrix, name: str | None = None) -> Tensor:
    """The conjugate transpose of each matrix of `matrix` (the transpose, for real ones)."""
    x = convert_to_tensor(matrix)
    if x.shape.rank is not None and x.shape.rank < 2:
        raise ValueError(f"Argument `matrix` of adjoint should be a (batch) matrix with rank "
                         f">= 2, got shape {x.shape}.")
    if x.dtype.is_complex:
        raise NotImplementedError("adjoint of complex matrices is not supported.")
    return _mT(x)


@export("linalg.matvec")
def matvec(a, b, transpose_a: bool = False, adjoint_a: bool = False, a_is_sparse: bool = False,
           b_is_sparse: bool = False, name: str | None = None) -> Tensor:
    """The matrix-vector products `a @ b` of matrices `a` ([..., M, N]) and vectors `b`
    ([..., N]): [..., M]. `transpose_a` / `adjoint_a` use each matrix's transpose; the
    sparsity hints are accepted and ignored."""
    a = convert_to_tensor(a)
    b = convert_to_tensor(b, dtype=a.dtype) if not isinstance(b, Tensor) else b
    if a.shape.rank is not None and a.shape.rank < 2:
        raise ValueError(f"Argument `a` of matvec should be a (batch) matrix with rank >= 2, "
                         f"got shape {a.shape}.")
    if b.shape.rank is not None and b.shape.rank < 1:
        raise ValueError(f"Argument `b` of matvec should be a (batch) vector with rank >= 1, "
                         f"got shape {b.shape}.")
    if transpose_a and adjoint_a:
        raise ValueError("Only one of `transpose_a` and `adjoint_a` can be True.")
    if adjoint_a and a.dtype.is_complex:
        raise NotImplementedError("matvec(adjoint_a=True) of complex matrices is not supported.")
    product = matmul(a, array_math.expand_dims(b, -1), transpose_a=bool(transpose_a or adjoint_a))
    return array_math.squeeze(product, [-1])


@export("linalg.cross")
def cross(a, b, name: str | None = None) -> Tensor:
    """The cross products of the 3-vectors in the last axis of `a` and `b` (shapes
    [..., 3], broadcast together)."""
    a = convert_to_tensor(a)
    b = convert_to_tensor(b, dtype=a.dtype) if not isinstance(b, Tensor) else b
    for what, t in (("a", a), ("b", b)):
        dims = t.shape.as_tuple()
        if dims is not None and (not dims or dims[-1] not in (3, None)):
            raise ValueError(f"Argument `{what}` of cross must have 3 elements in its last "
                             f"axis, got shape {t.shape}.")
    a0, a1, a2 = (a[..., i] for i in range(3))
    b0, b1, b2 = (b[..., i] for i in range(3))
    return array_math.stack([array_math.subtract(array_math.multiply(a1, b2), array_math.multiply(a2, b1)),
                             array_math.subtract(array_math.multiply(a2, b0), array_math.multiply(a0, b2)),
                             array_math.subtract(array_math.multiply(a0, b1), array_math.multiply(a1, b0))], -1)


@export("linalg.matrix_rank")
def matrix_rank(a, tol=None, validate_args=False, name=None) -> Tensor:
    """The number of singular values of each matrix above `tol` (default eps * max(M, N) *
    the largest singular value)."""
    x = convert_to_tensor(a)
    s = svd(x, compute_uv=False)
    if tol is None:
        dims = x.shape.as_tuple()[-2:]
        if None in dims:
            raise ValueError(f"matrix_rank needs known matrix sizes without `tol`, got {x.shape}.")
        eps = float(np.finfo(x.dtype.as_numpy_dtype).eps)
        tol = array_math.multiply(array_math.reduce_max(s, axis=-1, keepdims=True),
                                  eps * max(dims))
    rank = array_math.cast(array_math.greater(s, tol), _dtypes.int64)
    return array_math.reduce_sum(rank, axis=-1, name=name)
