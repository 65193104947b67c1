"""`tf.linalg.LinearOperator` and its family: matrices described by their structure (a diagonal,
a scaled identity, a triangle, a product, a Kronecker product, ...), composed of rt's ops.

Every operator knows its dense matrix (`to_dense`); the base class derives `matmul`, `solve`,
`determinant`, `log_abs_determinant`, `diag_part`, `trace`, `eigvals`, `cholesky`, `cond` and
`add_to_tensor` from it, and the structured operators replace the ones their structure makes
cheaper (a diagonal solves by division, a triangle by substitution, a product one factor at a
time). Gradients flow through the ops, as TensorFlow's do. Loaded on first use of a
`rt.linalg.LinearOperator*` name.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as _dtypes
from .arguments import add_keyword_hints_to_classes, with_keyword_hints
from .errors import InvalidArgumentError
from .exports import NAMESPACES as _NS
from .module import Module
from .shapes import TensorShape
from .tensor import Tensor

_R = _NS[""]
_L = _NS["linalg"]
_S = _NS["signal"]
_M = _NS["math"]


def _t(x, dtype=None) -> Tensor:
    return _R["convert_to_tensor"](x, dtype=dtype)


def _adj(x: Tensor) -> Tensor:
    """The conjugate transpose of the last two axes (complex ones too)."""
    if x.dtype.is_complex:
        return _M["conj"](_L["matrix_transpose"](x))
    return _L["matrix_transpose"](x)


def _static_ints(shape) -> list:
    return [int(d) for d in (shape.as_list() if isinstance(shape, TensorShape) else shape)]


class LinearOperator(Module):
    """A linear operator on batches of vectors: `[B1, ..., Bb, M, N]` (the base class; its
    subclasses give `_shape()` and `_to_dense()`)."""

    def __init__(self, dtype, graph_parents=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None, parameters=None):
        super().__init__(name=name or type(self).__name__)
        if is_positive_definite and is_non_singular is False:
            raise ValueError("A positive definite matrix is always non-singular.")
        if is_self_adjoint and is_square is False:
            raise ValueError("A self-adjoint matrix is always square.")
        if is_positive_definite or is_non_singular:
            if is_square is False:
                raise ValueError("A non-singular matrix is always square.")
            is_square = True if is_square is None else is_square
        self._dtype = _dtypes.as_dtype(dtype) if dtype is not None else None
        self._is_non_singular = True if is_positive_definite else is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._is_square_hint = is_square
        self._parameters = dict(parameters or {})

    # -- description --------------------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def parameters(self) -> dict:
        return dict(self._parameters)

    @property
    def graph_parents(self) -> list:
        return []

    @property
    def is_non_singular(self):
        return self._is_non_singular

    @property
    def is_self_adjoint(self):
        return self._is_self_adjoint

    @property
    def is_positive_definite(self):
        return self._is_positive_definite

    @property
    def is_square(self):
        shape = self.shape
        known = shape[-1] is not None and shape[-2] is not None
        if known:
            return shape[-1] == shape[-2]
        return self._is_square_hint

    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._shape())

    def shape_tensor(self, name="shape_tensor") -> Tensor:
        return _t(np.asarray(_static_ints(self.shape), np.int32))

    @property
    def batch_shape(self) -> TensorShape:
        return self.shape[:-2]

    def batch_shape_tensor(self, name="batch_shape_tensor") -> Tensor:
        return _t(np.asarray(_static_ints(self.batch_shape), np.int32))

    @property
    def tensor_rank(self) -> int:
        return self.shape.rank

    def tensor_rank_tensor(self, name="tensor_rank_tensor") -> Tensor:
        return _t(np.int32(self.shape.rank))

    @property
    def domain_dimension(self):
        return self.shape[-1]

    def domain_dimension_tensor(self, name="domain_dimension_tensor") -> Tensor:
        return _t(np.int32(self.shape[-1]))

    @property
    def range_dimension(self):
        return self.shape[-2]

    def range_dimension_tensor(self, name="range_dimension_tensor") -> Tensor:
        return _t(np.int32(self.shape[-2]))

    def __repr__(self) -> str:
        return (f"<rt.linalg.{type(self).__name__} '{self.name}' "
                f"shape={self.shape} dtype={self.dtype!r}>")

    # -- what subclasses give --------------------------------------------------------------------
    def _shape(self) -> list:
        raise NotImplementedError

    def _to_dense(self) -> Tensor:
        raise NotImplementedError

    # -- the dense matrix and what is derived from it -------------------------------------------
    def to_dense(self, name="to_dense") -> Tensor:
        """The operator as a dense `[..., M, N]` tensor."""
        return self._to_dense()

    def _check_square(self, what: str) -> None:
        if self.is_square is False:
            raise NotImplementedError(f"{what} is defined for square operators only; this one "
                                      f"has shape {self.shape}.")

    def _check_arg(self, x: Tensor, adjoint: bool, adjoint_arg: bool, what: str) -> None:
        inner = self.shape[-2] if adjoint else self.shape[-1]
        dim = x.shape[-1] if adjoint_arg else x.shape[-2]
        if inner is not None and dim is not None and inner != dim:
            raise ValueError(f"{what}: the operator has {inner} "
                             f"{'rows' if adjoint else 'columns'}, but the argument has {dim} "
                             f"{'columns' if adjoint_arg else 'rows'} (shapes {self.shape} and "
                             f"{x.shape}).")

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """`op @ x` (`adjoint(op) @ x` with `adjoint`, `x`'s adjoint with `adjoint_arg`); `x`
        may also be a LinearOperator (the result is then their composition)."""
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            return LinearOperatorComposition([left, right])
        x = _t(x, self.dtype)
        self._check_arg(x, adjoint, adjoint_arg, "matmul")
        return self._matmul(x, adjoint, adjoint_arg)

    def _matmul(self, x, adjoint, adjoint_arg):
        dense = self.to_dense()
        a = _adj(dense) if adjoint else dense
        b = _adj(x) if adjoint_arg else x
        return _L["matmul"](a, b)

    def __matmul__(self, other):
        return self.matmul(other)

    def matvec(self, x, adjoint=False, name="matvec"):
        """`op @ x` for vectors `x` of shape `[..., N]`."""
        x = _t(x, self.dtype)
        return _R["squeeze"](self.matmul(_R["expand_dims"](x, -1), adjoint=adjoint), [-1])

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """`X` with `op @ X = rhs` (`adjoint(op) @ X = rhs` with `adjoint`); `rhs` may be a
        LinearOperator (the result is then `inverse(op) @ rhs`)."""
        if self.is_non_singular is False:
            raise NotImplementedError("solve: the operator is declared singular "
                                      "(is_non_singular=False).")
        self._check_square("solve")
        if isinstance(rhs, LinearOperator):
            left = (self.adjoint() if adjoint else self).inverse()
            return LinearOperatorComposition([left, rhs.adjoint() if adjoint_arg else rhs])
        rhs = _t(rhs, self.dtype)
        self._check_arg(rhs, not adjoint, adjoint_arg, "solve")
        return self._solve(_adj(rhs) if adjoint_arg else rhs, adjoint)

    def _solve(self, rhs, adjoint):
        return _L["solve"](self.to_dense(), rhs, adjoint=adjoint)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """`x` with `op @ x = rhs` for vectors `rhs` of shape `[..., M]`."""
        rhs = _t(rhs, self.dtype)
        return _R["squeeze"](self.solve(_R["expand_dims"](rhs, -1), adjoint=adjoint), [-1])

    def determinant(self, name="det"):
        self._check_square("determinant")
        return self._determinant()

    def _determinant(self):
        return _L["det"](self.to_dense())

    def log_abs_determinant(self, name="log_abs_det"):
        self._check_square("log_abs_determinant")
        return self._log_abs_determinant()

    def _log_abs_determinant(self):
        return _L["slogdet"](self.to_dense())[1]

    def diag_part(self, name="diag_part"):
        return self._diag_part()

    def _diag_part(self):
        return _L["diag_part"](self.to_dense())

    def trace(self, name="trace"):
        return _R["reduce_sum"](self.diag_part(), axis=-1)

    def add_to_tensor(self, x, name="add_to_tensor"):
        """`to_dense() + x`."""
        return _R["add"](self.to_dense(), _t(x, self.dtype))

    def eigvals(self, name="eigvals"):
        """The eigenvalues of a self-adjoint operator, ascending."""
        if not self.is_self_adjoint:
            raise NotImplementedError("eigvals is only offered for operators declared "
                                      "self-adjoint (is_self_adjoint=True).")
        return self._eigvals()

    def _eigvals(self):
        return _L["eigvalsh"](self.to_dense())

    def cholesky(self, name="cholesky"):
        """The lower-triangular Cholesky factor, as a LinearOperatorLowerTriangular."""
        if not (self.is_self_adjoint and self.is_positive_definite):
            raise ValueError("Cholesky decomposition is only defined for operators declared "
                             "self-adjoint and positive definite.")
        return LinearOperatorLowerTriangular(_L["cholesky"](self.to_dense()),
                                             is_non_singular=True, is_square=True)

    def cond(self, name="cond"):
        """The condition number: the largest singular value over the smallest."""
        s = _L["svd"](self.to_dense(), compute_uv=False)
        return _R["reduce_max"](s, axis=-1) / _R["reduce_min"](s, axis=-1)

    def adjoint(self, name=None):
        """The adjoint (conjugate transpose) operator."""
        if self.is_self_adjoint:
            return self
        return LinearOperatorAdjoint(self)

    @property
    def H(self):  # noqa: N802 - TensorFlow's name
        return self.adjoint()

    def inverse(self, name=None):
        """The inverse operator (of a square operator not declared singular)."""
        if self.is_non_singular is False:
            raise ValueError("Cannot take the inverse: this operator is declared singular.")
        self._check_square("inverse")
        return LinearOperatorInversion(self)

    def assert_non_singular(self, name="assert_non_singular"):
        s = _L["svd"](self.to_dense(), compute_uv=False)
        if bool(_R["reduce_any"](_R["equal"](_R["reduce_min"](s, axis=-1), 0))):
            raise InvalidArgumentError("Singular operator: a singular value is zero.")

    def assert_positive_definite(self, name="assert_positive_definite"):
        dense = self.to_dense()
        sym = (dense + _adj(dense)) / 2
        if not bool(_R["reduce_all"](_L["eigvalsh"](sym) > 0)):
            raise InvalidArgumentError("Operator is not positive definite.")

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        dense = self.to_dense()
        if not bool(_R["reduce_all"](_R["equal"](dense, _adj(dense)))):
            raise InvalidArgumentError("Operator is not self-adjoint.")


def _square_dims(matrix: Tensor, what: str):
    if matrix.shape.rank is not None and matrix.shape.rank < 2:
        raise ValueError(f"{what} needs a tensor of rank >= 2, got shape {matrix.shape}.")


class LinearOperatorFullMatrix(LinearOperator):
    """The operator of a dense `[..., M, N]` matrix."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorFullMatrix"):
        self._matrix = _t(matrix)
        _square_dims(self._matrix, "LinearOperatorFullMatrix")
        super().__init__(self._matrix.dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name, {"matrix": matrix})

    def _shape(self):
        return self._matrix.shape.as_list()

    def _to_dense(self):
        return self._matrix


class LinearOperatorDiag(LinearOperator):
    """The diagonal matrix of `diag` (`[..., N]`)."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorDiag"):
        self._diag = _t(diag)
        if self._diag.shape.rank is not None and self._diag.shape.rank < 1:
            raise ValueError(f"LinearOperatorDiag needs a diag of rank >= 1, got shape "
                             f"{self._diag.shape}.")
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        if is_self_adjoint is None and not self._diag.dtype.is_complex:
            is_self_adjoint = True
        super().__init__(self._diag.dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, {"diag": diag})

    @property
    def diag(self):
        return self._diag

    def _shape(self):
        dims = self._diag.shape.as_list()
        return dims + dims[-1:]

    def _to_dense(self):
        return _L["diag"](self._diag)

    def _matmul(self, x, adjoint, adjoint_arg):
        d = _M["conj"](self._diag) if adjoint and self._diag.dtype.is_complex else self._diag
        x = _adj(x) if adjoint_arg else x
        return _R["expand_dims"](d, -1) * x

    def _solve(self, rhs, adjoint):
        d = _M["conj"](self._diag) if adjoint and self._diag.dtype.is_complex else self._diag
        return rhs / _R["expand_dims"](d, -1)

    def _determinant(self):
        return _R["reduce_prod"](self._diag, axis=-1)

    def _log_abs_determinant(self):
        return _R["reduce_sum"](_M["log"](_R["abs"](self._diag)), axis=-1)

    def _diag_part(self):
        return self._diag

    def _eigvals(self):
        return _R["sort"](self._diag, axis=-1)


class LinearOperatorIdentity(LinearOperator):
    """The `num_rows` x `num_rows` identity, in a batch of `batch_shape`."""

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True,
                 is_self_adjoint=True, is_positive_definite=True, is_square=True,
                 assert_proper_shapes=False, name="LinearOperatorIdentity"):
        if not (is_non_singular and is_self_adjoint and is_positive_definite and is_square):
            raise ValueError("An identity operator is always non-singular, self-adjoint, "
                             "positive definite and square.")
        self._n = _count(num_rows, "num_rows")
        self._batch = [] if batch_shape is None else [_count(b, "batch_shape") for b in
                                                       np.ravel(_value(batch_shape))]
        super().__init__(dtype or _dtypes.float32, None, True, True, True, True, name,
                         {"num_rows": num_rows, "batch_shape": batch_shape, "dtype": dtype})

    def _shape(self):
        return self._batch + [self._n, self._n]

    def _to_dense(self):
        return _L["eye"](self._n, batch_shape=self._batch or None, dtype=self.dtype)

    def _matmul(self, x, adjoint, adjoint_arg):
        x = _adj(x) if adjoint_arg else x
        return _R["broadcast_to"](x, _broadcast_shape(self._batch, x)) if self._batch else x

    def _solve(self, rhs, adjoint):
        return self._matmul(rhs, False, False)

    def _determinant(self):
        return _R["ones"](self._batch, self.dtype)

    def _log_abs_determinant(self):
        return _R["zeros"](self._batch, self.dtype)

    def _diag_part(self):
        return _R["ones"](self._batch + [self._n], self.dtype)

    def _eigvals(self):
        return self._diag_part()


def _broadcast_shape(batch: list, x: Tensor) -> list:
    return list(np.broadcast_shapes(tuple(batch) + (1, 1), tuple(x.shape.as_list())))


def _value(x):
    return x.numpy() if isinstance(x, Tensor) else x


def _count(x, what: str) -> int:
    n = int(np.asarray(_value(x)))
    if n < 0:
        raise ValueError(f"{what} must be non-negative, got {n}.")
    return n


class LinearOperatorScaledIdentity(LinearOperator):
    """`multiplier` times the `num_rows` x `num_rows` identity (a batch of multipliers gives a
    batch of operators)."""

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorScaledIdentity"):
        if is_square is False:
            raise ValueError("A ScaledIdentity operator is always square.")
        self._n = _count(num_rows, "num_rows")
        self._multiplier = _t(multiplier)
        if is_self_adjoint is None and not self._multiplier.dtype.is_complex:
            is_self_adjoint = True
        super().__init__(self._multiplier.dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name,
                         {"num_rows": num_rows, "multiplier": multiplier})

    @property
    def multiplier(self):
        return self._multiplier

    def _shape(self):
        return self._multiplier.shape.as_list() + [self._n, self._n]

    def _scale(self):
        return _R["expand_dims"](_R["expand_dims"](self._multiplier, -1), -1)

    def _to_dense(self):
        return self._scale() * _L["eye"](self._n, dtype=self.dtype)

    def _matmul(self, x, adjoint, adjoint_arg):
        m = _M["conj"](self._scale()) if adjoint and self.dtype.is_complex else self._scale()
        return m * (_adj(x) if adjoint_arg else x)

    def _solve(self, rhs, adjoint):
        m = _M["conj"](self._scale()) if adjoint and self.dtype.is_complex else self._scale()
        return rhs / m

    def _determinant(self):
        return self._multiplier ** self._n

    def _log_abs_determinant(self):
        return self._n * _M["log"](_R["abs"](self._multiplier))

    def _diag_part(self):
        return _R["expand_dims"](self._multiplier, -1) * _R["ones"]([self._n], self.dtype)

    def _eigvals(self):
        return self._diag_part()


class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle of `tril` (`[..., N, N]`; the part above the diagonal is ignored)."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorLowerTriangular"):
        tril = _t(tril)
        _square_dims(tril, "LinearOperatorLowerTriangular")
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        self._tril = _L["band_part"](tril, -1, 0)
        super().__init__(tril.dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, {"tril": tril})

    def _shape(self):
        return self._tril.shape.as_list()

    def _to_dense(self):
        return self._tril

    def _solve(self, rhs, adjoint):
        return _L["triangular_solve"](self._tril, rhs, lower=True, adjoint=adjoint)

    def _determinant(self):
        return _R["reduce_prod"](_L["diag_part"](self._tril), axis=-1)

    def _log_abs_determinant(self):
        return _R["reduce_sum"](_M["log"](_R["abs"](_L["diag_part"](self._tril))), axis=-1)


class LinearOperatorZeros(LinearOperator):
    """The `num_rows` x `num_columns` zero matrix, in a batch of `batch_shape`."""

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None,
                 is_non_singular=False, is_self_adjoint=True, is_positive_definite=False,
                 is_square=True, assert_proper_shapes=False, name="LinearOperatorZeros"):
        if is_non_singular or is_positive_definite:
            raise ValueError("A zeros operator is always singular and not positive definite.")
        self._rows = _count(num_rows, "num_rows")
        self._cols = self._rows if num_columns is None else _count(num_columns, "num_columns")
        if self._cols != self._rows and is_square:
            raise ValueError(f"LinearOperatorZeros initialized as is_square=True, but got "
                             f"num_rows({self._rows}) != num_columns({self._cols})")
        self._batch = [] if batch_shape is None else [_count(b, "batch_shape") for b in
                                                       np.ravel(_value(batch_shape))]
        super().__init__(dtype or _dtypes.float32, None, False, is_self_adjoint, False,
                         is_square, name, {"num_rows": num_rows, "num_columns": num_columns,
                          "batch_shape": batch_shape, "dtype": dtype})

    def _shape(self):
        return self._batch + [self._rows, self._cols]

    def _to_dense(self):
        return _R["zeros"](self._shape(), self.dtype)

    def _matmul(self, x, adjoint, adjoint_arg):
        x = _adj(x) if adjoint_arg else x
        rows = self._cols if adjoint else self._rows
        shape = list(np.broadcast_shapes(tuple(self._batch), tuple(x.shape.as_list()[:-2])))
        return _R["zeros"](shape + [rows, x.shape[-1]], self.dtype)

    def _determinant(self):
        return _R["zeros"](self._batch, self.dtype)

    def _log_abs_determinant(self):
        return _M["log"](self._determinant())

    def _diag_part(self):
        return _R["zeros"](self._batch + [min(self._rows, self._cols)], self.dtype)


class LinearOperatorAdjoint(LinearOperator):
    """The adjoint (conjugate transpose) of `operator`."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self._operator = operator
        pick = (lambda mine, theirs: theirs if mine is None else mine)
        super().__init__(operator.dtype, None, pick(is_non_singular, operator.is_non_singular),
                         pick(is_self_adjoint, operator.is_self_adjoint),
                         pick(is_positive_definite, operator.is_positive_definite),
                         pick(is_square, operator.is_square),
                         name or f"{operator.name}_adjoint", {"operator": operator})

    @property
    def operator(self):
        return self._operator

    def _shape(self):
        dims = self._operator.shape.as_list()
        return dims[:-2] + [dims[-1], dims[-2]]

    def _to_dense(self):
        return _adj(self._operator.to_dense())

    def _matmul(self, x, adjoint, adjoint_arg):
        return self._operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint):
        return self._operator.solve(rhs, adjoint=not adjoint)

    def _determinant(self):
        d = self._operator.determinant()
        return _M["conj"](d) if d.dtype.is_complex else d

    def _log_abs_determinant(self):
        return self._operator.log_abs_determinant()

    def adjoint(self, name=None):
        return self._operator


class LinearOperatorInversion(LinearOperator):
    """The inverse of a square, non-singular `operator`: `matmul` solves with it."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError("Cannot invert a singular operator (is_non_singular=False).")
        if operator.is_square is False or is_square is False:
            raise ValueError("Cannot invert a non-square operator.")
        self._operator = operator
        pick = (lambda mine, theirs: theirs if mine is None else mine)
        super().__init__(operator.dtype, None, pick(is_non_singular, operator.is_non_singular),
                         pick(is_self_adjoint, operator.is_self_adjoint),
                         pick(is_positive_definite, operator.is_positive_definite), True,
                         name or f"{operator.name}_inv", {"operator": operator})

    @property
    def operator(self):
        return self._operator

    def _shape(self):
        return self._operator.shape.as_list()

    def _to_dense(self):
        return _L["inv"](self._operator.to_dense())

    def _matmul(self, x, adjoint, adjoint_arg):
        return self._operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint):
        return self._operator.matmul(rhs, adjoint=adjoint)

    def _determinant(self):
        return 1 / self._operator.determinant()

    def _log_abs_determinant(self):
        return -self._operator.log_abs_determinant()

    def inverse(self, name=None):
        return self._operator


def _operators(operators, what: str) -> list:
    operators = list(operators)
    if not operators:
        raise ValueError(f"{what}: expected a non-empty list of operators, got {operators!r}.")
    for op in operators:
        if not isinstance(op, LinearOperator):
            raise TypeError(f"{what}: every operator must be a rt.linalg.LinearOperator, got "
                            f"{type(op).__name__}.")
    dtypes = {op.dtype for op in operators}
    if len(dtypes) > 1:
        raise TypeError(f"{what}: the operators must have one dtype, got "
                        f"{sorted(d.name for d in dtypes)}.")
    return operators


def _batch(ops) -> list:
    return list(np.broadcast_shapes(*[tuple(op.shape.as_list()[:-2]) for op in ops]))


class _OfOperators(LinearOperator):
    """An operator made of a list of operators of one dtype (a product, a block diagonal, a
    Kronecker product): non-singular when they all are, self-adjoint when they all are and
    `_ADJOINT_IF_ALL`, named by joining their names with `_JOIN`."""

    _JOIN = "_"
    _ADJOINT_IF_ALL = True

    def _take(self, operators, is_non_singular, is_self_adjoint, is_positive_definite,
              is_square, name) -> None:
        ops = self._operators = _operators(operators, type(self).__name__)
        self._check_operators(ops)
        if is_non_singular is None and all(op.is_non_singular for op in ops):
            is_non_singular = True
        if (self._ADJOINT_IF_ALL and is_self_adjoint is None
                and all(op.is_self_adjoint for op in ops)):
            is_self_adjoint = True
        LinearOperator.__init__(self, ops[0].dtype, None, is_non_singular, is_self_adjoint,
                                is_positive_definite, is_square,
                                name or self._JOIN.join(op.name for op in ops),
                                {"operators": operators})

    def _check_operators(self, operators: list) -> None:
        """Refuses operators that cannot be combined (nothing to check by default)."""

    @property
    def operators(self):
        return list(self._operators)


class LinearOperatorComposition(_OfOperators):
    """The product `operators[0] @ operators[1] @ ...`: applied one factor at a time."""

    _JOIN = "_o_"
    _ADJOINT_IF_ALL = False

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self._take(operators, is_non_singular, is_self_adjoint, is_positive_definite,
                   is_square, name)

    def _check_operators(self, operators: list) -> None:
        for left, right in zip(operators, operators[1:]):
            a, b = left.shape[-1], right.shape[-2]
            if a is not None and b is not None and a != b:
                raise ValueError(f"LinearOperatorComposition: the operators' shapes do not "
                                 f"chain: {left.shape} then {right.shape}.")

    def _shape(self):
        return _batch(self._operators) + [self._operators[0].shape[-2],
                                          self._operators[-1].shape[-1]]

    def _to_dense(self):
        dense = self._operators[-1].to_dense()
        for op in reversed(self._operators[:-1]):
            dense = op.matmul(dense)
        return dense

    def _matmul(self, x, adjoint, adjoint_arg):
        ops = self._operators if adjoint else self._operators[::-1]
        x = ops[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in ops[1:]:
            x = op.matmul(x, adjoint=adjoint)
        return x

    def _solve(self, rhs, adjoint):
        if not all(op.is_square is not False for op in self._operators):
            return super()._solve(rhs, adjoint)
        ops = self._operators[::-1] if adjoint else self._operators
        for op in ops:
            rhs = op.solve(rhs, adjoint=adjoint)
        return rhs

    def _determinant(self):
        if all(op.is_square for op in self._operators):
            det = self._operators[0].determinant()
            for op in self._operators[1:]:
                det = det * op.determinant()
            return det
        return super()._determinant()

    def _log_abs_determinant(self):
        if all(op.is_square for op in self._operators):
            out = self._operators[0].log_abs_determinant()
            for op in self._operators[1:]:
                out = out + op.log_abs_determinant()
            return out
        return super()._log_abs_determinant()


def _block_diag(blocks: list, batch: list, dtype) -> Tensor:
    """A block-diagonal dense matrix of the dense blocks (broadcast to `batch`)."""
    rows = []
    cols = [int(b.shape[-1]) for b in blocks]
    for i, b in enumerate(blocks):
        b = _R["broadcast_to"](b, batch + b.shape.as_list()[-2:])
        row = []
        for j, n in enumerate(cols):
            row.append(b if i == j else _R["zeros"](batch + [int(b.shape[-2]), n], dtype))
        rows.append(_R["concat"](row, -1))
    return _R["concat"](rows, -2)


class LinearOperatorBlockDiag(_OfOperators):
    """The block-diagonal matrix of square `operators`."""

    _JOIN = "_ds_"

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name=None):
        self._take(operators, is_non_singular, is_self_adjoint, is_positive_definite,
                   is_square, name)

    def _shape(self):
        return _batch(self._operators) + [sum(op.shape[-2] for op in self._operators),
                                          sum(op.shape[-1] for op in self._operators)]

    def _to_dense(self):
        return _block_diag([op.to_dense() for op in self._operators], _batch(self._operators),
                           self.dtype)

    def _pieces(self, x, adjoint):
        sizes = [int(op.shape[-2] if adjoint else op.shape[-1]) for op in self._operators]
        return _R["split"](x, sizes, axis=-2)

    def _matmul(self, x, adjoint, adjoint_arg):
        x = _adj(x) if adjoint_arg else x
        parts = [op.matmul(p, adjoint=adjoint) for op, p in
                 zip(self._operators, self._pieces(x, not adjoint))]
        return _R["concat"](_broadcast_all(parts), -2)

    def _solve(self, rhs, adjoint):
        parts = [op.solve(p, adjoint=adjoint) for op, p in
                 zip(self._operators, self._pieces(rhs, adjoint))]
        return _R["concat"](_broadcast_all(parts), -2)

    def _determinant(self):
        det = self._operators[0].determinant()
        for op in self._operators[1:]:
            det = det * op.determinant()
        return det

    def _log_abs_determinant(self):
        out = self._operators[0].log_abs_determinant()
        for op in self._operators[1:]:
            out = out + op.log_abs_determinant()
        return out

    def _diag_part(self):
        return _R["concat"](_broadcast_all([op.diag_part() for op in self._operators], 1), -1)


def _broadcast_all(parts: list, core: int = 2) -> list:
    batch = list(np.broadcast_shapes(*[tuple(p.shape.as_list()[:-core]) for p in parts]))
    return [_R["broadcast_to"](p, batch + p.shape.as_list()[-core:]) for p in parts]


class LinearOperatorBlockLowerTriangular(LinearOperator):
    """The block lower-triangular matrix whose row `i` holds `operators[i]` (`i + 1`
    operators; the last of each row is square)."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorBlockLowerTriangular"):
        rows = [list(r) for r in operators]
        if not rows:
            raise ValueError("LinearOperatorBlockLowerTriangular: expected a non-empty list of "
                             "rows of operators.")
        for i, row in enumerate(rows):
            if len(row) != i + 1:
                raise ValueError(f"LinearOperatorBlockLowerTriangular: row {i} must hold "
                                 f"{i + 1} operators, got {len(row)}.")
        _operators([op for row in rows for op in row], "LinearOperatorBlockLowerTriangular")
        self._rows = rows
        if all(row[-1].is_non_singular for row in rows) and is_non_singular is None:
            is_non_singular = True
        super().__init__(rows[0][0].dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, {"operators": operators})

    @property
    def operators(self):
        return [list(r) for r in self._rows]

    def _shape(self):
        ops = [op for row in self._rows for op in row]
        n = sum(row[-1].shape[-1] for row in self._rows)
        return _batch(ops) + [n, n]

    def _to_dense(self):
        ops = [op for row in self._rows for op in row]
        batch = _batch(ops)
        sizes = [int(row[-1].shape[-1]) for row in self._rows]
        lines = []
        for i, row in enumerate(self._rows):
            blocks = [_R["broadcast_to"](op.to_dense(), batch + op.shape.as_list()[-2:])
                      for op in row]
            blocks += [_R["zeros"](batch + [sizes[i], n], self.dtype) for n in sizes[i + 1:]]
            lines.append(_R["concat"](blocks, -1))
        return _R["concat"](lines, -2)

    def _determinant(self):
        det = self._rows[0][-1].determinant()
        for row in self._rows[1:]:
            det = det * row[-1].determinant()
        return det

    def _log_abs_determinant(self):
        out = self._rows[0][-1].log_abs_determinant()
        for row in self._rows[1:]:
            out = out + row[-1].log_abs_determinant()
        return out


class LinearOperatorKronecker(_OfOperators):
    """The Kronecker product `operators[0] ⊗ operators[1] ⊗ ...`."""

    _JOIN = "_x_"

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self._take(operators, is_non_singular, is_self_adjoint, is_positive_definite,
                   is_square, name)

    def _shape(self):
        return _batch(self._operators) + [int(np.prod([op.shape[-2] for op in self._operators])),
                                          int(np.prod([op.shape[-1] for op in self._operators]))]

    def _to_dense(self):
        batch = _batch(self._operators)
        dense = _R["broadcast_to"](self._operators[0].to_dense(),
                                   batch + self._operators[0].shape.as_list()[-2:])
        for op in self._operators[1:]:
            b = _R["broadcast_to"](op.to_dense(), batch + op.shape.as_list()[-2:])
            m, n = dense.shape.as_list()[-2:]
            p, q = b.shape.as_list()[-2:]
            prod = (_R["reshape"](dense, batch + [m, 1, n, 1]) *
                    _R["reshape"](b, batch + [1, p, 1, q]))
            dense = _R["reshape"](prod, batch + [m * p, n * q])
        return dense

    def _determinant(self):
        if not all(op.is_square for op in self._operators):
            return super()._determinant()
        total = self.shape[-1]
        det = None
        for op in self._operators:
            term = op.determinant() ** (total // op.shape[-1])
            det = term if det is None else det * term
        return det

    def _log_abs_determinant(self):
        if not all(op.is_square for op in self._operators):
            return super()._log_abs_determinant()
        total = self.shape[-1]
        out = None
        for op in self._operators:
            term = (total // op.shape[-1]) * op.log_abs_determinant()
            out = term if out is None else out + term
        return out


class LinearOperatorLowRankUpdate(LinearOperator):
    """`base_operator + U @ diag(diag_update) @ adjoint(V)` (`V` defaults to `U`,
    `diag_update` to ones); solves and determinants by the Woodbury identity and the matrix
    determinant lemma."""

    def __init__(self, base_operator, u, diag_update=None, v=None, is_diag_update_positive=None,
                 is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorLowRankUpdate"):
        self._base = base_operator
        self._u = _t(u, base_operator.dtype)
        self._v = self._u if v is None else _t(v, base_operator.dtype)
        self._diag = None if diag_update is None else _t(diag_update, base_operator.dtype)
        if is_self_adjoint is None and v is None and base_operator.is_self_adjoint and (
                diag_update is None or not self._u.dtype.is_complex):
            is_self_adjoint = True
        super().__init__(base_operator.dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name,
                         {"base_operator": base_operator, "u": u, "diag_update": diag_update,
                          "v": v})

    @property
    def base_operator(self):
        return self._base

    @property
    def u(self):
        return self._u

    @property
    def v(self):
        return self._v

    @property
    def diag_update(self):
        return self._diag

    def _shape(self):
        ops_batch = np.broadcast_shapes(tuple(self._base.shape.as_list()[:-2]),
                                        tuple(self._u.shape.as_list()[:-2]))
        return list(ops_batch) + self._base.shape.as_list()[-2:]

    def _scaled_v_adjoint(self):
        vh = _adj(self._v)
        return vh if self._diag is None else _R["expand_dims"](self._diag, -1) * vh

    def _to_dense(self):
        return self._base.to_dense() + _L["matmul"](self._u, self._scaled_v_adjoint())

    def _capacitance(self, adjoint):
        u, v = (self._v, self._u) if adjoint else (self._u, self._v)
        k = int(u.shape[-1])
        diag = self._diag
        if diag is not None and adjoint and diag.dtype.is_complex:
            diag = _M["conj"](diag)
        d_inv = _L["eye"](k, dtype=self.dtype) if diag is None else _L["diag"](1 / diag)
        return u, v, d_inv + _L["matmul"](_adj(v), self._base.solve(u, adjoint=adjoint))

    def _solve(self, rhs, adjoint):
        u, v, cap = self._capacitance(adjoint)
        base_rhs = self._base.solve(rhs, adjoint=adjoint)
        inner = _L["solve"](cap, _L["matmul"](_adj(v), base_rhs))
        return base_rhs - self._base.solve(_L["matmul"](u, inner), adjoint=adjoint)

    def _log_abs_determinant(self):
        _, _, cap = self._capacitance(False)
        out = self._base.log_abs_determinant() + _L["slogdet"](cap)[1]
        if self._diag is not None:
            out = out + _R["reduce_sum"](_M["log"](_R["abs"](self._diag)), axis=-1)
        return out


class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix sending row `perm[i]` to row `i`: `P @ x = x[perm]`."""

    def __init__(self, perm, dtype=_dtypes.float32, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorPermutation"):
        self._perm = _t(perm)
        if not self._perm.dtype.is_integer:
            raise TypeError(f"LinearOperatorPermutation: perm must be integers, got "
                            f"{self._perm.dtype.name}.")
        if is_non_singular is False or is_square is False:
            raise ValueError("A permutation operator is always non-singular and square.")
        super().__init__(dtype, None, is_non_singular, is_self_adjoint, is_positive_definite,
                         True, name, {"perm": perm, "dtype": dtype})

    @property
    def perm(self):
        return self._perm

    def _shape(self):
        dims = self._perm.shape.as_list()
        return dims + dims[-1:]

    def _to_dense(self):
        n = self._perm.shape[-1]
        return _R["one_hot"](self._perm, n, dtype=self.dtype)

    def _matmul(self, x, adjoint, adjoint_arg):
        x = _adj(x) if adjoint_arg else x
        return _L["matmul"](self.to_dense(), x, transpose_a=adjoint)

    def _solve(self, rhs, adjoint):
        return _L["matmul"](self.to_dense(), rhs, transpose_a=not adjoint)

    def _determinant(self):
        return _L["det"](self.to_dense())

    def _log_abs_determinant(self):
        return _R["zeros"](self.batch_shape.as_list(), self.dtype)


class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix of first column `col` and first row `row` (`row[0]` is ignored:
    the diagonal is `col[0]`)."""

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorToeplitz"):
        self._col, self._row = _t(col), _t(row)
        if self._col.dtype != self._row.dtype:
            raise TypeError("LinearOperatorToeplitz: col and row must have one dtype, got "
                            f"{self._col.dtype.name} and {self._row.dtype.name}.")
        super().__init__(self._col.dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, {"col": col, "row": row})

    @property
    def col(self):
        return self._col

    @property
    def row(self):
        return self._row

    def _shape(self):
        batch = np.broadcast_shapes(tuple(self._col.shape.as_list()[:-1]),
                                    tuple(self._row.shape.as_list()[:-1]))
        n = self._col.shape[-1]
        return list(batch) + [n, n]

    def _to_dense(self):
        n = int(self._col.shape[-1])
        # values [row[n-1], ..., row[1], col[0], ..., col[n-1]]: entry (i, j) is index n-1+i-j
        values = _R["concat"](_broadcast_all([_R["reverse"](self._row[..., 1:], [-1]),
                                              self._col], 1), -1)
        index = (n - 1) + np.arange(n)[:, None] - np.arange(n)[None, :]
        return _R["gather"](values, _t(index.astype(np.int32)), axis=-1,
                            batch_dims=0)


class LinearOperatorTridiag(LinearOperator):
    """A tridiagonal matrix from its diagonals: `diagonals_format` 'compact' (`[..., 3, N]`:
    superdiagonal padded at the end, diagonal, subdiagonal padded at the start), 'sequence'
    (a list of the three) or 'matrix' (the dense `[..., N, N]`, its band kept)."""

    def __init__(self, diagonals, diagonals_format="compact", is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorTridiag"):
        if diagonals_format not in ("compact", "sequence", "matrix"):
            raise ValueError(f"LinearOperatorTridiag: diagonals_format must be 'compact', "
                             f"'sequence' or 'matrix', got {diagonals_format!r}.")
        self._format = diagonals_format
        if diagonals_format == "sequence":
            self._diagonals = [_t(d) for d in diagonals]
            dtype = self._diagonals[0].dtype
        else:
            self._diagonals = _t(diagonals)
            dtype = self._diagonals.dtype
        super().__init__(dtype, None, is_non_singular, is_self_adjoint, is_positive_definite,
                         True, name, {"diagonals": diagonals,
                                      "diagonals_format": diagonals_format})

    @property
    def diagonals(self):
        return self._diagonals

    @property
    def diagonals_format(self):
        return self._format

    def _parts(self):
        if self._format == "sequence":
            return self._diagonals
        if self._format == "compact":
            return [self._diagonals[..., 0, :], self._diagonals[..., 1, :],
                    self._diagonals[..., 2, :]]
        m = self._diagonals
        return [None, None, None, m]

    def _shape(self):
        if self._format == "matrix":
            return self._diagonals.shape.as_list()
        super_, main, _ = self._parts()[:3]
        n = main.shape[-1]
        return main.shape.as_list()[:-1] + [n, n]

    def _to_dense(self):
        if self._format == "matrix":
            return _L["band_part"](self._diagonals, 1, 1)
        super_, main, sub = self._parts()[:3]
        n = int(main.shape[-1])
        eye = np.eye(n)
        upper = _t(np.eye(n, k=1).astype(self.dtype.as_numpy_dtype))
        lower = _t(np.eye(n, k=-1).astype(self.dtype.as_numpy_dtype))
        dense = _R["expand_dims"](main, -1) * _t(eye.astype(self.dtype.as_numpy_dtype))
        # row i holds super[i] at column i + 1 and sub[i] at column i - 1
        dense = dense + _R["expand_dims"](super_, -1) * upper
        dense = dense + _R["expand_dims"](sub, -1) * lower
        return dense


class LinearOperatorHouseholder(LinearOperator):
    """The reflection `I - 2 v v^H / (v^H v)` about the hyperplane orthogonal to
    `reflection_axis` `v`."""

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorHouseholder"):
        self._v = _t(reflection_axis)
        if is_self_adjoint is False or is_non_singular is False or is_positive_definite:
            raise ValueError("A Householder operator is always self-adjoint, non-singular and "
                             "not positive definite.")
        super().__init__(self._v.dtype, None, is_non_singular, True, False, True, name,
                         {"reflection_axis": reflection_axis})

    @property
    def reflection_axis(self):
        return self._v

    def _shape(self):
        dims = self._v.shape.as_list()
        return dims + dims[-1:]

    def _unit(self):
        v = self._v
        norm2 = _R["reduce_sum"](v * (_M["conj"](v) if v.dtype.is_complex else v), axis=-1,
                                 keepdims=True)
        return v, norm2

    def _to_dense(self):
        v, norm2 = self._unit()
        n = int(v.shape[-1])
        vv = _R["expand_dims"](v, -1) * _R["expand_dims"](
            _M["conj"](v) if v.dtype.is_complex else v, -2)
        return _L["eye"](n, dtype=self.dtype) - 2 * vv / _R["expand_dims"](norm2, -1)

    def _solve(self, rhs, adjoint):
        return self._matmul(rhs, adjoint, False)

    def _determinant(self):
        return -_R["ones"](self.batch_shape.as_list(), self.dtype)

    def _log_abs_determinant(self):
        return _R["zeros"](self.batch_shape.as_list(), self.dtype)


class _Circulant(LinearOperator):
    _RANK = 1

    def __init__(self, spectrum, input_output_dtype=_dtypes.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True, name=None):
        self._spectrum = _t(spectrum)
        if self._spectrum.shape.rank is not None and self._spectrum.shape.rank < self._RANK:
            raise ValueError(f"{type(self).__name__}: spectrum must have rank >= {self._RANK}, "
                             f"got shape {self._spectrum.shape}.")
        super().__init__(input_output_dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name or type(self).__name__,
                         {"spectrum": spectrum, "input_output_dtype": input_output_dtype})

    @property
    def spectrum(self):
        return self._spectrum

    def _block_shape(self):
        return [int(d) for d in self._spectrum.shape.as_list()[-self._RANK:]]

    def _shape(self):
        n = int(np.prod(self._block_shape()))
        return self._spectrum.shape.as_list()[:-self._RANK] + [n, n]

    def convolution_kernel(self, name="convolution_kernel"):
        """The first column of the matrix (shaped like the spectrum): its inverse FFT."""
        spectrum = self._spectrum
        if not spectrum.dtype.is_complex:
            spectrum = _R["cast"](spectrum, _dtypes.complex128 if spectrum.dtype ==
                                  _dtypes.float64 else _dtypes.complex64)
        inverse = {1: _S["ifft"], 2: _S["ifft2d"], 3: _S["ifft3d"]}[self._RANK]
        return inverse(spectrum)

    def _to_dense(self):
        kernel = self.convolution_kernel()
        shape = self._block_shape()
        # entry (i, j) of a (block) circulant matrix is kernel[(i - j) mod shape], per axis
        grids = np.indices(shape).reshape(self._RANK, -1)
        diff = [(grids[a][:, None] - grids[a][None, :]) % shape[a] for a in range(self._RANK)]
        flat_index = np.ravel_multi_index(diff, shape).astype(np.int32)
        flat = _R["reshape"](kernel, kernel.shape.as_list()[:-self._RANK] + [-1])
        dense = _R["gather"](flat, _t(flat_index), axis=-1)
        if self.dtype.is_complex:
            return _R["cast"](dense, self.dtype)
        return _R["cast"](_M["real"](dense), self.dtype)

    def _apply(self, x, spectrum):
        """`x` (`[..., N, K]`) times the circulant matrix of `spectrum`, through the FFT."""
        complex_dtype = spectrum.dtype
        block = self._block_shape()
        xt = _L["matrix_transpose"](_R["cast"](x, complex_dtype) if not x.dtype.is_complex
                                    else x)
        k = int(xt.shape[-2])
        lead = xt.shape.as_list()[:-2]
        forward = {1: _S["fft"], 2: _S["fft2d"], 3: _S["fft3d"]}[self._RANK]
        inverse = {1: _S["ifft"], 2: _S["ifft2d"], 3: _S["ifft3d"]}[self._RANK]
        y = forward(_R["reshape"](xt, lead + [k] + block))
        y = inverse(y * _R["expand_dims"](spectrum, -self._RANK - 1))
        y = _L["matrix_transpose"](_R["reshape"](y, lead + [k, int(np.prod(block))]))
        return self._as_dtype(y)

    def _complex_spectrum(self):
        spectrum = self._spectrum
        if spectrum.dtype.is_complex:
            return spectrum
        return _R["cast"](spectrum, _dtypes.complex128 if spectrum.dtype == _dtypes.float64
                          else _dtypes.complex64)

    def _matmul(self, x, adjoint, adjoint_arg):
        spectrum = self._complex_spectrum()
        x = _adj(x) if adjoint_arg else x
        return self._apply(x, _M["conj"](spectrum) if adjoint else spectrum)

    def _solve(self, rhs, adjoint):
        spectrum = self._complex_spectrum()
        return self._apply(rhs, 1 / (_M["conj"](spectrum) if adjoint else spectrum))

    def _flat_spectrum(self):
        return _R["reshape"](self._spectrum,
                             self._spectrum.shape.as_list()[:-self._RANK] + [-1])

    def _as_dtype(self, value):
        if value.dtype.is_complex and not self.dtype.is_complex:
            value = _M["real"](value)
        return _R["cast"](value, self.dtype)

    def _determinant(self):
        return self._as_dtype(_R["reduce_prod"](self._flat_spectrum(), axis=-1))

    def _log_abs_determinant(self):
        return self._as_dtype(_R["reduce_sum"](_M["log"](_R["abs"](self._flat_spectrum())),
                                               axis=-1))


class LinearOperatorCirculant(_Circulant):
    """The circulant matrix whose eigenvalues are `spectrum` (`[..., N]`): its first column
    is `ifft(spectrum)`; the matrix is of `input_output_dtype` (complex64 by default; a real
    dtype keeps the real part)."""
    _RANK = 1


class LinearOperatorCirculant2D(_Circulant):
    """The block-circulant matrix with circulant blocks of a `[..., N1, N2]` spectrum."""
    _RANK = 2


class LinearOperatorCirculant3D(_Circulant):
    """The doubly nested block-circulant matrix of a `[..., N1, N2, N3]` spectrum."""
    _RANK = 3


# -- tridiagonal and banded solvers (rt.linalg functions composed of ops) -----------------------

def _tridiag_dense(diagonals, diagonals_format, what) -> Tensor:
    if diagonals_format == "matrix":
        return _L["band_part"](_t(diagonals), 1, 1)
    if diagonals_format not in ("compact", "sequence"):
        raise ValueError(f"{what}: diagonals_format must be 'compact', 'sequence' or 'matrix', "
                         f"got {diagonals_format!r}.")
    return LinearOperatorTridiag(diagonals, diagonals_format).to_dense()


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False,
                      conjugate_rhs=False, name=None, partial_pivoting=True,
                      perturb_singular=False) -> Tensor:
    """Solves a tridiagonal system `A x = rhs` (`A` given by its diagonals, see
    `LinearOperatorTridiag`); `rhs` is `[..., M, K]` (or `[..., M]`), or `[..., K, M]` with
    `transpose_rhs`; the result is `[..., M, K]` (`[..., M]`). Singular systems raise
    InvalidArgumentError."""
    if perturb_singular:
        raise NotImplementedError("tridiagonal_solve: perturb_singular=True is not offered; "
                                  "singular systems raise InvalidArgumentError.")
    matrix = _tridiag_dense(diagonals, diagonals_format, "tridiagonal_solve")
    rhs = _t(rhs, matrix.dtype)
    vector = rhs.shape.rank == matrix.shape.rank - 1
    if conjugate_rhs and rhs.dtype.is_complex:
        rhs = _M["conj"](rhs)
    if vector:
        rhs = _R["expand_dims"](rhs, -1)
    elif transpose_rhs:
        rhs = _L["matrix_transpose"](rhs)
    out = _L["solve"](matrix, rhs)
    if vector:
        return _R["squeeze"](out, [-1])
    return out


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None) -> Tensor:
    """`A @ rhs` for a tridiagonal `A` given by its diagonals (see `LinearOperatorTridiag`)."""
    matrix = _tridiag_dense(diagonals, diagonals_format, "tridiagonal_matmul")
    return _L["matmul"](matrix, _t(rhs, matrix.dtype))


def banded_triangular_solve(bands, rhs, lower=True, adjoint=False, name=None) -> Tensor:
    """Solves `A x = rhs` for a banded triangular `A` given by its `[..., K, N]` bands
    (LEFT_RIGHT alignment): for `lower`, row 0 is the diagonal and row k the k-th subdiagonal,
    right-aligned (its first k entries are padding); otherwise row K-1 is the diagonal and row
    K-1-k the k-th superdiagonal, left-aligned (its last k entries are padding)."""
    bands = _t(bands)
    rhs = _t(rhs, bands.dtype)
    k, n = int(bands.shape[-2]), int(bands.shape[-1])
    dense = None
    for band in range(k):
        if lower:  # subdiagonals right-aligned: the padding comes first
            values, offset = bands[..., band, band:], -band
        else:  # superdiagonals left-aligned: the padding comes last
            values, offset = bands[..., k - 1 - band, :n - band], band
        # a matrix with `values` on diagonal `offset`
        diag_matrix = _L["diag"](values, k=offset) if band else _L["diag"](values)
        dense = diag_matrix if dense is None else dense + diag_matrix
    return _L["triangular_solve"](dense, rhs, lower=lower, adjoint=adjoint)


__all__ = ["LinearOperator", "LinearOperatorAdjoint", "LinearOperatorBlockDiag",
           "LinearOperatorBlockLowerTriangular", "LinearOperatorCirculant",
           "LinearOperatorCirculant2D", "LinearOperatorCirculant3D",
           "LinearOperatorComposition", "LinearOperatorDiag", "LinearOperatorFullMatrix",
           "LinearOperatorHouseholder", "LinearOperatorIdentity", "LinearOperatorInversion",
           "LinearOperatorKronecker", "LinearOperatorLowRankUpdate",
           "LinearOperatorLowerTriangular", "LinearOperatorPermutation",
           "LinearOperatorScaledIdentity", "LinearOperatorToeplitz", "LinearOperatorTridiag",
           "LinearOperatorZeros", "banded_triangular_solve", "tridiagonal_matmul",
           "tridiagonal_solve"]

add_keyword_hints_to_classes(globals(), __name__)  # a misspelt keyword: "did you mean"
tridiagonal_solve = with_keyword_hints(tridiagonal_solve, "tridiagonal_solve")
tridiagonal_matmul = with_keyword_hints(tridiagonal_matmul, "tridiagonal_matmul")
banded_triangular_solve = with_keyword_hints(banded_triangular_solve, "banded_triangular_solve")
