"""Linear algebra: matmul, tensordot, einsum, inverse, determinant."""

from __future__ import annotations

import re

import numpy as np

from ..attr_kinds import AXES_PAIR, BOOL, EQUATION
from ..errors import InvalidArgumentError
from ..exports import export
from ..opdef import define
from ..shapes import TensorShape
from ..tensor import Tensor
from . import array_math
from .core import apply, convert_to_tensor
from .shape_rules import broadcast, same_dtype


def _matmul_infer(a, b, transpose_a, transpose_b):
    dtype = same_dtype("MatMul", a, b)
    da, db = a.shape.as_tuple(), b.shape.as_tuple()
    if da is None or db is None:
        return TensorShape(None), dtype
    if len(da) < 2 or len(db) < 2:
        raise InvalidArgumentError(f"MatMul needs tensors of rank >= 2, got shapes {a.shape} and {b.shape}.")
    m, k1 = (da[-1], da[-2]) if transpose_a else (da[-2], da[-1])
    k2, n = (db[-1], db[-2]) if transpose_b else (db[-2], db[-1])
    if k1 is not None and k2 is not None and k1 != k2:
        raise InvalidArgumentError(f"MatMul: inner dimensions differ: shapes {a.shape} and {b.shape} "
                         f"(transpose_a={transpose_a}, transpose_b={transpose_b}) give {k1} vs {k2}.")
    batch = broadcast(TensorShape(da[:-2]), TensorShape(db[:-2]), "MatMul").as_tuple()
    return TensorShape(batch + (m, n)), dtype


def _t(x):
    return np.swapaxes(x, -1, -2)


def _matmul_kernel(a, b, transpose_a, transpose_b):
    return np.matmul(_t(a) if transpose_a else a, _t(b) if transpose_b else b)


def _emit_matmul(em, op):
    a, b = em.ins(op)
    ra, rb = op.inputs[0].shape.rank, op.inputs[1].shape.rank
    if op.attrs["transpose_a"]:
        a = f"{a}.T" if ra == 2 else f"np.swapaxes({a}, -1, -2)"
    if op.attrs["transpose_b"]:
        b = f"{b}.T" if rb == 2 else f"np.swapaxes({b}, -1, -2)"
    em.line(f"{em.outs(op)[0]} = {a} @ {b}")


MATMUL = define("MatMul", _matmul_infer, _matmul_kernel, emit=_emit_matmul, fresh_output=True,
                attrs={"transpose_a": BOOL, "transpose_b": BOOL})


@MATMUL.def_grad
def _matmul_grad(op, g):
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    ga = gb = None
    if op.needs[0]:
        b = op.inputs[1]
        if ta:
            ga = matmul(b, g, transpose_a=tb, transpose_b=True)
        else:
            ga = matmul(g, b, transpose_b=not tb)
        ga = array_math.sum_grad(ga, op, 0)
    if op.needs[1]:
        a = op.inputs[0]
        if tb:
            gb = matmul(g, a, transpose_a=True, transpose_b=ta)
        else:
            gb = matmul(a, g, transpose_a=not ta)
        gb = array_math.sum_grad(gb, op, 1)
    return [ga, gb]


@export("matmul", "linalg.matmul")
def matmul(a, b, transpose_a=False, transpose_b=False, name=None) -> Tensor:
    """Matrix product a @ b of rank >= 2 tensors (batch dims broadcast).

    transpose_a / transpose_b transpose the last two axes of that operand first.
    """
    a = convert_to_tensor(a)
    b = convert_to_tensor(b, dtype=a.dtype) if not hasattr(b, "dtype") else convert_to_tensor(b)
    return apply(MATMUL, [a, b], {"transpose_a": bool(transpose_a),
                                  "transpose_b": bool(transpose_b)}, name=name)


def _tensordot_axes(axes, ra):
    if isinstance(axes, (int, np.integer)):
        return tuple(range(ra - int(axes), ra)), tuple(range(int(axes)))
    first, second = axes
    first = (first,) if isinstance(first, (int, np.integer)) else tuple(first)
    second = (second,) if isinstance(second, (int, np.integer)) else tuple(second)
    return tuple(int(x) for x in first), tuple(int(x) for x in second)


def _tensordot_infer(a, b, axes):
    dtype = same_dtype("Tensordot", a, b)
    da, db = a.shape.as_tuple(), b.shape.as_tuple()
    if da is None or db is None:
        return TensorShape(None), dtype
    xa, xb = axes
    xa = tuple(x % len(da) for x in xa)
    xb = tuple(x % len(db) for x in xb)
    for i, j in zip(xa, xb):
        if da[i] is not None and db[j] is not None and da[i] != db[j]:
            raise InvalidArgumentError(f"Tensordot: contracted dimensions differ: shapes {a.shape} and "
                             f"{b.shape} on axes {list(xa)} and {list(xb)}.")
    return TensorShape([d for i, d in enumerate(da) if i not in xa] +
                       [d for j, d in enumerate(db) if j not in xb]), dtype


TENSORDOT = define("Tensordot", _tensordot_infer, lambda a, b, axes: np.tensordot(a, b, axes),
                   attrs={"axes": AXES_PAIR})


@TENSORDOT.def_grad
def _tensordot_grad(op, g):
    a, b = op.forward_inputs
    ra, rb = a.shape.rank, b.shape.rank
    xa, xb = op.attrs["axes"]
    xa = [x % ra for x in xa]
    xb = [x % rb for x in xb]
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    term_a = [next(letters) for _ in range(ra)]
    term_b = [next(letters) for _ in range(rb)]
    for i, j in zip(xa, xb):
        term_b[j] = term_a[i]
    rhs = "".join(c for i, c in enumerate(term_a) if i not in xa) + \
        "".join(c for j, c in enumerate(term_b) if j not in xb)
    return _einsum_grads(op, g, ["".join(term_a), "".join(term_b)], rhs, op.inputs)


@export("tensordot", "linalg.tensordot")
def tensordot(a, b, axes, name=None) -> Tensor:
    """Sums products over `axes`, like np.tensordot.

    `axes` is an int n (the last n axes of a with the first n of b) or two lists of axes.
    """
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a.shape.rank is None:
        raise ValueError("tensordot needs tensors of known rank.")
    return apply(TENSORDOT, [a, b], {"axes": _tensordot_axes(axes, a.shape.rank)}, name=name)


def _einsum_infer(*xs, equation):
    dtype = same_dtype("Einsum", *xs)
    eq = equation.replace(" ", "")
    lhs, _, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(xs):
        raise ValueError(f"Einsum equation {equation!r} names {len(terms)} operands, got {len(xs)}.")
    sizes = {}
    for term, x in zip(terms, xs):
        dims = x.shape.as_tuple()
        if "." in term or dims is None:
            return TensorShape(None), dtype
        if len(term) != len(dims):
            raise InvalidArgumentError(f"Einsum: operand {term!r} has rank {len(term)} but shape {x.shape}.")
        for letter, d in zip(term, dims):
            old = sizes.get(letter)
            if old is not None and d is not None and old != d and 1 not in (old, d):
                raise InvalidArgumentError(f"Einsum {equation!r}: dimension {letter!r} is {old} in one "
                                 f"operand and {d} in another.")
            if old is None or old == 1:
                sizes[letter] = d
    if not _:
        counts = {c: lhs.count(c) for c in re.sub("[^a-zA-Z]", "", lhs)}
        rhs = "".join(sorted(c for c, n in counts.items() if n == 1))
    return TensorShape([sizes.get(c) for c in rhs]), dtype


EINSUM = define("Einsum", _einsum_infer, lambda *xs, equation: np.einsum(equation, *xs),
                attrs={"equation": EQUATION})


@EINSUM.def_grad
def _einsum_grad(op, g):
    terms, rhs = _einsum_terms(op.attrs["equation"], len(op.forward_inputs))
    return _einsum_grads(op, g, terms, rhs, op.inputs)


@export("einsum", "linalg.einsum")
def einsum(equation, *inputs, name=None) -> Tensor:
    """Einstein summation over the inputs, e.g. einsum('ij,jk->ik', a, b), like np.einsum."""
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    return apply(EINSUM, [convert_to_tensor(x) for x in inputs], {"equation": equation}, name=name)


def _square_infer(name, drop):
    def infer(x):
        dims = x.shape.as_tuple()
        if dims is not None:
            if len(dims) < 2:
                raise ValueError(f"{name} needs a (batch) matrix of rank >= 2, got shape "
                                 f"{x.shape}.")
            if None not in dims[-2:] and dims[-1] != dims[-2]:
                raise InvalidArgumentError(f"{name} needs square matrices, got shape {x.shape}.")
            if not x.dtype.is_floating and not x.dtype.is_complex:
                raise TypeError(f"{name} needs a floating-point tensor, got {x.dtype.name}.")
            return TensorShape(dims[:-2] if drop else dims), x.dtype
        return TensorShape(None), x.dtype
    return infer


INV = define("MatrixInverse", _square_infer("MatrixInverse", False), np.linalg.inv,
             template="np.linalg.inv({0})")


@INV.def_grad
def _inverse_grad(op, g):
    y = op.outputs[0]
    return [array_math.negative(matmul(y, matmul(g, y, transpose_b=True), transpose_a=True))]


DET = define("MatrixDeterminant", _square_infer("MatrixDeterminant", True), np.linalg.det,
             template="np.linalg.det({0})")


@DET.def_grad
def _determinant_grad(op, g):
    x = op.inputs[0]
    scale = array_math.expand_dims(array_math.expand_dims(array_math.multiply(g, op.outputs[0]), -1), -1)
    return [array_math.multiply(scale, _matrix_transpose(inv(x)))]


@export("linalg.inv")
def inv(input, name=None) -> Tensor:  # noqa: A002
    """The inverse of each square matrix in the last two axes."""
    return apply(INV, [_matrix_arg(input, "input", "inv")], name=name)


@export("linalg.det")
def det(input, name=None) -> Tensor:  # noqa: A002
    """The determinant of each square matrix in the last two axes."""
    return apply(DET, [_matrix_arg(input, "input", "det")], name=name)


def _matrix_arg(value, what, fn):
    x = convert_to_tensor(value)
    if x.shape.rank is not None and x.shape.rank < 2:
        raise ValueError(f"Argument `{what}` of {fn} should be a (batch) matrix with rank >= 2, "
                         f"got shape {x.shape}.")
    return x


# -- gradients -------------------------------------------------------------------------------------
# Rules: (op, *output_grads) -> one gradient per input (see the note in array_math).



def _einsum_terms(equation: str, n: int):
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if not arrow:
        letters = re.sub("[^a-zA-Z]", "", lhs)
        rhs = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    if "." in eq or any(len(set(t)) != len(t) for t in terms):
        raise NotImplementedError(f"The gradient of einsum {equation!r} is not supported: "
                                  "ellipses and repeated indices in one operand are not.")
    return terms, rhs


def _einsum_grads(op, g, terms, rhs, operands):
    """Gradients of einsum(terms -> rhs) for each operand that needs one."""
    grads = []
    for i, term in enumerate(terms):
        if not op.needs[i]:
            grads.append(None)
            continue
        others = [t for j, t in enumerate(terms) if j != i]
        available = set(rhs).union(*others)
        kept = "".join(c for c in term if c in available)
        inputs = [operands[j] for j in range(len(terms)) if j != i] + [g]
        grad = einsum(",".join(others + [rhs]) + "->" + kept, *inputs)
        if kept != term:
            dims = array_math.static_dims(op.forward_inputs[i])
            if dims is None:
                raise NotImplementedError("The gradient of an einsum that sums over an axis of "
                                          "one operand only needs static shapes.")
            grad = array_math.reshape(grad, [d if c in kept else 1 for c, d in zip(term, dims)])
            grad = array_math.broadcast_grad(grad, op, i)
        grads.append(array_math.sum_grad(grad, op, i))
    return grads


def _matrix_transpose(x):
    rank = x.shape.rank
    return array_math.transpose(x, tuple(range(rank - 2)) + (rank - 1, rank - 2))


