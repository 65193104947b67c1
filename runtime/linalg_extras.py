"""More of `tf.linalg`: the LU factorization and what uses it (`lu`, `lu_reconstruct`,
`lu_solve`, `lu_matrix_inverse`), the general eigendecomposition (`eig`, `eigvals`), the
matrix square root and logarithm (`sqrtm`, `logm`), `eigh_tridiagonal` and
`experimental.conjugate_gradient`.

`lu_reconstruct`, `lu_solve`, `lu_matrix_inverse`, `eigh_tridiagonal` and
`conjugate_gradient` are composed of rt ops (gradients follow); `lu`, `eig`, `eigvals`,
`sqrtm` and `logm` compute with NumPy through `py_function` (no gradient: their results feed
the composed ones). Loaded on first use of one of these names.
"""

from __future__ import annotations

import collections
import types

import numpy as np

from . import dtypes as _dtypes
from .arguments import with_keyword_hints
from .errors import InvalidArgumentError
from .exports import NAMESPACES as _NS
from .tensor import Tensor

_R = _NS[""]
_L = _NS["linalg"]
_M = _NS["math"]


def _t(x, dtype=None) -> Tensor:
    return _R["convert_to_tensor"](x, dtype=dtype)


def _square(x: Tensor, fn: str) -> Tensor:
    if x.shape.rank is not None and (x.shape.rank < 2 or (
            x.shape[-1] is not None and x.shape[-2] is not None and x.shape[-1] != x.shape[-2])):
        raise ValueError(f"{fn} needs square matrices [..., N, N], got shape {x.shape}.")
    return x


def _numpy(fn, inputs, dtypes, shapes):
    """`fn` on the inputs' NumPy values, through py_function, with static result shapes."""
    outs = _R["py_function"](lambda *ts: fn(*[t.numpy() for t in ts]), inputs, dtypes)
    single = not isinstance(dtypes, (list, tuple))
    outs = [outs] if single else list(outs)
    for out, shape in zip(outs, shapes):
        if hasattr(out, "set_shape"):
            out.set_shape(shape)
    return outs[0] if single else tuple(outs)


# -- LU -------------------------------------------------------------------------------------------

def _lu_kernel(a: np.ndarray, index_dtype):
    a = np.array(a, copy=True)
    n = a.shape[-1]
    batch = a.reshape(-1, n, n)
    perms = np.tile(np.arange(n), (batch.shape[0], 1))
    for m, mat in enumerate(batch):
        for k in range(n):
            pivot = k + int(np.argmax(np.abs(mat[k:, k])))
            if pivot != k:
                mat[[k, pivot]] = mat[[pivot, k]]
                perms[m, [k, pivot]] = perms[m, [pivot, k]]
            if mat[k, k] == 0:
                continue  # a singular column: nothing to eliminate below it
            mat[k + 1:, k] /= mat[k, k]
            mat[k + 1:, k + 1:] -= np.outer(mat[k + 1:, k], mat[k, k + 1:])
    return batch.reshape(a.shape), perms.reshape(a.shape[:-1]).astype(index_dtype)


def lu(input, output_idx_type=_dtypes.int32, name=None) -> tuple[Tensor, Tensor]:  # noqa: A002
    """The LU factorization with partial pivoting: `(lu, p)` where `lu` holds the unit lower
    triangle L below its diagonal and U on and above it, and `input[..., p, :] = L @ U`."""
    x = _square(_t(input), "lu")
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError(f"lu needs float or complex matrices, got {x.dtype.name}.")
    index = _dtypes.as_dtype(output_idx_type)
    if index not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"lu: output_idx_type must be int32 or int64, got {index.name}.")
    result = collections.namedtuple("Lu", ["lu", "p"])
    lower_upper, perm = _numpy(lambda a: _lu_kernel(a, index.as_numpy_dtype), [x],
                               [x.dtype, index], [x.shape, x.shape[:-1]])
    return result(lower_upper, perm)


def _lu_parts(lower_upper: Tensor):
    n = lower_upper.shape[-1]
    unit = _L["eye"](int(n), dtype=lower_upper.dtype) if n is not None else None
    lower = _L["band_part"](lower_upper, -1, 0) - _L["band_part"](lower_upper, 0, 0) + unit
    upper = _L["band_part"](lower_upper, 0, -1)
    return lower, upper


def _permute_rows(x: Tensor, perm: Tensor) -> Tensor:
    batch_dims = perm.shape.rank - 1
    return _R["gather"](x, perm, axis=batch_dims, batch_dims=batch_dims)


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None) -> Tensor:
    """The matrix `lu` factored: `P^-1 @ L @ U`."""
    lower_upper = _t(lower_upper)
    lower, upper = _lu_parts(lower_upper)
    product = _L["matmul"](lower, upper)
    return _permute_rows(product, _invert(_t(perm)))


def _invert(perm: Tensor) -> Tensor:
    """The inverse permutations of a batch of permutations (last axis)."""
    return _R["argsort"](perm, axis=-1, stable=True)


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None) -> Tensor:
    """`X` with `A @ X = rhs` for the `A` that `lu` factored into `(lower_upper, perm)`."""
    lower_upper = _t(lower_upper)
    rhs = _t(rhs, lower_upper.dtype)
    lower, upper = _lu_parts(lower_upper)
    perm = _t(perm)
    batch = lower_upper.shape[:-2].as_list()
    if rhs.shape.rank is not None and perm.shape.rank is not None and \
            rhs.shape.rank - 1 > perm.shape.rank:
        perm = _R["broadcast_to"](perm, rhs.shape.as_list()[:-2] + perm.shape.as_list()[-1:])
    elif batch and rhs.shape.rank == 2:
        rhs = _R["broadcast_to"](rhs, batch + rhs.shape.as_list())
    permuted = _permute_rows(rhs, perm)
    y = _L["triangular_solve"](lower, permuted, lower=True)
    return _L["triangular_solve"](upper, y, lower=False)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None) -> Tensor:
    """The inverse of the matrix `lu` factored into `(lower_upper, perm)`."""
    lower_upper = _t(lower_upper)
    n = int(lower_upper.shape[-1])
    eye = _L["eye"](n, batch_shape=lower_upper.shape[:-2].as_list() or None,
                    dtype=lower_upper.dtype)
    return lu_solve(lower_upper, perm, eye)


# -- eigendecomposition, square root and logarithm ---------------------------------------------

def _complex_of(dtype):
    return _dtypes.complex128 if dtype in (_dtypes.float64, _dtypes.complex128) else \
        _dtypes.complex64


def eig(tensor, name=None) -> tuple[Tensor, Tensor]:
    """The eigenvalues and right eigenvectors of square (not necessarily symmetric) matrices,
    complex: `(e, v)` with `tensor @ v = v * e` (each vector of unit norm)."""
    x = _square(_t(tensor), "eig")
    out = _complex_of(x.dtype)

    def kernel(a):
        w, v = np.linalg.eig(a)
        return w.astype(out.as_numpy_dtype), v.astype(out.as_numpy_dtype)
    return _numpy(kernel, [x], [out, out], [x.shape[:-1], x.shape])


def eigvals(tensor, name=None) -> Tensor:
    """The eigenvalues of square matrices, complex (in the order `eig` gives them)."""
    x = _square(_t(tensor), "eigvals")
    out = _complex_of(x.dtype)
    return _numpy(lambda a: np.linalg.eigvals(a).astype(out.as_numpy_dtype), [x], out,
                  [x.shape[:-1]])


def _through_eigenvalues(a: np.ndarray, fn) -> np.ndarray:
    w, v = np.linalg.eig(a)
    fw = fn(w.astype(np.complex128))
    return v @ (fw[..., :, None] * np.linalg.inv(v))


def sqrtm(input, name=None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """The principal square root of square matrices whose eigenvalues are not negative reals:
    `S @ S = input` (real matrices give real roots)."""
    x = _square(_t(input), "sqrtm")
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError(f"sqrtm needs float or complex matrices, got {x.dtype.name}.")

    def kernel(a):
        root = _through_eigenvalues(a, np.sqrt)
        return (root if x.dtype.is_complex else root.real).astype(a.dtype)
    return _numpy(kernel, [x], x.dtype, [x.shape])


def logm(input, name=None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """The principal logarithm of square complex matrices: `expm(logm(a)) = a`."""
    x = _square(_t(input), "logm")
    if not x.dtype.is_complex:
        raise InvalidArgumentError(f"logm needs complex64 or complex128 matrices, got "
                                   f"{x.dtype.name}; cast it first.")
    return _numpy(lambda a: _through_eigenvalues(a, np.log).astype(a.dtype), [x], x.dtype,
                  [x.shape])


def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None,
                     tol=None, name=None) -> Tensor | tuple[Tensor, Tensor]:
    """The eigenvalues (and with `eigvals_only=False` the eigenvectors, as columns) of the
    symmetric tridiagonal matrix of diagonal `alpha` and off-diagonal `beta`, ascending.
    `select`: 'a' all, 'i' the indices `select_range = [lo, hi]` (inclusive), 'v' the values
    in `(lo, hi]`."""
    alpha, beta = _t(alpha), _t(beta)
    if alpha.dtype != beta.dtype:
        raise TypeError(f"eigh_tridiagonal: alpha and beta must have one dtype, got "
                        f"{alpha.dtype.name} and {beta.dtype.name}.")
    if select not in ("a", "i", "v"):
        raise ValueError(f"eigh_tridiagonal: select must be 'a', 'i' or 'v', got {select!r}.")
    if select != "a" and select_range is None:
        raise ValueError("eigh_tridiagonal: select_range is required when select is 'i' or 'v'.")
    dense = (_L["diag"](alpha) + _L["diag"](beta, k=1) + _L["diag"](beta, k=-1))
    if eigvals_only:
        values, vectors = _L["eigvalsh"](dense), None
    else:
        values, vectors = _L["eigh"](dense)
    if select == "i":
        lo, hi = (int(v) for v in np.asarray(_value(select_range)).ravel())
        values = values[lo:hi + 1]
        vectors = None if vectors is None else vectors[:, lo:hi + 1]
    elif select == "v":
        lo, hi = (float(v) for v in np.asarray(_value(select_range)).ravel())
        keep = _R["logical_and"](values > lo, values <= hi)
        values = _R["boolean_mask"](values, keep)
        if vectors is not None:
            vectors = _R["boolean_mask"](vectors, keep, axis=1)
    return values if eigvals_only else (values, vectors)


def _value(x):
    return x.numpy() if isinstance(x, Tensor) else x


CGState = collections.namedtuple("CGState", ["i", "x", "r", "p", "gamma"])


def conjugate_gradient(operator, rhs, preconditioner=None, x=None, tol=1e-5, max_iter=20,
                       name="conjugate_gradient") -> CGState:
    """Solves `operator @ x = rhs` for a self-adjoint positive definite LinearOperator by
    (preconditioned) conjugate gradients from `x` (default zeros): at most `max_iter` steps,
    stopping once the residual's norm is at most `tol`. Returns `CGState(i, x, r, p, gamma)`."""
    rhs = _t(rhs)
    x0 = _R["zeros_like"](rhs) if x is None else _t(x, rhs.dtype)

    def precondition(v):
        return v if preconditioner is None else preconditioner.matvec(v)

    def dot(a, b):
        return _R["reduce_sum"](a * b, axis=-1)

    r0 = rhs - operator.matvec(x0)
    z0 = precondition(r0)
    state = CGState(_R["constant"](0, _dtypes.int32), x0, r0, z0, dot(r0, z0))

    def cond(i, x, r, p, gamma):
        return _R["logical_and"](i < max_iter, _R["reduce_any"](_L["norm"](r, axis=-1) > tol))

    def body(i, x, r, p, gamma):
        q = operator.matvec(p)
        alpha = gamma / dot(p, q)
        x = x + alpha[..., None] * p
        r = r - alpha[..., None] * q
        z = precondition(r)
        new_gamma = dot(r, z)
        p = z + (new_gamma / gamma)[..., None] * p
        return [i + 1, x, r, p, new_gamma]

    return CGState(*_R["while_loop"](cond, body, list(state)))


experimental = types.SimpleNamespace(conjugate_gradient=with_keyword_hints(
    conjugate_gradient, "conjugate_gradient"))

__all__ = ["eig", "eigh_tridiagonal", "eigvals", "experimental", "logm", "lu",
           "lu_matrix_inverse", "lu_reconstruct", "lu_solve", "sqrtm"]

for _name in __all__[:]:
    if _name != "experimental":
        globals()[_name] = with_keyword_hints(globals()[_name], _name)
matrix_square_root = sqrtm
